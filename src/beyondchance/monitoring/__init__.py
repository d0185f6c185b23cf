"""Monitoring: a prevalence shift or a changed classifier (the decomposition), and performance
estimated from a window's scores before its labels arrive.
"""
