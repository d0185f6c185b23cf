"""Sufficient statistics: small, mergeable summaries from one pass over the data.
"""
