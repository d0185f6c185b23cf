"""The ``beyondchance`` command line: a thin layer over the library.

Every command parses its arguments, calls the library — ``evaluate`` / ``compare`` /
``profile`` with ``data=FILE`` on ``--engine`` (the engine reads the file, glob pattern or
stdin), ``compare_models``, the demo — and renders; it reads no file and types no label itself.  Bad input — a missing file or column, a non-numeric score column, an
unreadable Parquet file, and every case of SPEC §6 — is answered with one line
``beyondchance: error: ...`` on stderr and exit status 2, never a traceback.  Input
files are only read.

Exit status, on every command (``EXIT_STATUS`` of :mod:`beyondchance._cli_exit`): 0 success; 1 a requirement of a gate
(``check``) failed, and nothing else; 2 bad input (the arguments, a file, a column, a value)
or a file that cannot be read or written; 3 an internal error (any other exception: one line
``beyondchance: error: internal error (...)``, the traceback with ``BEYONDCHANCE_DEBUG=1``);
130 interrupted (Ctrl-C).  A CI job can so tell a failed model (1) from a broken call (2)
and a broken tool (3).
"""

from __future__ import annotations

import functools
import json
import os
import warnings
from pathlib import Path
from typing import Any, Callable, Literal

from ._interrupt import exit_quietly_on_interrupt

exit_quietly_on_interrupt()  # a Ctrl-C before main()'s handler (the imports below): one line, status 130

import click

from ._cli_exit import EXIT_FAILED, EXIT_HELP, EXIT_OK, Group
from ._json import write_atomic
from ._summary_display import Progress as _Progress
from ._summary_display import printable
from ._validation import MAX_MC_SAMPLES, MAX_RESAMPLES
from ._warnings import BeyondChanceWarning, InvalidInputError
from .engines import ENGINES

__all__ = ["main"]


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             epilog=EXIT_HELP)
@click.version_option(package_name="beyondchance")
def main() -> None:
    """Is this predictor better than the trivial one, and by how much?

    \b
    Examples:
      beyondchance demo
      beyondchance report scores.parquet --y-true label --y-score score
      beyondchance compare jan.csv feb.csv mar.csv --y-true label --y-score score
      beyondchance compare monthly.csv --by month --y-true label --y-score score --format html --out drift.html
    """
    warnings.simplefilter("ignore", BeyondChanceWarning)  # shown as notes in the output instead
    warnings.simplefilter("ignore", RuntimeWarning)


# ======================================================================================
# shared options
# ======================================================================================


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    return items or None


class _EngineChoice(click.Choice):
    """``--engine``: the names of the registered engines (:func:`beyondchance.engines.engine_names`),
    read when the option is parsed or shown, so that an engine registered later is a choice."""

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        from .engines import engine_names

        return engine_names()

    @choices.setter
    def choices(self, value: Any) -> None:
        pass


#: the engine of the command line when --engine is not given: the first registered one
_DEFAULT_ENGINE = ENGINES[0]


