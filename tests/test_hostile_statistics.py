"""Hostile statistics files (issue 41, item 4): a file cannot lie, and cannot exhaust the machine.

A forged file — the checksum recomputed, as anyone can — whose bootstrap sums disagree with its
confusion matrix, counts or loss sums is refused naming ``totals``; arrays whose declared
shapes and dtypes ask for more memory than the file's size justifies, more JSON values than a
statistics file holds, duplicate keys, FIFOs and devices are one line before anything is
allocated or waited on; a BOM is read; ``profile`` and ``save`` refuse what the reader would
refuse, before building or writing it; ``sum()`` merges statistics; statistics on standard
input are one line naming the path to give.

The tests of exhaustion run the reader in a subprocess under ``RLIMIT_AS`` (1.5 GiB) and a
timeout, so that the code before the fix fails them (MemoryError, a hang) without exhausting
this machine; every test runs in seconds."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from test_statistics_file import _case, _data

import beyondchance as bc
from beyondchance.cli import main
from beyondchance.statistics import file_format as statistics_file
from beyondchance.statistics.file_format import _canonical, _decode, _encode

pytestmark = pytest.mark.hostile

#: the address space of a subprocess that reads a hostile file (importing the package takes ~350 MB)
MEMORY_LIMIT = 3 << 29
TIMEOUT = 60
#: the subprocess: read (or profile) and print "refused: <message>" for an InvalidInputError;
#: anything else is its traceback and exit status 1
RUNNER = textwrap.dedent("""
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
    import numpy as np
    import beyondchance as bc
    try:
        {action}
    except bc.InvalidInputError as exc:
        print("refused:", exc)
    else:
        print("accepted")
""")


def _bounded(action: str) -> str:
    """The output line of ``action`` run in a subprocess limited to MEMORY_LIMIT bytes and
    TIMEOUT seconds (its failure, a hang or a MemoryError, fails the test)."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    try:
        done = subprocess.run([sys.executable, "-c", RUNNER.format(limit=MEMORY_LIMIT, action=action)],
                              capture_output=True, text=True, timeout=TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"no answer in {TIMEOUT} s: {action}")
    assert done.returncode == 0, done.stderr[-800:]
    return done.stdout.strip()


def _document(case: str, ci: bool = True) -> dict:
    """The saved file of ``case`` (80 rows) as its JSON document."""
    with tempfile.TemporaryDirectory() as directory:
        path = bc.profile(**_case(case, _data(0, 80)), random_state=7, ci=ci).save(Path(directory) / "s.bcstats")
        return json.loads(path.read_text())


def _sealed(doc: dict, path) -> str:
    """``doc`` written to ``path`` with its checksum recomputed (as anyone can)."""
    doc = dict(doc)
    doc.pop("sha256", None)
    doc["sha256"] = hashlib.sha256(_canonical(doc)).hexdigest()
    path.write_text(json.dumps(doc))
    return str(path)


def _refused(path, *words: str) -> str:
    with pytest.raises(bc.InvalidInputError) as info:
        bc.read_statistics(path)
    text = str(info.value)
    assert "\n" not in text
    for word in words:
        assert word in text, (word, text)
    return text


# =====================================================================================
# bootstrap sums that disagree with what they add up to
# =====================================================================================


def _totals_edit(edit):
    def forge(fields):
        spec = fields["totals"]["fields"]
        t = _decode(spec["totals"], {})
        spec["totals"] = _encode(edit(np.array(t), spec), "")
    return forge


def _all_on_the_diagonal(t, spec):
    """Every row's weight moved to its correct cell: accuracy 1 in every replicate."""
    k = int(round(t.shape[1] ** 0.5))
    cells = t.reshape(-1, k, k)
    out = np.zeros_like(cells)
    out[:, np.arange(k), np.arange(k)] = cells.sum(axis=2)
    return out.reshape(t.shape)


def _cells_on_the_diagonal(t, spec):
    """Class probabilities' sums: the class weights and losses kept, the cells on the diagonal."""
    return np.hstack([t[:, :5], _all_on_the_diagonal(t[:, 5:], spec)])


def _one_group_doubled(t, spec):
    """The sums of the first group that holds rows, doubled."""
    t[np.flatnonzero(np.abs(t).sum(axis=1))[0]] *= 2
    return t


LYING_SUMS = [
    ("multiclass labels weighted", _all_on_the_diagonal, "stats (the confusion matrix)"),
    ("multiclass labels weighted", lambda t, spec: np.zeros_like(t), "stats"),
    ("binary scores weighted", _all_on_the_diagonal, "score counts"),
    ("probabilities", _one_group_doubled, "stats.label_counts"),
    ("probabilities", _cells_on_the_diagonal, "stats.confusion"),
    ("regression weighted", _one_group_doubled, "stats.moments"),
]


