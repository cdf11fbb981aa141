"""Counted nouns in command output ("1 cohort", "2 cohorts"); called by the command modules."""

from __future__ import annotations

IRREGULAR = {"priority class": "priority classes", "was": "were"}


def plural(count: int, word: str) -> str:
    """``count`` and ``word``, plural unless the count is 1."""
    return f"{count} {word if count == 1 else IRREGULAR.get(word, word + 's')}"
