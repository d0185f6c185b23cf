"""How a :class:`~beyondchance.report.Report` or a comparison shows and saves itself:
``print(r)`` (the terminal table, no colours), the notebook's ``_repr_html_`` and
``_repr_markdown_``, and ``to_json`` / ``to_html`` / ``to_markdown`` / ``save`` — those of
every result (:class:`beyondchance._summary_display.Writable`), with the plots of the page.

The renderers are imported on use (matplotlib only when plots are drawn).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, overload

from .._summary_display import Writable, _written

__all__ = ["Exportable"]


class Exportable(Writable):
    """Mixin of the report and the comparison; subclasses define ``to_dict`` and the four
    renderings ``_text``, ``_html_fragment``, ``_html_page`` and ``_markdown``, the HTML
    ones with or without ``plots``."""

    if TYPE_CHECKING:
        def _html_fragment(self, plots: bool = False) -> str: ...

        def _html_page(self, plots: bool = True) -> str: ...

    def _repr_html_(self) -> str:
        return self._html_fragment(False)

    @overload
    def to_html(self, path: None = ..., *, plots: bool = ...) -> str: ...
    @overload
    def to_html(self, path: str | os.PathLike, *, plots: bool = ...) -> None: ...
    def to_html(self, path: str | os.PathLike | None = None, *, plots: bool = True) -> str | None:
        """A self-contained HTML page (plots as inline PNG unless ``plots=False``);
        written to ``path`` when given (then None is returned), else returned."""
        return _written(self._html_page(plots), path)
