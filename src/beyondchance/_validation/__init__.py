"""The one place where inputs are checked and coerced.

Every public function calls the helpers below; nothing else re-checks lengths,
weights or label sets.  Each helper raises :class:`InvalidInputError` with a
message that names the offending argument, so that the command line can print it
as one line.

The rules for labels:

* missing values are refused, naming the first one and its row: None, NaN, pandas
  ``NA`` and ``NaT``, blank strings, and the strings ``pandas.read_csv`` reads as
  missing (:data:`MISSING_STRINGS`: ``"NA"``, ``"N/A"``, ``"null"``, ``"NaN"`` …);
* a number that is not whole (a score such as 0.731, a real-valued target) is not a label:
  refused, naming the argument and its row (:func:`continuous_label`, scikit-learn's
  "continuous" targets); whole numbers as floats (0.0, 1.0) are labels;
* one array may not mix strings and numbers (``"1"`` and ``1`` are different labels
  to numpy, the same to a reader), nor may ``y_true`` and ``y_pred``;
* integer labels compare exactly whatever their dtypes (numpy would compare uint64
  with int64 as float64); integers beyond 2**53 are refused where real values are
  expected, as float64 cannot hold them.

Sample weights: finite, non-negative, with a positive total of at most
:data:`MAX_WEIGHT_TOTAL`.

What the door reads (:func:`as_array` and what reads through it): arrays, lists, tuples, the
columns and tables of every dataframe library narwhals knows (pandas, polars, pyarrow, modin,
cuDF …; a lazy frame is collected) or that speaks Arrow's PyCapsule interface (:mod:`.frames`);
a one-column table where one value per row is expected (more columns refused).  Refused: masked elements of a ``numpy.ma.MaskedArray`` (counted; no
row is skipped: ``.compressed()`` the rows, or ``.filled(value)``); iterators and generators,
not materialised, as a function may read an input twice and a one-shot iterator is then empty
(pass ``list(x)``); sets, mappings, dictionary views; datetime, timedelta and
``decimal.Decimal`` values; pandas-like objects given together with different indexes
(:func:`check_aligned`: rows are paired by position).  Class probabilities are matched to the
classes by the names of their columns, else by ``labels``, else (an array) in the sorted classes'
order, else refused (:func:`class_column_order`, the one rule of every door).
"""

from .arrays import (  # noqa: F401 (the door re-exports every helper)
    MAX_WEIGHT_TOTAL,
    _EXACT_INTEGERS,
    _REFUSED_KINDS,
    _check_value_types,
    _check_types_of,
    _readable,
    _to_array,
    as_array,
    as_1d,
    as_float,
    as_float_1d,
    as_float_2d,
    is_score_matrix,
    check_aligned,
    check_consistent_length,
    check_sample_weight,
    MISSING_STRINGS,
    _value_kind,
    _isna,
    _value_kinds,
    _where,
    _of_kind,
    _check_missing,
    check_probabilities,
    missing_values,
    non_finite_value,
)
from .frames import (  # noqa: F401 (the door re-exports every helper)
    as_narwhals,
    frame_names,
    column_at,
    default_names,
    text_values,
    column_values,
    index_of,
    is_lazy,
)
from .labels import (  # noqa: F401 (the door re-exports every helper)
    InexactLabelError,
    infinite_label,
    inexact_label,
    continuous_label,
    _INT_FAST_SPAN,
    _check_label_values,
    _fractional,
    check_label_pair,
    _check_label_arrays,
    encode_labels,
    encode_label_arrays,
    _encode,
    _encode_by_hashing,
    _encode_small_integers,
    _label_dtype,
    union_labels,
    binary_target,
    default_pos_label,
    class_column_order,
    score_column_names,
    in_class_order,
)
from .options import (  # noqa: F401 (the door re-exports every helper)
    MAX_CLASSES,
    MAX_RESAMPLES,
    MAX_MC_SAMPLES,
    check_unit_interval,
    check_prevalence,
    check_rate_curves,
    as_samples,
    check_confidence_level,
    check_positive_int,
    check_n_classes,
    check_mc_samples,
    check_resample_cap,
    check_n_resamples,
    check_option,
    check_random_state,
    check_frequency_weights,
    merge_from_zero,
    check_quantile_option,
)

__all__ = [
    "as_array",
    "as_1d",
    "check_aligned",
    "class_column_order",
    "in_class_order",
    "is_score_matrix",
    "as_float_1d",
    "check_consistent_length",
    "check_sample_weight",
    "check_label_pair",
    "encode_labels",
    "check_probabilities",
    "missing_values",
    "non_finite_value",
    "check_unit_interval",
    "check_prevalence",
    "check_rate_curves",
    "binary_target",
    "default_pos_label",
    "as_samples",
    "check_positive_int",
    "check_n_resamples",
    "check_n_classes",
    "check_mc_samples",
    "check_option",
    "check_random_state",
    "check_frequency_weights",
    "merge_from_zero",
    "check_quantile_option",
    "union_labels",
    "InexactLabelError",
    "infinite_label",
    "inexact_label",
    "continuous_label",
]
