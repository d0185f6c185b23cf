"""Inference on the measures: bootstrap intervals, the grouped Poisson bootstrap, DeLong's test
and the permutation tests of "no better than chance".
"""
