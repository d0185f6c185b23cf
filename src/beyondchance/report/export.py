"""How a :class:`~beyondchance.report.Report` or a comparison shows and saves itself:
``print(r)`` (the terminal table, no colours), the notebook's ``_repr_html_`` and
``_repr_markdown_``, and ``to_json`` / ``to_html`` / ``to_markdown`` / ``save``.

The renderers are imported on use (matplotlib only when plots are drawn).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .._json import write_atomic
from .._warnings import InvalidInputError

__all__ = ["Exportable", "SUFFIXES"]

#: file suffix -> format of :meth:`Exportable.save`
SUFFIXES = {".html": "html", ".htm": "html", ".json": "json", ".md": "markdown", ".markdown": "markdown",
            ".txt": "text"}


def _written(text: str, path: str | os.PathLike | None) -> str | None:
    """``text``, or None once written to ``path`` whole (``write_atomic``:
    a failure leaves the previous file as it was)."""
    if path is None:
        return text
    write_atomic(path, text)
    return None


class Exportable:
    """Mixin of the report and the comparison; subclasses define ``to_dict`` and the four
    renderings ``_text``, ``_html_fragment``, ``_html_page`` and ``_markdown``."""

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - defined by the subclasses
        raise NotImplementedError

    def _text(self) -> str:  # pragma: no cover
        raise NotImplementedError

    def _html_fragment(self, plots: bool) -> str:  # pragma: no cover
        raise NotImplementedError

    def _html_page(self, plots: bool) -> str:  # pragma: no cover
        raise NotImplementedError

    def _markdown(self) -> str:  # pragma: no cover
        raise NotImplementedError

    def __str__(self) -> str:
        return self._text()

    def _repr_html_(self) -> str:
        return self._html_fragment(False)

    def _repr_markdown_(self) -> str:
        return self._markdown()

    def to_json(self, path: str | os.PathLike | None = None, *, indent: int | None = 2) -> str | None:
        """The JSON of :meth:`to_dict` (strict JSON: no NaN); written to ``path`` when given
        (then None is returned), else returned."""
        return _written(json.dumps(self.to_dict(), indent=indent, allow_nan=False) + "\n", path)

    def to_html(self, path: str | os.PathLike | None = None, *, plots: bool = True) -> str | None:
        """A self-contained HTML page (plots as inline PNG unless ``plots=False``);
        written to ``path`` when given (then None is returned), else returned."""
        return _written(self._html_page(plots), path)

    def to_markdown(self, path: str | os.PathLike | None = None) -> str | None:
        """Markdown (verdict and table); written to ``path`` when given, else returned."""
        return _written(self._markdown(), path)

    def save(self, path: str | os.PathLike) -> None:
        """Write to ``path`` in the format of its suffix: ``.html``/``.htm``, ``.json``,
        ``.md``/``.markdown`` or ``.txt`` (the terminal table)."""
        kind = SUFFIXES.get(Path(path).suffix.lower())
        if kind is None:
            raise InvalidInputError(
                f"cannot tell the format of {os.fspath(path)!r}: use a file name ending in "
                f"{', '.join(SUFFIXES)}"
            )
        if kind == "html":
            self.to_html(path)
        elif kind == "json":
            self.to_json(path)
        elif kind == "markdown":
            self.to_markdown(path)
        else:
            _written(self._text(), path)