def _evaluation_options(func: Callable[..., Any], skip: tuple[str, ...] = ()) -> Callable[..., Any]:
    """The options of the commands that read rows (``skip``: the names of those a command has not)."""
    options = [
        click.option("--y-true", "y_true", metavar="COL",
                     help="Column of the true labels (or targets); not with a statistics file."),
        click.option("--y-score", "y_score", multiple=True, metavar="COL",
                     help="Column of scores (binary). Repeat it for class-probability columns, one per class, "
                          "in the order of --labels (default: the sorted classes)."),
        click.option("--y-pred", "y_pred", metavar="COL",
                     help="Column of predicted labels (or real predictions). With one --y-score (report): the "
                          "labeling metrics come from these labels, the curves, AUCs and losses from the scores."),
        click.option("--weight", metavar="COL", help="Column of non-negative sample weights."),
        click.option("--pos-label", metavar="LABEL",
                     help="Positive class of a binary task [default: 1 for 0/1 labels, else the minority class]."),
        click.option("--threshold", type=float, metavar="T",
                     help="Binary scores: score >= T is predicted positive [default: 0.5 for scores in [0, 1], else 0, "
                          "which the report notes]; the report states the threshold and why. Not with --y-pred."),
        click.option("--quantile", type=float, metavar="TAU",
                     help="Regression: the level of the quantile the predictions estimate (a quantile model's "
                          "alpha); adds the pinball loss of level TAU and its D² against the TAU-quantile of y."),
        click.option("--task", type=click.Choice(["binary-scores", "binary-labels", "multiclass-labels",
                                                  "multiclass-probabilities", "regression"]),
                     help="Override the detected task."),
        click.option("--labels", metavar="A,B,...", help="Class labels of the probability columns, in order."),
        click.option("--metrics", metavar="M1,M2,...", help="Report only these metrics."),
        click.option("--format", "fmt", type=click.Choice(["table", "json", "html"]), default="table",
                     show_default=True, help="Output format."),
        click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
                     help="Write the output to this file (html default: beyondchance-report.html)."),
        click.option("--confidence-level", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
                     show_default=True, help="Level of the bootstrap confidence intervals."),
        click.option("--n-resamples", type=click.IntRange(min=1, max=MAX_RESAMPLES), default=2000, show_default=True,
                     help="Bootstrap resamples."),
        click.option("--no-ci", is_flag=True, help="Skip the confidence intervals."),
        click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap."),
        click.option("--normalize", is_flag=True,
                     help="Refused: the probability columns of a file are read as they are (rescale rows that "
                          "do not sum to 1 in Python: evaluate(..., normalize=True))."),
        click.option("--mc-samples", type=click.IntRange(min=64, max=MAX_MC_SAMPLES), default=None, metavar="G",
                     help="Size of the Monte Carlo reference of the OPS: random Directed-Binary-Tree curves "
                          "for the OPS of the AUCs; standard "
                          "error <= 0.5/sqrt(G). Default: the shipped reference of 114,688 curves (the "
                          "OPS(lift) curve too); another G is drawn on first use, then cached."),
        click.option("--engine", type=_EngineChoice(), default=_DEFAULT_ENGINE,
                     show_default=True,
                     help="Where the statistics are computed. memory: numpy on the columns read with pyarrow; "
                          "duckdb: SQL aggregation over the file(s) (glob patterns allowed; a file that exists is "
                          "read as itself even with [ ] in its name); spark: the same in a Spark session. The "
                          "rows are loaded into Python only for the p-values that permute them (weighted data, "
                          "class probabilities, MAE and pinball rows), and only when they fit the permutation "
                          "test's budget (rows x draws <= 5e7): then the p-values equal memory's with the same "
                          "--seed. Every engine reads CSV alike (RFC 4180 quotes, types from "
                          "every row, see --delimiter) and gives memory's report, or memory's one-line refusal (scores "
                          "beyond 2^53 are scores, not labels; Decimal128 columns are read as float64; an infinite "
                          "label, or one beyond 2^53, is refused naming its row). duckdb never downloads "
                          "extensions: remote paths (s3://, https://) need the library with a DuckDB connection "
                          "of your own (compute_statistics(connection=...)), or --engine spark."),
        click.option("--score-bins", type=click.IntRange(min=1), metavar="N",
                     help="Binary scores and class probabilities: bin them into floor(score * N) instead of "
                          "keeping every distinct score; the AUC error bound is stated in the output. Exact statistics hold one row per "
                          "distinct score in memory whatever the engine (about 200 bytes each: 5 million distinct "
                          "scores need about 1 GB); above about 10^6 distinct scores pass --score-bins 10000 "
                          "(fixed size, |AUC error| stated)."),
        click.option("--delimiter", metavar="CHAR",
                     help="CSV field delimiter, e.g. ';' or '\\t' [default: tab for .tsv files, else ',']."),
        click.option("--spark-master", default="local[*]", show_default=True, metavar="URL",
                     help="Master of the Spark session of --engine spark."),
    ]
    before = len(getattr(func, "__click_params__", ()))
    for option in reversed(options):
        func = option(func)
    params = func.__click_params__  # type: ignore[attr-defined]
    params[before:] = [p for p in params[before:] if p.name not in skip]
    return func


def _needs_y_true(opts: dict[str, Any], file: str) -> None:
    """--y-true is given, or FILE is named in the one line that says why it cannot be read
    (:func:`_not_readable`), else --y-true is missing: only a statistics file goes without it."""
    if opts["y_true"]:
        return
    problem = _not_readable(file, opts["engine"])
    if problem is not None:
        raise InvalidInputError(problem)
    raise InvalidInputError(f"missing option --y-true (the column of the true labels of {file}); it is "
                            "optional only for a statistics file")


def _not_readable(file: str, engine: str) -> str | None:
    """Why FILE is neither rows nor a statistics file, in one line, or None: no file there (a
    typo, a broken link), standard input (never a statistics file), a directory the engine
    does not read, a pipe or device the engine does not read (the memory engine reads one as
    CSV rows: then --y-true is what is missing)."""
    from .engines import get_runner
    from .engines.files import file_not_found, is_glob, non_regular_kind

    if file == "-":  # never peeked at: rows on a pipe are read once
        return ("missing option --y-true (the column of the true labels of the rows on standard input); a "
                "statistics file is read from its path, not from standard input: beyondchance report ref.bcstats")
    if is_glob(file):
        return None
    if not os.path.exists(file):
        return file_not_found(file)
    runner = get_runner(engine)
    if os.path.isdir(file) and not runner.reads_directories:
        return f"{file} is a directory, not a CSV or Parquet file (nor a statistics file)"
    kind = non_regular_kind(file)
    if kind is not None and runner.reads_files:
        return f"{file} is not a regular file ({kind}); use --engine memory or write it to a file"
    if kind is not None:
        return (f"missing option --y-true (the column of the true labels of {file}, {kind}: read as CSV rows; "
                "a statistics file is read from a regular file)")
    return None