@pytest.mark.parametrize("case, edit, named", LYING_SUMS,
                         ids=["labels: all on the diagonal", "labels: all zero (an empty interval)",
                              "weighted scores: all on the diagonal", "probabilities: a group doubled",
                              "probabilities: cells on the diagonal", "regression: a group doubled"])
def test_bootstrap_sums_that_disagree_with_their_source_are_refused(case, edit, named, tmp_path):
    doc = _document(case)
    _totals_edit(edit)(doc["statistics"]["fields"])
    _refused(_sealed(doc, tmp_path / "lie.bcstats"), "totals (the bootstrap's sums)", named)


def test_bootstrap_sums_below_zero_that_add_up_are_refused(tmp_path):
    """A group's cell of −5 and another's 5 more: the sums still add up to the matrix."""
    def edit(t, spec):
        moved = t[0, 0] + 5
        t[0, 0] -= moved  # -5
        t[1, 0] += moved  # the column's sum kept
        return t

    doc = _document("multiclass labels weighted")
    _totals_edit(edit)(doc["statistics"]["fields"])
    _refused(_sealed(doc, tmp_path / "negative.bcstats"), "below zero")


def test_genuine_sums_of_real_weights_are_read(tmp_path):
    """Sums of real weights add up to their source only to rounding: read."""
    d = _data(0, 500)
    w = np.random.default_rng(1).random(500) * 3.3
    for case in ("multiclass labels weighted", "probabilities", "regression weighted", "binary scores weighted"):
        options = {**_case(case, d), "sample_weight": w}
        path = bc.profile(**options, random_state=7).save(tmp_path / "real.bcstats")
        assert bc.read_statistics(path).n_rows == 500


# =====================================================================================
# forged sizes: refused before any allocation
# =====================================================================================


def test_labels_declaring_gigabytes_are_refused_before_allocation(tmp_path):
    """3,000 labels of dtype U1048576 in a file of some 40 KB ask for 11.7 GiB."""
    doc = _document("binary text labels", ci=False)
    fields = doc["statistics"]["fields"]
    fields["true_classes"] = {"$array": {"dtype": "U1048576", "shape": [3000], "items": ["no"] * 3000}}
    path = _sealed(doc, tmp_path / "wide.bcstats")
    assert os.path.getsize(path) < 60_000
    out = _bounded(f"bc.read_statistics({path!r})")
    assert out.startswith("refused:") and "arrays declaring" in out, out


@pytest.mark.parametrize("spec, named", [
    ({"dtype": "float64", "shape": [2**63, 0], "data": ""}, "shape"),
    ({"dtype": "float64", "shape": [2**31, 2**31, 0], "data": ""}, "shape"),
    ({"dtype": "U\u0663", "shape": [2], "items": ["no", "ye"]}, "dtype"),
    ({"dtype": "U\uff15", "shape": [2], "items": ["no", "ye"]}, "dtype"),
], ids=["2**63 x 0", "2**31 x 2**31 x 0", "U with an Arabic-Indic digit", "U with a full-width digit"])
def test_shapes_and_dtypes_no_writer_makes_are_one_line(spec, named, tmp_path):
    doc = _document("binary text labels", ci=False)
    doc["statistics"]["fields"]["true_classes"] = {"$array": spec}
    _refused(_sealed(doc, tmp_path / "shape.bcstats"), "a corrupted statistics file", named)


def test_a_million_values_in_the_metadata_are_refused_before_parsing(tmp_path, monkeypatch):
    """100 MiB of ``[]`` took 67 s and 4.9 GB; here 2.1 million (6 MB), refused before json.loads."""
    doc = _document("binary scores", ci=False)
    doc["metadata"]["note"] = [[] for _ in range(getattr(statistics_file, "MAX_VALUES", 2_000_000) + 100_000)]
    path = _sealed(doc, tmp_path / "values.bcstats")

    def no_parse(*args, **kwargs):
        raise AssertionError("the file was parsed")

    monkeypatch.setattr(statistics_file.json, "loads", no_parse)
    _refused(path, "JSON values")


