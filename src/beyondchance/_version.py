"""The package version (read by pyproject: ``beyondchance.__version__``)."""

__version__ = "0.1.0"
