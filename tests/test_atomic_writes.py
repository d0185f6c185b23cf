"""Files are written whole or not at all: ``--out``, ``save``/``to_html``/``to_json``/
``to_markdown``, the example and the reference cache write a temporary file in the same
folder and rename it; a failure mid-write (a full disk, an exception, Ctrl-C) leaves the
previous file as it was and no temporary file behind.  New files get the umask's
permissions (not mkstemp's 0600); the cache removes the temporary files of killed writes."""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
import time
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import beyondchance._json as J
import beyondchance.outperformance.dbt as D
from beyondchance._json import write_atomic
from beyondchance.cli import main
from beyondchance.report import compare, evaluate

pytestmark = pytest.mark.hostile

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")


def _half_then(exc: BaseException):
    """A serialiser that writes part of the content, then fails."""

    def write(f, content):
        data = content(f) if callable(content) else content
        if data is not None:
            f.write(data[: max(1, len(data) // 2)])
        f.flush()
        raise exc

    return write


def _only(directory, name):
    names = sorted(p.name for p in directory.iterdir())
    assert names == [name], names  # no temporary file left behind


@pytest.fixture(scope="module")
def report():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    s = np.clip(0.4 * y + 0.6 * rng.random(200), 0, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(y, s, ci=False, mc_samples=2048, name="holdout")


@pytest.fixture
def umask():
    """Set the process's umask for one test."""
    previous = os.umask(0o022)
    os.umask(previous)
    yield lambda mask: os.umask(mask)
    os.umask(previous)


_FAILURES = {"disk-full": OSError(errno.ENOSPC, "No space left on device"), "exception": RuntimeError("serialiser"),
             "interrupt": KeyboardInterrupt()}


# save-html draws the plots (seconds a write): one failure for it, the others' write path is to_html's
@pytest.mark.parametrize("how,exc", [pytest.param(how, exc, id=f"{how}-{name}")
                                     for how in ["to_html", "to_json", "to_markdown", "save-txt", "save-html"]
                                     for name, exc in _FAILURES.items()
                                     if how != "save-html" or name == "disk-full"])
def test_a_failed_write_leaves_the_previous_file(monkeypatch, tmp_path, report, how, exc):
    suffix = {"to_html": ".html", "to_json": ".json", "to_markdown": ".md", "save-txt": ".txt",
              "save-html": ".html"}[how]
    path = tmp_path / f"report{suffix}"
    path.write_text("the previous good report\n")

    def write():
        if how.startswith("save"):
            report.save(path)
        elif how == "to_html":
            report.to_html(path, plots=False)
        else:
            getattr(report, how)(path)

    monkeypatch.setattr(J, "_write", _half_then(exc))
    with pytest.raises(type(exc)):
        write()
    assert path.read_text() == "the previous good report\n"
    _only(tmp_path, path.name)
    monkeypatch.undo()
    write()
    assert path.read_text() != "the previous good report\n" and path.stat().st_size > 0
    _only(tmp_path, path.name)


def test_a_comparison_writes_whole(monkeypatch, tmp_path):
    y = np.array([0, 1] * 50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compare({"a": (y, np.linspace(0, 1, 100)), "b": (y, np.linspace(1, 0, 100))}, ci=False,
                    mc_samples=2048)
    path = tmp_path / "c.json"
    c.to_json(path)
    before = path.read_bytes()
    monkeypatch.setattr(J, "_write", _half_then(OSError(errno.ENOSPC, "full")))
    with pytest.raises(OSError):
        c.to_json(path, indent=None)
    assert path.read_bytes() == before
    _only(tmp_path, "c.json")


@pytest.fixture(scope="module")
def scores_csv(tmp_path_factory):
    d = tmp_path_factory.mktemp("atomic")
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 150)
    s = np.clip(0.4 * y + 0.6 * rng.random(150), 0, 1)
    path = d / "scores.csv"
    path.write_text("y,s\n" + "\n".join(f"{a},{b:.4f}" for a, b in zip(y, s)) + "\n")
    return path


@pytest.mark.parametrize("fmt,exc,status", [("json", OSError(errno.ENOSPC, "No space left on device"), 2),
                                            ("table", KeyboardInterrupt(), 130),
                                            ("html", MemoryError(), 3)])
def test_cli_out_is_replaced_whole_or_not_at_all(monkeypatch, tmp_path, scores_csv, fmt, exc, status):
    out = tmp_path / f"report.{ {'table': 'txt'}.get(fmt, fmt) }"
    args = ["report", str(scores_csv), "--y-true", "y", "--y-score", "s", "--no-ci", "--mc-samples", "2048",
            "--format", fmt, "--out", str(out)]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    good = out.read_bytes()
    assert good
    monkeypatch.setattr(J, "_write", _half_then(exc))
    broken = CliRunner().invoke(main, args)
    assert broken.exit_code == status, broken.output
    assert out.read_bytes() == good
    _only(tmp_path, out.name)
    if fmt == "json":
        json.loads(out.read_text())


@pytest.fixture
def small_tmpfs(tmp_path):
    """A 64 KiB tmpfs (root on Linux only, else the test is skipped), unmounted afterwards."""
    import shutil
    import subprocess

    mount = tmp_path / "disk"
    mount.mkdir()
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root on Linux")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"no tmpfs here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_cli_out_on_a_full_disk(small_tmpfs, scores_csv):
    """A real full disk (no simulation): the old file stays whole, one line, exit 2."""
    out = small_tmpfs / "report.json"
    args = ["report", str(scores_csv), "--y-true", "y", "--y-score", "s", "--no-ci", "--mc-samples", "2048",
            "--format", "json", "--out", str(out)]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    good = out.read_bytes()
    fd = os.open(small_tmpfs / "filler", os.O_WRONLY | os.O_CREAT)
    try:  # fill the disk up
        with pytest.raises(OSError) as full:
            while True:
                os.write(fd, b"\0" * 4096)
    finally:
        os.close(fd)
    assert full.value.errno == errno.ENOSPC
    broken = CliRunner().invoke(main, args)
    assert broken.exit_code == 2, broken.output
    assert broken.stderr.count("\n") == 1 and "No space left on device" in broken.stderr
    assert out.read_bytes() == good
    assert sorted(p.name for p in small_tmpfs.iterdir()) == ["filler", "report.json"]  # no temporary file


def test_example_files_are_written_whole(monkeypatch, tmp_path):
    from beyondchance.report.example import write_example

    paths = write_example(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    monkeypatch.setattr(J, "_write", _half_then(OSError(errno.ENOSPC, "full")))
    with pytest.raises(OSError):
        write_example(tmp_path, random_state=1)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    assert len(paths) == len(before)


def test_write_atomic_kinds_of_content(tmp_path):
    p = tmp_path / "x"
    write_atomic(p, "text é\n")
    assert p.read_text(encoding="utf-8") == "text é\n"
    write_atomic(p, b"\x00bytes")
    assert p.read_bytes() == b"\x00bytes"
    write_atomic(p, lambda f: f.write(b"from a writer"))
    assert p.read_bytes() == b"from a writer"
    _only(tmp_path, "x")


@posix_only
@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_new_files_get_the_umask_permissions(tmp_path, umask, report, mask):
    umask(mask)
    p = tmp_path / "r.json"
    report.to_json(p)
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~mask


@posix_only
def test_a_replaced_file_keeps_its_mode(tmp_path, umask, report):
    umask(0o022)
    p = tmp_path / "r.md"
    p.write_text("old")
    os.chmod(p, 0o640)
    report.to_markdown(p)
    assert stat.S_IMODE(p.stat().st_mode) == 0o640 and p.read_text() != "old"


@posix_only
def test_a_symbolic_link_is_replaced_not_written_through(tmp_path, report):
    # was "written through" (its target replaced): a link planted at the destination by someone
    # else redirected the write anywhere (issue 41); the link itself is replaced now
    target = tmp_path / "real.json"
    target.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    report.to_json(link)
    assert not link.is_symlink() and json.loads(link.read_text())["n"] == report.n
    assert target.read_text() == "{}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_a_device_is_written_directly():
    assert write_atomic("/dev/null", "nothing") == J.Path("/dev/null")


# --- the reference cache ---------------------------------------------------------------------


def test_the_cache_removes_temporary_files_of_killed_writes(tmp_path):
    cache = D.ReferenceCache(tmp_path)
    old = tmp_path / ".tmp-abc123.npz"
    old_new_name = tmp_path / ".tmp-0123456789ab-deadbeef.npz"
    young = tmp_path / ".tmp-fresh.npz"
    other = tmp_path / "notes.tmp-keep"
    for p in (old, old_new_name, young, other):
        p.write_bytes(b"partial")
    hour_ago = time.time() - 3600
    for p in (old, old_new_name, other):
        os.utime(p, (hour_ago, hour_ago))
    assert cache.get({"what": "nothing"}) is None  # the first use of the directory sweeps it
    assert not old.exists() and not old_new_name.exists()
    assert young.exists() and other.exists()  # a write in progress, and a file that is not the cache's


def test_a_killed_cache_write_leaves_no_temporary_file(monkeypatch, tmp_path):
    cache = D.ReferenceCache(tmp_path)
    monkeypatch.setattr(J, "_write", _half_then(OSError(errno.ENOSPC, "full")))
    cache.put({"what": "demo"}, np.arange(3.0))  # the disk layer fails quietly ...
    assert list(tmp_path.iterdir()) == []  # ... and leaves nothing behind
    np.testing.assert_array_equal(cache.get({"what": "demo"}), np.arange(3.0))  # the memory layer has it


@posix_only
@pytest.mark.parametrize("mask", [0o022, 0o002])
def test_cache_files_get_the_umask_permissions(tmp_path, umask, mask):
    umask(mask)
    cache = D.ReferenceCache(tmp_path / "ops-reference")
    cache.put({"what": "demo"}, np.arange(3.0))
    (path,) = (tmp_path / "ops-reference").glob("*.npz")
    mode = stat.S_IMODE(path.stat().st_mode)
    assert mode == 0o666 & ~mask and mode & stat.S_IRGRP  # readable by the group, not 0600
    cache.clear(disk=False)
    np.testing.assert_array_equal(cache.get({"what": "demo"}), np.arange(3.0))
