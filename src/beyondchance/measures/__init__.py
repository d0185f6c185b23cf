"""Measures: pure functions of counts — losses and their best constants, the labeling-metric
registry, the confusion matrix, curves and their areas, prediction advantage, pure accuracy,
calibration, precision-recall-gain and decision curves.
"""
