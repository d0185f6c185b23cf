"""The bundled scored example: a real credit-default model monitored over six months.

Data: ISLR's ``Default`` (10,000 credit-card customers, 3.33% default; bundled as
``islr_default``).  A logistic regression on balance, income and student status is
trained on a stratified half; the other half is the pool from which six monthly test
sets of 1,000 customers are drawn **class-wise** (positives and negatives sampled
separately, with replacement where a month needs more positives than the pool holds)
at prevalences rising from 3% to 30% — a population drift that leaves the model's
error rates unchanged.  In one month (2024-05) the model really degrades: the
``balance`` feature arrives with multiplicative measurement noise (log-normal,
σ = 0.6) before scoring.

Nominal precision rises month after month with the prevalence; its outperformance
score stays put except in 2024-05, where nominal precision still looks better than in
January.  Everything is generated reproducibly from the bundled CSV (no large files
are shipped):

>>> frame = credit_default_example()
>>> frame.groupby("month")["default"].apply(lambda s: (s == "Yes").mean()).round(2).tolist()
[0.03, 0.05, 0.1, 0.2, 0.2, 0.3]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .._json import write_atomic

__all__ = ["MONTHS", "credit_default_example", "scored_holdout", "write_example"]

#: month -> (prevalence, degraded)
MONTHS: dict[str, tuple[float, bool]] = {
    "2024-01": (0.03, False),
    "2024-02": (0.05, False),
    "2024-03": (0.10, False),
    "2024-04": (0.20, False),
    "2024-05": (0.20, True),
    "2024-06": (0.30, False),
}
MONTH_SIZE = 1000
NOISE_SIGMA = 0.6


def _model_and_pool(seed: int):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from ..datasets import load_r

    data = load_r("islr_default")
    idx = np.arange(data.y.size)
    train, pool = train_test_split(idx, test_size=0.5, stratify=data.y, random_state=seed)
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(data.X[train], data.y[train])
    return data, model, pool


def scored_holdout(*, random_state: int = 0) -> pd.DataFrame:
    """The model's scores on the whole held-out half (5,000 customers, 3.3% default).

    >>> h = scored_holdout()
    >>> len(h), round(float((h["default"] == "Yes").mean()), 3)
    (5000, 0.033)
    """
    data, model, pool = _model_and_pool(random_state)
    return pd.DataFrame({
        "customer": pool,
        "student": data.frame["student"].to_numpy()[pool],
        "default": data.frame["default"].to_numpy()[pool],
        "score": np.round(model.predict_proba(data.X[pool])[:, 1], 6),
    })


def credit_default_example(*, random_state: int = 0) -> pd.DataFrame:
    """Six monthly test sets with the model's scores (one frame with a ``month`` column).

    Columns: ``month``, ``customer`` (row of the ISLR data), ``student``, ``default``
    (``"Yes"``/``"No"``, the truth) and ``score`` (the model's probability of default).
    """
    data, model, pool = _model_and_pool(random_state)
    rng = np.random.default_rng(random_state)
    frame = data.frame
    balance = data.feature_names.index("balance")
    parts = []
    pos_pool = pool[data.y[pool] == 1]
    neg_pool = pool[data.y[pool] == 0]
    for month, (prevalence, degraded) in MONTHS.items():
        n_pos = int(round(MONTH_SIZE * prevalence))
        n_neg = MONTH_SIZE - n_pos
        rows = np.concatenate([
            rng.choice(pos_pool, n_pos, replace=n_pos > pos_pool.size),
            rng.choice(neg_pool, n_neg, replace=n_neg > neg_pool.size),
        ])
        X = data.X[rows].copy()
        if degraded:
            X[:, balance] *= rng.lognormal(0.0, NOISE_SIGMA, rows.size)
        score = model.predict_proba(X)[:, 1]
        parts.append(pd.DataFrame({
            "month": month,
            "customer": rows,
            "student": frame["student"].to_numpy()[rows],
            "default": frame["default"].to_numpy()[rows],
            "score": np.round(score, 6),
        }))
    return pd.concat(parts, ignore_index=True)


def write_example(directory: str | Path, *, random_state: int = 0) -> dict[str, Path]:
    """Write the example as ``credit_default_monthly.csv`` (all months, a ``month``
    column) and one ``credit_default_<month>.csv`` per month; return the paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    frame = credit_default_example(random_state=random_state)
    paths = {"all": directory / "credit_default_monthly.csv"}
    write_atomic(paths["all"], frame.to_csv(index=False).encode("utf-8"))
    for month, part in frame.groupby("month", sort=True):
        p = directory / f"credit_default_{month}.csv"
        write_atomic(p, part.drop(columns="month").to_csv(index=False).encode("utf-8"))
        paths[str(month)] = p
    return paths
