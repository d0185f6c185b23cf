"""One module per report task: each turns the task's statistics (and the context) into
the report's rows.

* :mod:`.binary_scores` — :class:`~beyondchance.measures.curves.ThresholdCounts`
* :mod:`.labels` — :class:`~beyondchance.measures.confusion.ConfusionMatrix` (binary and multi-class)
* :mod:`.probabilities` — confusion matrix, label counts and probability-loss sums
* :mod:`.regression` — loss sums, moments and the target histogram
"""
