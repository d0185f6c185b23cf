"""The version of beyondchance (read by the build and by the HTML report)."""

__version__ = "0.1.0"
