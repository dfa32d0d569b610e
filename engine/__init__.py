"""Knapper: a data-driven rules interpreter for tabletop card and board games."""

__version__ = "0.1.0"
