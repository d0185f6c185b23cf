"""The package version, in one place: setuptools reads it (pyproject:
``beyondchance._version.__version__``); the top package re-exports it as
``beyondchance.__version__``."""

__version__ = "0.1.0"
