"""Hostile outputs (issue 41): no file is replaced by surprise and no write goes through a planted
link.  A group file of ``profile --by`` never replaces an input (by name, link, hard link or
glob) nor, without ``--overwrite``, a file that exists; group values give readable, distinct
names (also where case or Unicode normalisation would merge them); a link at the destination
is replaced, never its target, and a link of another user in a world-writable sticky folder
is not followed; a failed write names its file; a killed write leaves no temporary file.
Refusals are one line on stderr and exit status 2, before any file is written."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
import time
import unicodedata

import numpy as np
import pytest
from click.testing import CliRunner

import beyondchance._json as J
from beyondchance._json import write_atomic
from beyondchance._warnings import InvalidInputError
from beyondchance.cli import main
from conftest import one_line_error

pytestmark = pytest.mark.hostile

ENGINES = ["memory", "duckdb"]
ARGS = ["--y-true", "y", "--y-score", "s", "--no-ci"]
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links and owners")
as_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                             reason="planting another user's link needs root (lchown)")
NOBODY = 65534


def _csv(path, groups=("x", "y"), n=60):
    """Rows of labels and scores, ``g`` cycling through ``groups``."""
    rng = np.random.default_rng(0)
    y = np.arange(n) % 2
    s = np.clip(0.3 * y + rng.uniform(0, 0.7, n), 0, 1)
    lines = ["g,y,s"] + [f"{groups[i % len(groups)]},{y[i]},{s[i]:.4f}" for i in range(n)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _profile(*args, engine="memory"):
    return CliRunner().invoke(main, ["profile", *map(str, args), *ARGS, "--engine", engine])


def _ok(result):
    assert result.exit_code == 0, (result.exit_code, result.output)
    return result


def _names(directory):
    return sorted(p.name for p in directory.iterdir())


# --- no file is replaced by surprise ------------------------------------------------------------


def _input_named_like_a_group_file(tmp_path, how):
    """(the FILE argument, the input's path) where group x of ``--out sales.csv`` — sales.x.csv —
    is the input: by its name, a glob, or a link or hard link to it."""
    if how in ("name", "glob"):
        data = _csv(tmp_path / "sales.x.csv")
        return (str(tmp_path / "sales.x*.csv") if how == "glob" else data), data
    data = _csv(tmp_path / "data.csv")
    if how == "symbolic link":
        (tmp_path / "sales.x.csv").symlink_to(data)
    else:
        os.link(data, tmp_path / "sales.x.csv")
    return data, data


@posix_only
@pytest.mark.parametrize("engine,how", [(e, h) for e in ENGINES for h in ("name", "symbolic link", "hard link")]
                         + [("duckdb", "glob")])
def test_a_group_file_is_never_an_input(tmp_path, engine, how):
    source, data = _input_named_like_a_group_file(tmp_path, how)
    before, names = data.read_bytes(), _names(tmp_path)
    err = one_line_error(_profile(source, "--by", "g", "--out", tmp_path / "sales.csv", engine=engine),
                          "sales.x.csv", "is an input file", "--out")
    assert "--overwrite" not in err  # an input is never replaced, whatever the flags
    assert data.read_bytes() == before and _names(tmp_path) == names  # nothing written, not even group y


@pytest.mark.parametrize("engine", ENGINES)
def test_an_existing_group_file_is_replaced_only_with_overwrite(tmp_path, engine):
    data = _csv(tmp_path / "rows.csv", groups=("a", "b", "c"))
    last = tmp_path / "o.c.bcstats"  # the last group written: checked before the first write
    last.write_text("someone's file\n")
    one_line_error(_profile(data, "--by", "g", "--out", tmp_path / "o.bcstats", engine=engine),
                    "o.c.bcstats", "exists", "--overwrite")
    assert last.read_text() == "someone's file\n"
    assert _names(tmp_path) == ["o.c.bcstats", "rows.csv"]  # no half-written set
    _ok(_profile(data, "--by", "g", "--out", tmp_path / "o.bcstats", "--overwrite", engine=engine))
    assert _names(tmp_path) == ["o.a.bcstats", "o.b.bcstats", "o.c.bcstats", "rows.csv"]
    assert last.read_text().startswith('{"format":"beyondchance-statistics"')


def test_the_python_function_behind_profile_refuses_an_existing_group_file(tmp_path):
    from beyondchance.engines.profile_files import save_profiles

    data = _csv(tmp_path / "rows.csv")
    (tmp_path / "o.y.bcstats").write_text("keep\n")
    options = dict(by="g", columns=["y", "s"], numeric=["s"], delimiter=None, progress=lambda _: None,
                   written=lambda _: None, y_true="y", y_score=("s",), engine="duckdb", ci=False)
    with pytest.raises(InvalidInputError, match="o.y.bcstats exists"):
        save_profiles([str(data)], tmp_path / "o.bcstats", overwrite=False, **options)
    assert (tmp_path / "o.y.bcstats").read_text() == "keep\n"
    paths = save_profiles([str(data)], tmp_path / "o.bcstats", overwrite=True, **options)
    assert [p.name for p in paths] == ["o.x.bcstats", "o.y.bcstats"]


def _folded(name):
    return unicodedata.normalize("NFKC", name).casefold()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("pair", [("A", "a"), ("é", "É"), ("Straße", "STRASSE")], ids=["case", "accent", "sharp-s"])
def test_groups_equal_but_for_case_get_distinct_readable_names(tmp_path, engine, pair):
    """Two files whose names one case-insensitive filesystem (macOS, Windows) would take as one."""
    data = _csv(tmp_path / "rows.csv", groups=pair)
    _ok(_profile(data, "--by", "g", "--out", tmp_path / "o.bcstats", engine=engine))
    written = [n for n in _names(tmp_path) if n != "rows.csv"]
    assert len(written) == 2 and len({_folded(n) for n in written}) == 2, written
    for value in pair:  # each name shows its value, and a hash tells them apart
        assert any(n.startswith(f"o.{value}-") for n in written), (value, written)


@pytest.mark.parametrize("engine", ENGINES)
def test_non_ascii_group_values_keep_readable_names(tmp_path, engine):
    groups = ("café", "東京", "Zürich", "naïve")
    data = _csv(tmp_path / "rows.csv", groups=groups)
    _ok(_profile(data, "--by", "g", "--out", tmp_path / "o.bcstats", engine=engine))
    assert _names(tmp_path) == sorted([f"o.{g}.bcstats" for g in groups] + ["rows.csv"])


@pytest.mark.parametrize("engine", ENGINES)
def test_changed_group_values_get_a_hash_and_stay_distinct(tmp_path, engine):
    """Values that differ only in characters a file name cannot hold: two files, none outside."""
    groups = ("a/b", "a_b", "../up", "a b")
    (tmp_path / "out").mkdir()
    data = _csv(tmp_path / "rows.csv", groups=groups)
    _ok(_profile(data, "--by", "g", "--out", tmp_path / "out" / "o.bcstats", engine=engine))
    written = _names(tmp_path / "out")
    assert len(written) == 4 and "o.a_b.bcstats" in written, written
    assert sum(n.startswith("o.a_b-") for n in written) == 2 and any(n.startswith("o.a_b-") for n in written)
    assert any(n.startswith("o..._up-") for n in written) and _names(tmp_path) == ["out", "rows.csv"]


# --- links ----------------------------------------------------------------------------------------


@posix_only
@pytest.mark.parametrize("engine", ENGINES)
def test_a_link_at_out_is_replaced_not_its_target(tmp_path, engine):
    data = _csv(tmp_path / "rows.csv")
    (tmp_path / "shared").mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("not yours\n")
    out = tmp_path / "shared" / "ref.bcstats"
    out.symlink_to(victim)
    _ok(_profile(data, "--out", out, engine=engine))
    assert victim.read_text() == "not yours\n"
    assert not out.is_symlink() and out.read_text().startswith('{"format":"beyondchance-statistics"')


@posix_only
@pytest.mark.parametrize("engine", ENGINES)
def test_a_link_at_a_group_file_is_replaced_not_its_target(tmp_path, engine):
    data = _csv(tmp_path / "rows.csv")
    victim = tmp_path / "victim.txt"
    victim.write_text("not yours\n")
    (tmp_path / "o.x.bcstats").symlink_to(victim)
    one_line_error(_profile(data, "--by", "g", "--out", tmp_path / "o.bcstats", engine=engine),
                    "o.x.bcstats", "exists")
    _ok(_profile(data, "--by", "g", "--out", tmp_path / "o.bcstats", "--overwrite", engine=engine))
    assert victim.read_text() == "not yours\n" and not (tmp_path / "o.x.bcstats").is_symlink()


@pytest.fixture
def planted(tmp_path):
    """A world-writable sticky folder ``shared`` holding ``shared/sub``: another user's link to a
    folder outside it (``elsewhere``); returns (shared, elsewhere)."""
    shared, elsewhere = tmp_path / "shared", tmp_path / "elsewhere"
    shared.mkdir()
    elsewhere.mkdir()
    os.chmod(shared, 0o1777)
    (shared / "sub").symlink_to(elsewhere, target_is_directory=True)
    os.lchown(shared / "sub", NOBODY, NOBODY)
    return shared, elsewhere


@posix_only
@as_root
@pytest.mark.parametrize("engine", ENGINES)
def test_another_users_link_in_a_sticky_folder_is_not_followed(tmp_path, planted, engine):
    shared, elsewhere = planted
    data = _csv(tmp_path / "rows.csv")
    one_line_error(_profile(data, "--out", shared / "sub" / "ref.bcstats", engine=engine),
                    str(shared / "sub"), "another user", "sticky")
    assert _names(elsewhere) == []
    os.lchown(shared / "sub", os.geteuid(), os.getegid())  # the writer's own link is followed
    _ok(_profile(data, "--out", shared / "sub" / "ref.bcstats", engine=engine))
    assert _names(elsewhere) == ["ref.bcstats"]


@posix_only
@as_root
def test_write_atomic_follows_no_protected_link(planted):
    shared, elsewhere = planted
    with pytest.raises(PermissionError, match="fs.protected_symlinks"):
        write_atomic(shared / "sub" / "r.txt", "x")
    os.chown(shared, NOBODY, -1)  # the folder owner's link is followed, as Linux does
    write_atomic(shared / "sub" / "r.txt", "x")
    assert _names(elsewhere) == ["r.txt"]


# --- messages and temporary files ---------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_a_failed_write_names_the_file(monkeypatch, tmp_path, engine):
    data = _csv(tmp_path / "rows.csv")
    out = tmp_path / "report.json"

    def full(f, content):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(J, "_write", full)
    result = CliRunner().invoke(main, ["report", str(data), *ARGS, "--mc-samples", "2048", "--engine", engine,
                                       "--format", "json", "--out", str(out)])
    one_line_error(result, "No space left on device", str(out))
    assert _names(tmp_path) == ["rows.csv"]


_KILLED_WRITE = """
import importlib.util, os, signal, sys
spec = importlib.util.spec_from_file_location("writes", sys.argv[2])  # the module alone: a quick start
writes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(writes)

def half_then_killed(f):
    f.write(b"half")
    f.flush()
    os.kill(os.getpid(), signal.SIGKILL)

writes.write_atomic(sys.argv[1], half_then_killed)
"""


@pytest.mark.skipif(not hasattr(os, "O_TMPFILE") or not os.path.isdir("/proc/self/fd"),
                    reason="a file without a name needs Linux's O_TMPFILE and /proc")
def test_a_killed_write_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "report.txt"
    path.write_text("previous\n")
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(_KILLED_WRITE), str(path), J.__file__], timeout=60)
    assert done.returncode == -9
    assert path.read_text() == "previous\n" and _names(tmp_path) == ["report.txt"]


def test_stale_temporary_files_of_the_destination_are_removed(tmp_path):
    """Where a killed write could leave ``.tmp-<random>-<name>``: the next write of that name
    removes those over an hour old, and only those."""
    path = tmp_path / "report.txt"
    hour_ago = time.time() - 3700
    stale = tmp_path / ".tmp-0123456789ab-report.txt"
    young = tmp_path / ".tmp-ba9876543210-report.txt"
    other = tmp_path / ".tmp-0123456789ab-notes.txt"
    for p in (stale, young, other):
        p.write_text("half")
    for p in (stale, other):
        os.utime(p, (hour_ago, hour_ago))
    write_atomic(path, "whole\n")
    assert _names(tmp_path) == sorted([young.name, other.name, "report.txt"])