def _statistics_file(file: str, opts: dict[str, Any]) -> Any:
    """The statistics kept in ``file`` (``beyondchance profile``), or None when it is not a statistics
    file; the options that say what the rows are were fixed when it was profiled."""
    from .statistics.file_format import is_statistics_file
    from .statistics.task_statistics import read_statistics

    if not is_statistics_file(file):
        return None
    given = [f"--{k.replace('_', '-')}" for k in ("y_true", "y_score", "y_pred", "weight", "task", "labels", "quantile",
                                                  "score_bins", "normalize") if opts.get(k)]
    if given:
        raise InvalidInputError(f"{file} is a statistics file: its columns and task were fixed when it was profiled "
                                f"(drop {', '.join(given)})")
    return read_statistics(file)


def _prediction_columns(opts: dict[str, Any], by: str | None = None) -> tuple[list[str], list[str]]:
    """(prediction columns, of which must be numeric); one column in two roles checked."""
    from .engines.spec import check_column_roles

    y_score, y_pred = opts["y_score"], opts["y_pred"]
    check_column_roles(y_true=opts["y_true"], y_score=y_score, y_pred=y_pred, weight=opts["weight"], by=by, names="cli")
    if not y_score and not y_pred:
        raise InvalidInputError("give --y-score COL (scores or probability columns) or --y-pred COL")
    if y_score and y_pred:  # curves from the scores, labeling metrics from the labels (report only)
        if len(y_score) != 1:
            raise InvalidInputError("--y-pred goes with one --y-score column (binary scores), got "
                                    f"{len(y_score)} score columns")
        return [*y_score, y_pred], list(y_score)
    if y_score:
        return list(y_score), list(y_score)
    return [y_pred], []


def _check_out(out: Path | None, inputs: list[str]) -> None:
    """--out must be in an existing directory and must not be an input (by name, link or glob)."""
    if out is None:
        return
    if not out.parent.is_dir():
        raise InvalidInputError(f"--out {out}: the directory {out.parent} does not exist")
    from .engines.files import input_of

    src = input_of(out, inputs)  # the same (device, inode): also hard and symbolic links
    if src is not None:
        raise InvalidInputError(f"--out {out} is an input file ({src}); input files are never overwritten")


def _write(text: str, out: Path | None, what: str) -> None:
    if out is None:
        click.echo(text, nl=not text.endswith("\n"))
        return
    write_atomic(out, text)  # whole or not at all: a kill or a full disk leaves the old file
    click.echo(f"{what} written to {printable(out)}", err=True)


def _report_kwargs(opts: dict[str, Any]) -> dict[str, Any]:
    """The options of a report that statistics leave open (the others say what the rows are)."""
    return dict(metrics=_split(opts["metrics"]), confidence_level=opts["confidence_level"],
                n_resamples=opts["n_resamples"], ci=not opts["no_ci"], random_state=opts["seed"],
                mc_samples=opts["mc_samples"])


def _engine_source(file: str, engine: str) -> str:
    """FILE for the engine, checked: a file that exists is that file, even with ``[ ]`` in its
    name (the engines read it literally); a glob pattern is the engine's to expand; standard input
    (``-``) and pipes only for an engine that reads them once into memory (``reads_files`` False)."""
    from .engines import get_runner
    from .engines.files import file_not_found, is_glob, non_regular_kind

    runner = get_runner(engine)
    kind = None if file == "-" else non_regular_kind(file)
    if (file == "-" or kind is not None) and not runner.reads_files:
        return file
    if file == "-":
        raise InvalidInputError(f"--engine {engine} reads files, not stdin; use --engine memory for '-'")
    if kind is not None:  # a pipe or device: the engine would open it more than once, or never stop
        raise InvalidInputError(f"{file} is not a regular file ({kind}); use --engine memory or write it to a file")
    if not is_glob(file):
        path = Path(file)
        if not path.exists():
            raise InvalidInputError(file_not_found(file))
        if path.is_dir() and not runner.reads_directories:
            raise InvalidInputError(f"{file} is a directory; give a glob pattern such as {file}/*.parquet")
    return file


