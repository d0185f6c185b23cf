"""Ctrl-C of the command line: exit status 130 and one line, never a traceback — also while
the imports run, before :func:`beyondchance.cli.main` and its handler exist.

The console script ``beyondchance`` (and ``python -m beyondchance.cli``) imports the
package, and with it numpy, scipy and pyarrow, before any of its code can catch an
interrupt; a Ctrl-C there reached the interpreter, which printed 14 to 40 lines of
traceback.  The package's first statement installs :func:`exit_quietly_on_interrupt` when
the process is the command line (:func:`is_command_line`), and the command-line module
installs it whenever it is imported: a ``KeyboardInterrupt`` that nothing caught then ends
the process with one line and status 130, after the ``finally`` blocks on its way have run
(temporary files removed).  A program that imports the library keeps Python's traceback.
This module imports nothing beyond the standard library, so that it runs before the rest.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["EXIT_INTERRUPTED", "is_command_line", "exit_quietly_on_interrupt"]

#: the exit status of an interrupted command (128 + SIGINT, as a shell reports it)
EXIT_INTERRUPTED = 130
#: the names of the console script
_SCRIPTS = ("beyondchance", "beyondchance.exe", "beyondchance-script.py")


def is_command_line() -> bool:
    """True when this process is the command line: the console script ``beyondchance``, or
    ``python -m beyondchance.cli``."""
    if sys.argv and os.path.basename(sys.argv[0]) in _SCRIPTS:
        return True
    words = list(getattr(sys, "orig_argv", ()))
    return any(a == "-m" and b == "beyondchance.cli" for a, b in zip(words, words[1:]))


def exit_quietly_on_interrupt() -> None:
    """Make an uncaught ``KeyboardInterrupt`` end the process with the line
    ``beyondchance: interrupted`` and status 130 (installed once; other exceptions go to
    the hook that was there)."""
    if getattr(sys.excepthook, "_beyondchance_interrupt", False):
        return
    previous = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, tb: Any) -> None:
        if not issubclass(kind, KeyboardInterrupt):
            previous(kind, value, tb)
            return
        try:
            sys.stderr.write("beyondchance: interrupted\n")
            sys.stderr.flush()
        finally:
            os._exit(EXIT_INTERRUPTED)  # sys.exit cannot be raised from an excepthook

    hook._beyondchance_interrupt = True  # type: ignore[attr-defined]
    sys.excepthook = hook
