"""
A report on a credit-default model
==================================

:func:`beyondchance.evaluate` on the scores of a gradient-boosted model for the ISLR
``Default`` data (10,000 customers, 3.3% default): every metric with its baseline,
prediction advantage, outperformance score, interval and verdict; then the
precision–recall curve beside its OPRC (the outperformance score of precision at each
recall).
"""

import matplotlib.pyplot as plt
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import train_test_split

import beyondchance as bc
from beyondchance.datasets import load_r

data = load_r("islr_default")
X_train, X_test, y_train, y_test = train_test_split(data.X, data.y, test_size=0.5, stratify=data.y, random_state=0)
score = HistGradientBoostingClassifier(max_iter=100, random_state=0).fit(X_train, y_train).predict_proba(X_test)[:, 1]

report = bc.evaluate(y_test, score, n_resamples=500, random_state=0, name="ISLR Default, held-out half")
print(report)

# %%
# The table as a data frame, one row per metric:

frame = report.to_frame()
print(frame.head(12).to_string())

# %%
# The precision–recall curve moves with the prevalence; the OPRC ranks precision at each
# recall among the Directed-Binary-Tree reference curves at this prevalence.

pr = bc.precision_recall_curve(y_test, score)
oprc = bc.ops_precision_recall_curve(y_test, score)
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
left.plot(pr.x, pr.y)
left.axhline(y_test.mean(), color="grey", ls="--", label=f"constant score (π = {y_test.mean():.3f})")
left.set_xlabel("recall")
left.set_ylabel("precision")
left.set_title(f"PR curve, average precision {bc.average_precision(y_test, score):.3f}")
left.legend(fontsize=8)
right.plot(oprc.x, oprc.ops, "o-")
right.set_ylim(0, 1.02)
right.set_xlabel("recall")
right.set_ylabel("OPS of precision")
right.set_title("OPRC")
fig.tight_layout()
