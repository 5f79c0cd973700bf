"""The database's failures as the referee sees them."""

from __future__ import annotations


class Unavailable(Exception):
    """The database cannot be reached (retry shortly)."""


class BadData(Exception):
    """PostgreSQL refused a value it cannot store (say, a NUL character in text)."""
