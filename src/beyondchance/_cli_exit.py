"""How a command of the command line ends: its exit status (:data:`EXIT_STATUS`) and, for
an error, one line on stderr — never a traceback unless ``BEYONDCHANCE_DEBUG=1`` asks for it.

:class:`Group` is the click group of :mod:`beyondchance.cli`: it turns every exception of a
command into that line and status — 2 for bad input or a file that cannot be read or
written, 3 for memory exhausted (naming ``--engine duckdb``) and for a bug, 130 for Ctrl-C —
and a closed stdout (``| head``) into a quiet exit.  Split from the commands so that
:mod:`beyondchance.cli` holds the commands alone.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Any

import click

from ._summary_display import printable
from ._warnings import InvalidInputError

__all__ = ["EXIT_STATUS", "EXIT_OK", "EXIT_FAILED", "EXIT_BAD_INPUT", "EXIT_INTERNAL", "EXIT_INTERRUPTED",
           "EXIT_HELP", "Group", "fail"]

_DEBUG_ENV = "BEYONDCHANCE_DEBUG"

#: the exit statuses of every command
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_STATUS = {
    EXIT_OK: "success (check: every requirement holds)",
    EXIT_FAILED: "a requirement of check failed (no other command exits 1)",
    EXIT_BAD_INPUT: "bad input (argument, file, column, value), or a file not readable or writable",
    EXIT_INTERNAL: f"internal error (a bug, memory exhausted); {_DEBUG_ENV}=1 shows the traceback",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
}

#: the exit statuses as a --help paragraph (\b: click keeps the lines)
EXIT_HELP = "\b\nExit status:\n" + "\n".join(f"  {code:<3} {what}" for code, what in EXIT_STATUS.items())


def _one_line(message: str) -> str:
    return " ".join(str(message).split())


def fail(message: str, status: int = EXIT_BAD_INPUT) -> None:
    """One line on stderr, its control characters (from file and column names, labels) as
    escapes, then exit with ``status``."""
    click.echo(f"beyondchance: error: {printable(_one_line(message))}", err=True)
    sys.exit(status)


def _is_memory_exhausted(exc: BaseException) -> bool:
    """Memory ran out: a MemoryError (numpy's, pyarrow's "malloc of size … failed"), DuckDB's
    "Out of Memory Error", an ENOMEM, a library that could not be mapped or a thread whose
    stack could not be (``ulimit -v``) — none is bad input."""
    return (isinstance(exc, MemoryError) or type(exc).__name__ == "OutOfMemoryException"
            or (isinstance(exc, OSError) and exc.errno == errno.ENOMEM)
            or (isinstance(exc, ImportError) and "failed to map segment" in str(exc))
            or (isinstance(exc, RuntimeError) and "can't start new thread" in str(exc)))


def _fail_on(exc: Exception) -> None:
    """The one line and exit status of an exception of a command: 2 for bad input or a file
    that cannot be read or written, 3 for memory exhausted (naming --engine duckdb) and for a
    bug (with ``BEYONDCHANCE_DEBUG=1``: the traceback instead)."""
    if _is_memory_exhausted(exc):
        if os.environ.get(_DEBUG_ENV):
            raise exc
        fail(f"internal error ({type(exc).__name__}: {exc}): memory exhausted; use --engine duckdb, which reads "
              f"the files in pieces, or give the process more memory; set {_DEBUG_ENV}=1 for the traceback",
              status=EXIT_INTERNAL)
    if isinstance(exc, (InvalidInputError, OSError)):
        fail(str(exc))
    if os.environ.get(_DEBUG_ENV):
        raise exc
    fail(f"internal error ({type(exc).__name__}: {exc}); set {_DEBUG_ENV}=1 for the traceback", status=EXIT_INTERNAL)


def _quiet_exit() -> None:
    """The reader of stdout is gone (``| head``): stop quietly, as a filter does.

    The rest of the output goes to /dev/null so that the interpreter's final flush does
    not fail again (Python docs, "Note on SIGPIPE").
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(0)


#: commands of other modules, imported only when used: name -> (module, attribute)
_LAZY_COMMANDS = {"reproduce": ("beyondchance.experiments.command", "reproduce")}


class Group(click.Group):
    """A click group whose errors are one line on stderr (status 2 for bad input)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(_LAZY_COMMANDS))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is None and name in _LAZY_COMMANDS:
            import importlib

            module, attr = _LAZY_COMMANDS[name]
            try:
                command = getattr(importlib.import_module(module), attr)
            except Exception:  # pragma: no cover - absent or broken: the other commands still work
                return None
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:  # before click's own handler, which exits with status 1
            _quiet_exit()

    def main(self, args: Any = None, prog_name: str | None = None, **extra: Any) -> Any:  # type: ignore[override]
        extra.pop("standalone_mode", None)
        try:
            rv = super().main(args, prog_name, standalone_mode=False, **extra)
            sys.stdout.flush()  # a closed pipe shows here, not at exit
        except BrokenPipeError:
            _quiet_exit()
        except click.exceptions.Exit as exc:  # pragma: no cover - --help/--version inside commands
            sys.exit(exc.exit_code)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            fail(exc.format_message() + hint)
        except click.ClickException as exc:
            fail(exc.format_message())
        except (click.Abort, KeyboardInterrupt):  # Ctrl-C (click turns KeyboardInterrupt into Abort)
            click.echo("beyondchance: aborted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except Exception as exc:  # one line: bad input (2), memory exhausted or a bug (3)
            _fail_on(exc)
        sys.exit(rv if isinstance(rv, int) else EXIT_OK)