def _engine_kwargs(opts: dict[str, Any]) -> dict[str, Any]:
    """The options of :func:`beyondchance.report.evaluate` with ``data=`` from the command line, one
    for one (the --labels as text: the scan types them like y_true's column,
    :func:`~.engines.scan.typed_labels`)."""
    if opts["normalize"]:
        raise InvalidInputError("--normalize applies to class-probability arrays in Python (evaluate(..., "
                                "normalize=True)); the probability columns of a file are read as they are")
    return dict(
        y_true=opts["y_true"], y_score=tuple(opts["y_score"]), y_pred=opts["y_pred"], sample_weight=opts["weight"],
        score_bins=opts["score_bins"], task=opts["task"], pos_label=opts["pos_label"],
        threshold=opts["threshold"], quantile=opts["quantile"], labels=_split(opts["labels"]),
        delimiter=opts["delimiter"], **_report_kwargs(opts),
    )


def _evaluate_file(file: str, opts: dict[str, Any], progress: Any) -> Any:
    """The report of one FILE with the options of :func:`_evaluation_options`:
    ``evaluate(data=FILE, engine=--engine, ...)``, or of the statistics kept in FILE."""
    from .engines import get_runner
    from .report import evaluate

    name = "<stdin>" if file == "-" else Path(file).name
    kept = _statistics_file(file, opts)
    if kept is not None:  # the statistics of the rows, kept by `beyondchance profile`
        progress(f"reading {file}")
        return evaluate(kept, name=name, progress=progress, strict=True, pos_label=opts["pos_label"],
                        threshold=opts["threshold"], **_report_kwargs(opts))
    _needs_y_true(opts, file)
    _prediction_columns(opts)
    runner = get_runner(opts["engine"])
    return evaluate(data=_engine_source(file, runner.name), engine=runner.name, session=runner.session(opts),
                    name=name, progress=progress, strict=True, **_engine_kwargs(opts))


# ======================================================================================
# report
# ======================================================================================


@main.command()
@click.argument("file", metavar="FILE")
@_evaluation_options
@click.option("--details", is_flag=True,
              help="The full account in the table format: each metric's verdict with its bound and p-value, the "
                   "per-class table, the confusion matrix, the method and the notes (by default: the verdict and "
                   "one table, one screen).")
def report(file: str, details: bool = False, **opts: Any) -> None:
    """Evaluate predictions in a CSV or Parquet FILE (- for CSV on stdin) against the trivial predictor.

    For every metric: its value, the best constant prediction's value, the advantage over
    it (the prediction advantage), the outperformance score at this prevalence, a
    bootstrap confidence interval and a verdict. The task (binary scores or labels,
    multi-class labels or probabilities, regression) is detected and stated; --task
    overrides it. The table format fits one screen: the verdict and one table; --details
    adds each metric's verdict, the per-class table, the confusion matrix, the method
    and the notes.

    \b
    Examples:
      beyondchance report scores.parquet --y-true default --y-score score
      beyondchance report scores.parquet --y-true default --y-score score --details
      beyondchance report preds.csv --y-true y --y-pred y_hat --format json
      beyondchance report scored.csv --y-true y --y-score p --y-pred y_hat   # curves from p, labels from y_hat
      beyondchance report scored.csv --y-true y --y-score p --threshold 0.3
      beyondchance report probs.csv --y-true species --y-score p_a --y-score p_b --y-score p_c --labels a,b,c
      cat scores.csv | beyondchance report - --y-true label --y-score score --format html --out report.html
    """
    out = opts["out"]
    if opts["fmt"] == "html" and out is None:
        out = Path("beyondchance-report.html")
    _check_out(out, [file])
    with _Progress() as progress:
        result = _evaluate_file(file, opts, progress)
        if opts["fmt"] == "html":
            from .report.render.html import report_html

            text = report_html(result, progress=progress)
    if opts["fmt"] == "json":
        _write(json.dumps(result.to_dict(), indent=2, allow_nan=False), out, "JSON report")
    elif opts["fmt"] == "html":
        _write(text, out, "HTML report")
    else:
        from .report.render.terminal import render_report, render_report_text

        if out is None:
            render_report(result, details=details)
        else:
            _write(render_report_text(result, width=140, details=details), out, "report")


# ======================================================================================
# profile: the statistics of the rows, kept in a file
# ======================================================================================


@main.command()
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The statistics file to write (e.g. ref.bcstats); with --by, one per group, the group's value "
                   "before the suffix (ref.2024-05.bcstats).")
@click.option("--by", metavar="COL", help="One statistics file per value of this column (a day, a segment ...); at "
                                         "most 200 values, counted first.")
@click.option("--overwrite", is_flag=True,
              help="With --by: replace the files of the groups that exist (refused otherwise; an input file never).")
@click.option("--row-offset", type=click.IntRange(0, 2**62 - 1), default=0, show_default=True, metavar="N",
              help="Number the rows from N in the hash of the bootstrap's sums (the intervals of weighted data and "
                   "probabilities), so that these statistics merge with those of the rows before them: N = the "
                   "rows profiled before (the previous file's next_row_offset: its metadata.bootstrap.rows end).")
@functools.partial(_evaluation_options, skip=("metrics", "fmt", "out", "confidence_level", "n_resamples",
                                               "normalize", "mc_samples"))
