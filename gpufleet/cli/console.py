"""The one place the CLI makes rich consoles and tables (``plan``, ``diff``, ``rules``, ``explain``, ``lint``).

Called by the command modules that print rich output. Tables are read in CI logs and
pull-request comments as often as in a terminal, so a value is never cut:

- on a terminal, rich measures the terminal (``COLUMNS`` overrides it, as rich does);
- piped or in CI, ``COLUMNS`` when it is set, else no limit: a table is as wide as its
  widest row and a line is never wrapped;
- every table column folds a cell that does not fit onto the next line instead of ending
  it with an ellipsis (:func:`table`).

Prose (``explain``'s Markdown, whose headings span the whole width) keeps rich's own
width (the terminal's, ``COLUMNS``, else 80): :func:`prose_console`.
"""

from __future__ import annotations

import os
import sys
from typing import Iterable

from rich.console import Console
from rich.table import Table

UNBOUNDED = 100_000  # columns of a console that is not a terminal when COLUMNS is not set: no limit in practice


def columns() -> int | None:
    """``COLUMNS`` when it is a positive whole number, else None."""
    value = os.environ.get("COLUMNS", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


def table_width() -> int | None:
    """The width of a console for tables: None (rich measures) on a terminal, else ``COLUMNS`` or unbounded."""
    if sys.stdout.isatty():
        return None
    return columns() or UNBOUNDED


def table_console(**options) -> Console:
    """A console for tables and the lines around them (see the module docstring for its width)."""
    return Console(width=table_width(), highlight=False, **options)


def prose_console(**options) -> Console:
    """A console for Markdown and other prose: rich's own width (the terminal's, ``COLUMNS``, else 80)."""
    return Console(highlight=False, **options)


def table(
    title: str | None, header: Iterable[str], rows: Iterable[Iterable[str]] = (), right: Iterable[str] = ()
) -> Table:
    """A table whose cells fold onto further lines when narrow, never cut with "…"; ``right``: right-aligned columns."""
    aligned = set(right)
    result = Table(title=title, title_justify="left")
    for column in header:
        result.add_column(column, overflow="fold", justify="right" if column in aligned else "left")
    for cells in rows:
        result.add_row(*cells)
    return result
