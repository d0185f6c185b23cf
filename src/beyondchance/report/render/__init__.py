"""The renderers of a report and of a comparison: the terminal (rich: :mod:`.terminal`,
:mod:`.terminal_comparison`), one self-contained HTML page (:mod:`.html`), Markdown
(:mod:`.markdown`) and the matplotlib figures (:mod:`.plots`).  Each is a function of a built
:class:`~beyondchance.Report` or :class:`~beyondchance.Comparison`: nothing here computes a
statistic.  The package imports none of its modules (each is imported where it is used)."""