def profile(files: tuple[str, ...], out: Path, by: str | None, overwrite: bool, row_offset: int, **opts: Any) -> None:
    """Keep the statistics of the rows of FILE(s) in a file (--out) for report, compare and check.

    The same statistics on every engine; their report is the rows' (within the stated AUC
    bound with --score-bins). Several FILEs are one table; --by: one file per group, each
    group's rows numbered after those of the groups before it, so that the files of all the
    groups merge (intervals included) to the statistics of the rows ordered by group. A
    group's file never replaces an input file, nor a file that exists without --overwrite;
    values other than letters, digits, '.', '-', '_' (and values equal but for case) get a
    short hash in the name.

    \b
    Examples:
      beyondchance profile scores.parquet --y-true label --y-score score --out ref.bcstats
      beyondchance profile log.parquet --by day --y-true label --y-score score --out day.bcstats
      beyondchance report ref.bcstats
      beyondchance compare ref.bcstats today.parquet --y-true label --y-score score
    """
    from .engines import get_runner
    from .engines.profile_files import save_profiles

    _needs_y_true(opts, files[0])
    pred_cols, numeric = _prediction_columns(opts, by)
    _check_out(out, list(files))
    if by is not None and len(files) != 1:
        raise InvalidInputError("--by splits one file; give exactly one FILE with --by")
    runner = get_runner(opts["engine"])
    kwargs = dict(y_true=opts["y_true"], y_score=tuple(opts["y_score"]), y_pred=opts["y_pred"],
                  sample_weight=opts["weight"], engine=runner.name, score_bins=opts["score_bins"],
                  session=runner.session(opts), task=opts["task"], pos_label=opts["pos_label"],
                  threshold=opts["threshold"], quantile=opts["quantile"], labels=_split(opts["labels"]),
                  ci=not opts["no_ci"], random_state=opts["seed"], row_offset=row_offset)
    weight = [opts["weight"]] if opts["weight"] else []
    with _Progress() as progress:
        save_profiles([_engine_source(f, runner.name) for f in files], out, by=by,
                      columns=[opts["y_true"], *pred_cols, *weight], numeric=[*numeric, *weight],
                      delimiter=opts["delimiter"], progress=progress, overwrite=overwrite,
                      written=lambda path: click.echo(f"statistics written to {printable(path)}", err=True), **kwargs)


# ======================================================================================
# compare
# ======================================================================================


@main.command()
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--by", metavar="COL", help="Split one file into test sets by this column (a month, a segment ...); "
                                         "at most 200 values, counted first.")
@click.option("--reference", metavar="NAME", help="The test set the others are compared with [default: the first].")
@_evaluation_options
@click.option("--details", is_flag=True,
              help="The full account in the table format: the verdict for every test set, every metric's value, "
                   "advantage, OPS, expected value and classifier effect, the windows without labels, the method "
                   "and the notes (by default: one table with a row per test set, one screen).")
def compare(files: tuple[str, ...], by: str | None, reference: str | None, details: bool = False,
            **opts: Any) -> None:
    """Compare test sets side by side: several FILEs, or one FILE split --by a column.

    Nominal metrics move with the prevalence even when the model does not change; the
    advantage over the constant prediction and the outperformance score show whether
    the model itself changed (OPS paper, section 4). Every metric's change is split into
    the prevalence effect (the reference classifier at the set's prevalence) and the
    classifier effect; the classifier is tested on its error rates and ROC AUC. A FILE
    without the --y-true column (on every engine), or a --by group whose labels are all
    empty, is a window whose labels have not arrived: its prevalence is estimated from
    its scores (label shift) and every metric projected there. Multi-class: the class
    distribution plays the prevalence; regression: each error measure's change is tested.
    The table format fits one screen: a row per test set with the headline metric observed
    against its expected value and the classifier effect (▼/▲ where it changed); --details
    gives every metric and the verdict in full.

    \b
    Examples:
      beyondchance example examples/
      beyondchance compare examples/credit_default_monthly.csv --by month --y-true default --y-score score
      beyondchance compare examples/credit_default_monthly.csv --by month --y-true default --y-score score --details
      beyondchance compare jan.parquet feb.parquet --y-true label --y-score score --format html --out drift.html
    """
    from .statistics.file_format import is_statistics_file

    kept = [f for f in files if is_statistics_file(f)]
    if by is not None and kept:
        raise InvalidInputError(f"--by splits a file of rows; {kept[0]} is a statistics file (profile --by writes "
                                "one per group: give them as FILEs)")
    if len(kept) == len(files):
        _statistics_file(kept[0], opts)  # refuses the options of rows
    else:
        _needs_y_true(opts, next(f for f in files if f not in kept))
        _prediction_columns(opts, by)
    if opts["y_score"] and opts["y_pred"]:
        raise InvalidInputError("compare takes --y-score or --y-pred, not both (report takes both)")
    if by is not None and len(files) != 1:
        raise InvalidInputError("--by splits one file; give exactly one FILE with --by")
    if by is None and len(files) < 2:
        raise InvalidInputError("compare needs two or more FILEs, or one FILE with --by COL")
    out = opts["out"]
    if opts["fmt"] == "html" and out is None:
        out = Path("beyondchance-compare.html")
    _check_out(out, list(files))
    engine = opts["engine"]
    with _Progress() as progress:
        comparison = _compare_files(files, by, reference, opts, progress)
        if opts["fmt"] == "html":
            from .report.render.html import comparison_html

            progress("drawing the plots")
            text = comparison_html(comparison)
    if opts["fmt"] == "json":
        _write(json.dumps({"engine": engine, **comparison.to_dict()}, indent=2, allow_nan=False), out,
               "JSON comparison")
    elif opts["fmt"] == "html":
        _write(text, out, "HTML comparison")
    else:
        from .report.render.terminal_comparison import render_comparison, render_comparison_text

        if out is None:
            render_comparison(comparison, details=details)
        else:
            _write(render_comparison_text(comparison, details=details), out, "comparison")


