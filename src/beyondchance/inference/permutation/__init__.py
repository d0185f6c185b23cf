"""Permutation tests of "no better than chance": one public function
(:func:`~beyondchance.inference.permutation.permutation_test.permutation_test`), its methods as
modules (the CLT from statistics, the rows, the losses, the AUCs, the average precisions), and
below them the result type with its p-values (``result``) and the measures of weighted tables
(``measures_of_tables``).
"""