def test_n_rows_beyond_the_bound_is_refused(tmp_path):
    """n_rows 10^13 in a 1 KB file (the matrix, counts0 and n_rows consistent): the exact tests of
    the report held laws of 1.3e8 points (7 GB, then exit 3)."""
    doc = _document("binary labels", ci=False)
    fields = doc["statistics"]["fields"]
    n = 10**13
    m = _decode(fields["stats"]["fields"]["matrix"], {}).astype(np.float64)
    m = m * (n // 80)
    m[0, 0] += n - m.sum()
    fields["stats"]["fields"]["matrix"] = _encode(m, "")
    fields["counts0"] = _encode(m.sum(axis=1), "")
    fields["n_rows"] = n
    path = _sealed(doc, tmp_path / "rows.bcstats")
    assert os.path.getsize(path) < 4000
    _refused(path, "n_rows")


# =====================================================================================
# the JSON: duplicate keys, a BOM
# =====================================================================================


def test_duplicate_keys_are_refused(tmp_path):
    """``"weighted": true, "weighted": false``: the last one won, the checksum over it."""
    doc = _document("binary labels", ci=False)
    doc.pop("sha256", None)
    doc["sha256"] = hashlib.sha256(_canonical(doc)).hexdigest()
    text = json.dumps(doc).replace('"weighted": false', '"weighted": true, "weighted": false', 1)
    path = tmp_path / "twice.bcstats"
    path.write_text(text)
    _refused(path, "given twice")


def test_a_bom_is_read(tmp_path):
    st = bc.profile(**_case("binary scores", _data(0, 80)), ci=False)
    path = st.save(tmp_path / "plain.bcstats")
    with_bom = tmp_path / "bom.bcstats"
    with_bom.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert bc.read_statistics(with_bom).stats.tps.tolist() == st.stats.tps.tolist()


# =====================================================================================
# not a regular file
# =====================================================================================


def test_a_fifo_is_refused_without_waiting(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no mkfifo on this platform")
    fifo = tmp_path / "ref.bcstats"
    os.mkfifo(fifo)
    out = _bounded(f"bc.read_statistics({str(fifo)!r})")
    assert out.startswith("refused:") and "pipe" in out, out


def test_a_device_is_refused_without_reading_it():
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    out = _bounded("bc.read_statistics('/dev/zero')")
    assert out.startswith("refused:") and "device" in out, out


# =====================================================================================
# the writer: the reader's size rule, before writing (and before building)
# =====================================================================================


def test_profile_refuses_sums_no_file_may_hold_before_building_them():
    """400 weighted classes, 4,000 rows: 1,024 groups × 160,000 cells, a 1.75 GB file that the
    reader refuses (8.3 GB at the peak); refused in one line naming --no-ci."""
    action = ("rng = np.random.default_rng(0); y = rng.integers(0, 400, 4000); f = rng.integers(0, 400, 4000); "
              "bc.profile(y, y_pred=f, sample_weight=rng.random(4000) + 0.5, labels=np.arange(400))")
    out = _bounded(action)
    assert out.startswith("refused:") and "--no-ci" in out and "160,000 cells" in out, out


def test_save_refuses_what_the_reader_would_refuse_before_writing(tmp_path, monkeypatch):
    """The same rule on both sides: with a statistics file limited to 100 KB, the sums of 30
    weighted classes (7 MB) are refused by save, naming them and ci=False; nothing written."""
    rng = np.random.default_rng(0)
    st = bc.profile(rng.integers(0, 30, 500), y_pred=rng.integers(0, 30, 500), sample_weight=rng.random(500) + 0.5,
                    labels=np.arange(30))
    monkeypatch.setattr(statistics_file, "MAX_FILE_BYTES", 100_000)
    with pytest.raises(bc.InvalidInputError, match=r"totals.*ci=False") as info:
        st.save(tmp_path / "big.bcstats")
    assert "\n" not in str(info.value)
    assert not list(tmp_path.iterdir())


def test_save_refuses_more_rows_than_the_reader_reads(tmp_path):
    st = bc.profile(**_case("binary labels", _data(0, 80)), ci=False)
    st.n_rows = 10**13
    with pytest.raises(bc.InvalidInputError, match="rows"):
        st.save(tmp_path / "rows.bcstats")
    assert not list(tmp_path.iterdir())


# =====================================================================================
# sum() of statistics; statistics on standard input
# =====================================================================================


@pytest.mark.parametrize("part", [lambda st: st, lambda st: st.stats, lambda st: st.stats.confusion,
                                  lambda st: st.stats.label_counts, lambda st: st.stats.loss_sums],
                         ids=["TaskStatistics", "SufficientStatistics", "ConfusionMatrix", "LabelCounts", "LossSums"])
def test_sum_of_statistics_merges_them(part):
    a = bc.profile(**_case("probabilities", _data(0, 60)), ci=False)
    b = bc.profile(**_case("probabilities", _data(1, 60)), ci=False)
    types = {**statistics_file.TYPES, "TaskStatistics": type(a)}
    assert _encode(sum([part(a), part(b)]), "", types) == _encode(part(a) + part(b), "", types)


def test_statistics_on_standard_input_name_the_path_to_give(tmp_path):
    path = bc.profile(**_case("binary scores", _data(0, 80)), ci=False).save(tmp_path / "ref.bcstats")
    result = CliRunner().invoke(main, ["report", "-"], input=path.read_bytes())
    assert result.exit_code == 2, result.output
    err = result.stderr.strip()
    assert err.startswith("beyondchance: error:") and "\n" not in err, err
    assert "a statistics file is read from its path, not from standard input" in err, err