def _check_group_count(by: str, n_groups: int) -> None:
    """At most ``MAX_GROUPS`` groups of ``--by``: the message of every command and engine."""
    from .engines.groups import check_group_count

    check_group_count(by, n_groups)


def _group_is_window(by: str, value: Any, n_missing: int, n_rows: int, y_col: str, pred_cols: list[str]) -> bool:
    """A --by group whose labels are all missing is a window without labels (one score column);
    one with some labels missing is refused, naming the group and the count (rows are never dropped)."""
    if 0 < n_missing < n_rows:
        raise InvalidInputError(
            f"--by {by} = {value}: {n_missing} of {n_rows} rows have no label in column {y_col!r}; a group is "
            "either labelled on every row or a window without labels (no row labelled): fill or remove those "
            "rows")
    if n_missing and len(pred_cols) != 1:
        raise InvalidInputError(f"--by {by} = {value} has no labels: a window without labels needs one score "
                                "column (binary scores), not several")
    return n_missing > 0


def _compare_files(files: tuple[str, ...], by: str | None, reference: str | None, opts: dict[str, Any],
                    progress: Any) -> Any:
    """``compare`` of FILEs (or of one FILE split ``--by`` a column) aggregated by the engine
    (:func:`beyondchance.report.compare` with ``y_true=``), or of statistics files beside them."""
    from .engines import get_runner
    from .report.compare import compare
    from .statistics.file_format import is_statistics_file

    engine = opts["engine"]
    runner = get_runner(engine)
    session = runner.session(opts)
    if by is not None:
        return _compare_engine_by(files[0], by, reference, opts, progress, session)
    stems = [Path(f).stem for f in files]
    names = stems if len(set(stems)) == len(stems) else list(files)
    if len(set(names)) != len(names):
        raise InvalidInputError("the same file is given twice")
    sources: dict[str, Any] = {}
    for name, f in zip(names, files):
        # a statistics file is read by compare, which knows them by their content
        sources[name] = f if is_statistics_file(f) else _engine_source(f, engine)
    return compare(sources, engine=engine, session=session, reference=reference, progress=progress,
                   strict=True, **_engine_kwargs(opts))


def _compare_engine_by(file: str, by: str, reference: str | None, opts: dict[str, Any], progress: Any,
                       session: Any) -> Any:
    """``compare FILE --by COL`` on an engine: the file read once, each group a source of its own
    rows inside the engine (:mod:`beyondchance.engines.groups`); groups in their natural order."""
    from .engines import engine_names, get_runner
    from .report.compare import compare

    engine = opts["engine"]
    runner = get_runner(engine)
    pred_cols, numeric = _prediction_columns(opts, by)
    weight = opts["weight"]
    if not runner.splits_by_column:
        splitting = [n for n in engine_names() if get_runner(n).splits_by_column]
        raise InvalidInputError(f"--by needs --engine {', '.join(splitting[:-1])} or {splitting[-1]} (the {engine} "
                                "engine does not split a file by a column)")
    source = _engine_source(file, engine)
    progress(f"splitting {file} by {by} ({engine})")
    split = runner.split_by(source, by, session=session, delimiter=opts["delimiter"],
                            columns=[opts["y_true"], *pred_cols, *([weight] if weight else [])],
                            numeric=[*numeric, *([weight] if weight else [])], label=opts["y_true"])
    try:
        _check_group_count(by, len(split.groups))
        sources: dict[str, Any] = {}
        from .engines.profile_files import natural_order

        for i in natural_order([g.value for g in split.groups]):
            g = split.groups[i]
            window = _group_is_window(by, g.value, g.n_rows - g.n_labelled, g.n_rows, opts["y_true"], pred_cols)
            sources[str(g.value)] = split.scan(g, labelled=not window, name=str(g.value))
        return compare(sources, engine=engine, session=session, reference=reference, progress=progress,
                       strict=True, **_engine_kwargs(opts))
    finally:
        split.close()


