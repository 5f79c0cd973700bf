"""Canonical JSON (RFC 8785) and SHA-256 hex: the byte forms that get signed and hashed.

Orders are signed over, and events chained over, exactly these bytes, so anyone
holding the log can recompute them with any RFC 8785 implementation.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, cast

import rfc8785

__all__ = ["canonical_bytes", "sha256_hex"]


def _plain(obj: object) -> object:
    """Turn any mapping into a dict and any tuple into a list, recursively."""
    if isinstance(obj, Mapping):
        return {key: _plain(value) for key, value in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(value) for value in obj]
    return obj


def canonical_bytes(obj: object) -> bytes:
    """RFC 8785 (JCS) canonical JSON of `obj` as UTF-8 bytes.

    Accepts None, bool, int, float, str, mappings with str keys, lists and tuples.
    Raises ValueError for anything without a canonical form: other types, non-str
    keys, NaN or infinities, integers outside +-(2**53 - 1), lone surrogates.
    """
    return rfc8785.dumps(cast(Any, _plain(obj)))


def sha256_hex(data: bytes) -> str:
    """SHA-256 of `data` as lowercase hex."""
    return hashlib.sha256(data).hexdigest()
