"""
Which number should I trust?
============================

Accuracy, then the prediction advantage, then pure accuracy, then the outperformance
score: each removes a way in which a number can flatter a predictor. We walk through them
on two bundled real data sets — Haberman's breast-cancer survival data (306 patients, 81
died) and a credit data set (4,454 loans, 28% bad) — and say at each step which pitfall the
new number removes and which it leaves.
"""

# %%
# Step 1 — accuracy, and the constant answer it hides
# ---------------------------------------------------
#
# Five standard classifiers, each evaluated by 10-fold cross-validation on Haberman.
# Beside them, the constant answer "survived" (the majority class).

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

import beyondchance as bc
from beyondchance.datasets import load_keel

haberman = load_keel("haberman")
X, y = haberman.X, haberman.y
folds = StratifiedKFold(10, shuffle=True, random_state=0)
models = {
    "logistic regression": LogisticRegression(max_iter=1000),
    "naive Bayes": GaussianNB(),
    "5-nearest neighbours": KNeighborsClassifier(5),
    "decision tree": DecisionTreeClassifier(random_state=0),
    "random forest": RandomForestClassifier(100, random_state=0),
}
predictions = {name: cross_val_predict(m, X, y, cv=folds) for name, m in models.items()}
predictions["always 'survived'"] = np.zeros_like(y)

print(f"patients: {y.size}, died: {y.sum()} ({y.mean():.2%})")
for name, pred in predictions.items():
    print(f"{name:>22}: accuracy {np.mean(pred == y):.3f}")
worse = [n for n in models if np.mean(predictions[n] == y) < 1 - y.mean()]
print(f"less accurate than always answering 'survived': {len(worse)} of {len(models)} ({', '.join(worse)})")

# %%
# Every classifier scores around 0.7 — and the constant answer scores
# :math:`1 - 81/306 = 0.735`. **Pitfall:** accuracy
# has no zero point; its trivial value is the majority share, different on every data set.
#
# Step 2 — the prediction advantage: 0 is the best constant answer
# -----------------------------------------------------------------
#
# :math:`\mathrm{PA} = 1 - R(f)/R(f_0)`, with :math:`f_0` the best constant prediction for
# the loss (here the 0/1 loss: the majority class). It is 0 for the constant answer and
# negative for a predictor that does worse than it.

pa = {name: bc.prediction_advantage(y, pred) for name, pred in predictions.items()}
for name, value in pa.items():
    print(f"{name:>22}: prediction advantage {value:+.3f}")

# %%
# An interval shows whether "better than the constant" is supported by 306 patients at all
# (the constant answer is re-estimated in every bootstrap resample):

best = max((n for n in models), key=pa.get)
ci = bc.bootstrap_ci("prediction_advantage", y, predictions[best], n_resamples=1000, random_state=0)
print(best, ci)

# %%
# **Removed:** the hidden baseline. **Left:** the prediction advantage measures the gain
# over the *best constant*; it does not say how much of the agreement is what a random
# labeling at the model's own rate of "died" answers would get.
#
# Step 3 — pure accuracy: the agreement of chance removed
# -------------------------------------------------------
#
# :math:`(A - \mathrm{RA})/(1 - \mathrm{RA})` with :math:`\mathrm{RA} = pq + (1-p)(1-q)`,
# the expected accuracy of random answers given at the model's own positive rate
# :math:`q`. Random answers score 0 in expectation at *every* rate (a single draw scatters
# around 0), while their accuracy drifts:

rng = np.random.default_rng(0)
for q in (0.0, 0.25, 0.5):
    random_answers = (rng.random(y.size) < q).astype(int)
    print(f"random answers at rate {q:.2f}: accuracy {np.mean(random_answers == y):.3f}, "
          f"pure accuracy {bc.pure_accuracy(y, random_answers):+.3f}, "
          f"prediction advantage {bc.prediction_advantage(y, random_answers):+.3f}")

pure = {name: bc.pure_accuracy(y, pred) for name, pred in predictions.items()}
print("better than chance, worse than the constant answer:",
      ", ".join(n for n in models if pure[n] > 0 and pa[n] < 0) or "none")

# %%
# The classifiers side by side (pure accuracy is Cohen's :math:`\kappa` for two classes):

names = list(predictions)
fig, ax = plt.subplots(figsize=(8, 3.8))
width = 0.27
xs = np.arange(len(names))
ax.bar(xs - width, [np.mean(predictions[n] == y) for n in names], width, label="accuracy")
ax.bar(xs, [pa[n] for n in names], width, label="prediction advantage")
ax.bar(xs + width, [pure[n] for n in names], width, label="pure accuracy")
ax.axhline(0, color="black", lw=0.8)
ax.axhline(1 - y.mean(), color="grey", ls="--", lw=0.8, label="accuracy of the constant answer")
ax.set_xticks(xs, names, rotation=20, ha="right")
ax.set_title("Haberman, 10-fold cross-validation")
ax.legend(fontsize=8, loc="lower left")
fig.tight_layout()