# ======================================================================================
# decisions: check (gates) and compare-models
# ======================================================================================


@main.command(epilog=EXIT_HELP)
@click.argument("file", metavar="FILE")
@click.option("--require", "requirements", multiple=True, required=True, metavar="EXPR",
              help="A requirement, e.g. 'prediction_advantage > 0', 'ops(f1) >= 0.9', 'lower(roc_auc) > 0.75', "
                   "'pvalue(pure_accuracy) < 0.01'. Repeat it. Grammar: [FUNCTION(]METRIC[)] OP NUMBER, FUNCTION "
                   "one of value, lower, upper, ops, pvalue, advantage, baseline; OP one of > >= < <=; METRIC a "
                   "metric of the report or of the registry.")
@_evaluation_options
def check(file: str, requirements: tuple[str, ...], **opts: Any) -> int:
    """Gate a model: exit 0 when every --require holds on FILE, 1 when one fails, 2 on bad input, 3 on an internal error.

    Prints a table of the requirements with the measured quantities (--format json: the same as
    JSON). value: the metric; lower / upper: its confidence interval; ops: its outperformance
    score; pvalue: the one-sided permutation p-value of "no better than chance"; advantage:
    its advantage over the best constant prediction; baseline: that constant's value.

    \b
    Examples:
      beyondchance check scores.csv --y-true y --y-score s --require "prediction_advantage > 0" \\
          --require "ops(f1) >= 0.9" --require "lower(roc_auc) > 0.75" --require "pvalue(pure_accuracy) < 0.01"
    """
    from .report.gates import Requirement, check_report

    if opts["fmt"] == "html":
        raise InvalidInputError("check prints a table or JSON (--format table or json)")
    parsed = [Requirement.parse(r) for r in requirements]  # malformed: exit 2 before any computation
    _check_out(opts["out"], [file])
    with _Progress() as progress:
        result = check_report(_evaluate_file(file, opts, progress), parsed)
    if opts["fmt"] == "json":
        _write(result.to_json(), opts["out"], "JSON check")
    else:
        _write(str(result), opts["out"], "check")
    return EXIT_OK if result.passed else EXIT_FAILED


@main.command("compare-models")
@click.argument("file", metavar="FILE")
@click.option("--y-true", "y_true", required=True, metavar="COL", help="Column of the true (binary) labels.")
@click.option("--y-score", "y_score", multiple=True, metavar="COL", help="Column of one model's scores; repeat it.")
@click.option("--y-pred", "y_pred", multiple=True, metavar="COL",
              help="Column of one model's predicted labels; repeat it.")
@click.option("--weight", metavar="COL", help="Column of non-negative sample weights.")
@click.option("--pos-label", metavar="LABEL", help="Positive class [default: 1 for 0/1 labels, else the minority class].")
@click.option("--threshold", type=float, metavar="T",
              help="Scores: score >= T is predicted positive [default: 0.5 for scores in [0, 1], else 0].")
@click.option("--metrics", metavar="M1,M2,...", help="The measures to compare.")
@click.option("--correction", type=click.Choice(["holm", "bonferroni", "none"]), default="holm", show_default=True,
              help="Correction of the p-values for the number of comparisons.")
@click.option("--confidence-level", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True, help="Level of the paired intervals.")
@click.option("--n-resamples", type=click.IntRange(min=1, max=MAX_RESAMPLES), default=2000, show_default=True,
              help="Paired bootstrap resamples.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "html", "markdown"]), default="table",
              show_default=True, help="Output format (html: written to --out, by default beyondchance-models.html).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the output to this file.")
