"""
Selective prediction: the prediction advantage against coverage
===============================================================

A classifier that may abstain keeps its most confident predictions. Its risk alone is
misleading, because rejecting changes the class balance of what is kept;
:func:`beyondchance.pa_coverage_curve` recomputes the best constant prediction on the
covered subset at every coverage level. Data: the bundled Wisconsin breast-cancer set
(569 tumours, 37% malignant), out-of-fold predictions of a logistic regression.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import beyondchance as bc
from beyondchance.datasets import load_keel

data = load_keel("wdbc")
proba = cross_val_predict(make_pipeline(StandardScaler(), LogisticRegression()), data.X, data.y, cv=5,
                          method="predict_proba")[:, 1]
pred = (proba >= 0.5).astype(int)
confidence = np.abs(proba - 0.5)
curve = bc.pa_coverage_curve(data.y, pred, confidence)
for level in (1.0, 0.9, 0.75, 0.5):
    k = int(np.argmin(np.abs(curve.coverage - level)))
    print(f"coverage {curve.coverage[k]:.2f}: prediction advantage {curve.pa[k]:+.3f}, "
          f"risk {curve.risk[k]:.4f}, risk of the constant answer on the kept part {curve.baseline_risk[k]:.4f}")
print(f"area under the curve: {curve.area:.3f}")

fig, ax = plt.subplots(figsize=(6, 3.6))
ax.plot(curve.coverage, curve.pa)
ax.set_xlabel("coverage (share of predictions kept)")
ax.set_ylabel("prediction advantage on the kept part")
ax.set_title(f"PA at full coverage {bc.prediction_advantage(data.y, pred):.3f}")
fig.tight_layout()