# %%
# Positive pure accuracy with a negative prediction advantage (printed above) reads:
# *better than random answers at the same rate, worse than always saying "survived"*. **Removed:** chance agreement at the model's rate. **Left:** both numbers
# still depend on the prevalence of the test set, so they cannot be compared across test
# sets whose class balance differs.
#
# Step 4 — the outperformance score: a percentile at this prevalence
# ------------------------------------------------------------------
#
# On the credit data we train one model and test it on sets with different shares of bad
# loans, drawn class-wise from the same held-out half: the classifier's error rates stay
# the same, only the prevalence changes.

from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

from beyondchance.datasets import load_r  # noqa: E402

credit = load_r("modeldata_credit_data")
X_train, X_test, y_train, y_test = train_test_split(credit.X, credit.y, test_size=0.5, stratify=credit.y,
                                                    random_state=0)
model = HistGradientBoostingClassifier(max_iter=100, random_state=0).fit(X_train, y_train)
score = model.predict_proba(X_test)[:, 1]
pos, neg = np.flatnonzero(y_test == 1), np.flatnonzero(y_test == 0)
rows = []
for prevalence in (0.1, 0.2, 0.3, 0.4, 0.5):
    n_neg = neg.size if prevalence < pos.size / (pos.size + neg.size) else int(pos.size * (1 - prevalence) / prevalence)
    n_pos = int(round(n_neg * prevalence / (1 - prevalence)))
    idx = np.concatenate([rng.choice(pos, n_pos, replace=False), rng.choice(neg, n_neg, replace=False)])
    yt, st = y_test[idx], score[idx]
    cm = bc.ConfusionMatrix.from_predictions(yt, (st >= 0.5).astype(int))
    f1 = cm.metric("f1")
    ap = bc.average_precision(yt, st)
    rows.append({
        "prevalence": yt.mean(), "f1": f1, "ops_f1": float(bc.outperformance_score("f1", f1, prevalence=yt.mean())),
        "average precision": ap,
        "ops_average_precision": float(bc.outperformance_score("pr_auc", ap, prevalence=yt.mean())),
        "pure accuracy": cm.metric("pure_accuracy"),
    })
for r in rows:
    print("  ".join(f"{k} {v:.3f}" for k, v in r.items()))

# %%
# Average precision rises steeply with the prevalence although the model is the same; its
# outperformance score moves far less. The same holds for F1 only in part: OPS(F1) keeps a
# dependence on the prevalence of its own (the reference classifiers are uniform in the
# error rates), which is why a drop of OPS(F1) between test sets of different prevalence
# is not by itself a degradation.

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6), sharex=True)
p = [r["prevalence"] for r in rows]
left.plot(p, [r["average precision"] for r in rows], "o-", label="average precision")
left.plot(p, [r["ops_average_precision"] for r in rows], "s-", label="its OPS")
right.plot(p, [r["f1"] for r in rows], "o-", label="F1 at 0.5")
right.plot(p, [r["ops_f1"] for r in rows], "s-", label="its OPS")
for ax in (left, right):
    ax.set_xlabel("prevalence of the test set")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
left.set_title("one model, five test sets")
fig.tight_layout()

# %%
# What the constant answer scores on the OPS scale depends on the metric: always
# predicting "bad" has F1 :math:`2\pi/(1+\pi)`, whose OPS is :math:`(1+\pi)/2` — above one
# half — and always predicting "good" has accuracy :math:`1-\pi` with an OPS near 1 at low
# prevalence:

for prevalence in (0.1, 0.3):
    f1_constant = 2 * prevalence / (1 + prevalence)
    print(f"prevalence {prevalence}: OPS(F1 of 'always bad') = "
          f"{float(bc.outperformance_score('f1', f1_constant, prevalence=prevalence)):.3f}, "
          f"OPS(accuracy of 'always good') = "
          f"{float(bc.outperformance_score('accuracy', 1 - prevalence, prevalence=prevalence)):.3f}")

# %%
# **Removed:** the prevalence, for prevalence-free metrics and curve points. **Left:** an
# OPS is a percentile among *random* classifiers, not a test against the trivial one.
#
# Which number, then?
# -------------------
#
# * Is the model better than the trivial answer at all? The **prediction advantage** (with
#   its interval): 0 is the best constant, for any loss.
# * How much of its agreement is chance? **Pure accuracy** (:math:`\kappa`).
# * Would we say the same on a test set with another class balance? The **outperformance
#   score** of a prevalence-free metric or curve point, read beside the other two.
#
# :func:`beyondchance.evaluate` reports all of them for every metric, with intervals and a
# verdict; ``beyondchance report FILE`` does the same from the command line.
