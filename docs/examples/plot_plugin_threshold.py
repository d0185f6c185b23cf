"""
Choosing a threshold for pure accuracy
======================================

On the imbalanced bundled ``flare-F`` data (KEEL, 1,066 flares, 4% positive) a kernel
logistic regression's posterior is thresholded by several strategies of
:class:`beyondchance.learn.PluginThresholdClassifier`; the threshold 0.5 maximises
accuracy and predicts almost nothing positive, the τ-interval search (Algorithm 2 of the
Pure Accuracy paper) maximises pure accuracy.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler

import beyondchance as bc
from beyondchance.datasets import load_keel
from beyondchance.learn import KernelLogisticRegression, PluginThresholdClassifier

data = load_keel("flare-F")
X = MinMaxScaler().fit_transform(data.X)
X_train, X_test, y_train, y_test = train_test_split(X, data.y, test_size=0.4, stratify=data.y, random_state=0)

results = {}
for strategy in ("fixed-0.5", "p-cut", "bisection-f1", "tau-interval"):
    clf = PluginThresholdClassifier(KernelLogisticRegression(gamma=1.0), strategy=strategy, random_state=0)
    pred = clf.fit(X_train, y_train).predict(X_test)
    results[strategy] = (np.mean(pred == y_test), bc.pure_accuracy(y_test, pred), bc.prediction_advantage(y_test, pred))
    print(f"{strategy:>13}: threshold {clf.threshold_:.3f}, accuracy {results[strategy][0]:.3f}, "
          f"pure accuracy {results[strategy][1]:+.3f}, prediction advantage {results[strategy][2]:+.3f}")

fig, ax = plt.subplots(figsize=(7, 3.4))
xs = np.arange(len(results))
for k, label in enumerate(("accuracy", "pure accuracy", "prediction advantage")):
    ax.bar(xs + (k - 1) * 0.27, [v[k] for v in results.values()], 0.27, label=label)
ax.set_xticks(xs, list(results))
ax.axhline(0, color="black", lw=0.8)
ax.legend(fontsize=8)
ax.set_title("flare-F, 40% test split")
fig.tight_layout()