@click.option("--delimiter", metavar="CHAR", help="CSV field delimiter [default: tab for .tsv files, else ','].")
def compare_models_command(file: str, y_true: str, y_score: tuple[str, ...], y_pred: tuple[str, ...],
                           weight: str | None, pos_label: str | None, threshold: float | None, metrics: str | None,
                           correction: Literal["holm", "bonferroni", "none"], confidence_level: float, n_resamples: int, seed: int, fmt: str,
                           out: Path | None, delimiter: str | None) -> None:
    """Compare two or more models on the same test set FILE: is one really better?

    For every pair and measure: the difference with a paired bootstrap interval (the same
    resampled rows for every model) and a p-value — DeLong's test for ROC AUC, McNemar's
    exact test for accuracy and the prediction advantage, the paired bootstrap otherwise —
    corrected for the number of comparisons.

    \b
    Examples:
      beyondchance compare-models scores.csv --y-true y --y-score model_a --y-score model_b
      beyondchance compare-models preds.csv --y-true y --y-pred a --y-pred b --metrics accuracy,f1 --format json
      beyondchance compare-models scores.csv --y-true y --y-score a --y-score b --format html --out models.html
    """
    from .engines import detect_engine, get_runner
    from .engines.scan import typed_labels
    from .report.model_comparison import compare_models, rows_file

    if bool(y_score) == bool(y_pred):
        raise InvalidInputError("give the models either as --y-score COL (repeated) or as --y-pred COL (repeated)")
    cols = list(y_score or y_pred)
    if len(cols) < 2 or len(set(cols)) < len(cols):
        raise InvalidInputError(f"compare-models needs two or more distinct model columns, got {', '.join(cols)}")
    if fmt == "html" and out is None:
        out = Path("beyondchance-models.html")
    _check_out(out, [file])
    with _Progress() as progress:
        progress(f"reading {file}")
        engine = detect_engine(None)  # the engine of rows in memory: the models are paired row by row
        scan = get_runner(engine).open(_engine_source(rows_file(file), engine), name=file, delimiter=delimiter)
        weights = [weight] if weight else []
        kinds = scan.open([y_true, *cols, *weights], [*y_score, *weights])
        c = scan.rows([y_true, *cols, *weights], [])[0]
        pos = None if pos_label is None else typed_labels([pos_label], kinds[y_true])[0]
        progress("bootstrapping the models")
        result = compare_models(c[y_true], {k: c[k] for k in cols}, sample_weight=c[weight] if weight else None,
                                metrics=_split(metrics),
                                kind="scores" if y_score else "labels", pos_label=pos, threshold=threshold,
                                confidence_level=confidence_level, n_resamples=n_resamples, correction=correction,
                                random_state=seed)
    if fmt == "json":
        _write(result.to_json(), out, "JSON comparison")
    elif fmt == "html":
        _write(result.to_html(), out, "HTML comparison")
    elif fmt == "markdown":
        _write(result.to_markdown(), out, "Markdown comparison")
    else:
        _write(str(result), out, "comparison")


# ======================================================================================
# demo and example
# ======================================================================================


@main.command()
@click.option("--folds", default=10, show_default=True, type=click.IntRange(min=2), help="Cross-validation folds.")
@click.option("--seed", default=0, show_default=True, help="Random seed of the fold split and the bootstrap.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=Path("beyondchance-demo.html"),
              show_default=True, help="Where to write the HTML report.")
@click.option("--no-html", is_flag=True, help="Only print to the terminal.")
@click.option("--mc-samples", type=click.IntRange(min=64, max=MAX_MC_SAMPLES), default=None, metavar="G",
              help="Size of the Monte Carlo reference of the OPS: random curves for the OPS of the "
                   "AUCs. Default: the shipped reference "
                   "of 114,688 curves; another G is drawn on first use and cached.")
def demo(folds: int, seed: int, out: Path, no_html: bool, mc_samples: int | None) -> None:
    """Run the whole thing on bundled real data and write the HTML report.

    1. Haberman survival (PA paper, Appendix A): five cross-validated classifiers reach
    66-75% accuracy; always answering "survived" scores 73.5%.
    2. A credit-default model (ISLR Default data) monitored over six months whose
    prevalence rises from 3% to 30%: nominal precision climbs, its outperformance
    score stays put — except in the month where the model really degraded.

    \b
    Example:
      beyondchance demo --folds 5 --seed 1 --out demo.html
    """
    from .report.demo import run_demo
    from .report.render.terminal import _console

    if not no_html:
        _check_out(out, [])
    console = _console()  # the spinner shares it, so that printed lines go above it
    with _Progress(console=console) as progress:
        run_demo(folds=folds, random_state=seed, out=None if no_html else out, progress=progress, mc_samples=mc_samples,
                 console=console)


@main.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path), default=Path("beyondchance-example"))
@click.option("--seed", default=0, show_default=True, help="Random seed of the sampling.")
def example(directory: Path, seed: int) -> None:
    """Write the bundled scored example (a credit-default model over six months) as CSV files.

    The files are generated from the bundled ISLR Default data: one CSV with a month
    column, and one CSV per month. The commands to try are printed.

    \b
    Example:
      beyondchance example examples/
    """
    from .report.example import write_example

    paths = {k: printable(p) for k, p in write_example(directory, random_state=seed).items()}
    click.echo(f"wrote {len(paths)} files to {printable(directory)}/")
    click.echo("try:")
    click.echo(f"  beyondchance report {paths['2024-01']} --y-true default --y-score score")
    click.echo(f"  beyondchance compare {paths['all']} --by month --y-true default --y-score score")
    months = [p for k, p in paths.items() if k != "all"]
    click.echo(f"  beyondchance compare {' '.join(months[:3])} --y-true default --y-score score")


if __name__ == "__main__":  # pragma: no cover
    main()
