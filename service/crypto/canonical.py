"""Canonical JSON (RFC 8785) and SHA-256 hex: the byte forms that get signed and hashed.

Orders are signed over, and events chained over, exactly these bytes, so anyone
holding the log can recompute them with any RFC 8785 implementation.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, cast

import orjson
import rfc8785

__all__ = ["canonical_bytes", "sha256_hex"]


def _plain(obj: object) -> object:
    """Turn any mapping into a dict and any tuple into a list, recursively."""
    if isinstance(obj, Mapping):
        return {key: _plain(value) for key, value in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(value) for value in obj]
    return obj


_SAFE = 2**53 - 1


class _NotSimple(Exception):
    pass


def _simple(obj: object) -> object:
    """`_plain`, for JSON whose canonical form orjson writes byte for byte: object keys
    in ASCII (where UTF-16 and code point order agree), integers within +-(2**53 - 1),
    no other numbers (RFC 8785 writes those as ECMAScript does)."""
    if isinstance(obj, str) or obj is None or obj is True or obj is False:
        return obj
    if isinstance(obj, int):
        if -_SAFE <= obj <= _SAFE:
            return obj
        raise _NotSimple
    if isinstance(obj, Mapping):
        out = {}
        for key, value in obj.items():
            if not isinstance(key, str) or not key.isascii():
                raise _NotSimple
            out[key] = _simple(value)
        return out
    if isinstance(obj, list | tuple):
        return [_simple(value) for value in obj]
    raise _NotSimple


def canonical_bytes(obj: object) -> bytes:
    """RFC 8785 (JCS) canonical JSON of `obj` as UTF-8 bytes.

    Accepts None, bool, int, float, str, mappings with str keys, lists and tuples.
    Raises ValueError for anything without a canonical form: other types, non-str
    keys, NaN or infinities, integers outside +-(2**53 - 1), lone surrogates.

    What orders and events hold (ASCII keys, integers, text) is written by orjson with
    sorted keys, which gives the same bytes (its string escapes are RFC 8785's; a test
    holds the two to each other on generated JSON) several times faster; anything else
    by the reference implementation.
    """
    try:
        return orjson.dumps(_simple(obj), option=orjson.OPT_SORT_KEYS)
    except (_NotSimple, orjson.JSONEncodeError, TypeError):
        return rfc8785.dumps(cast(Any, _plain(obj)))


def sha256_hex(data: bytes) -> str:
    """SHA-256 of `data` as lowercase hex."""
    return hashlib.sha256(data).hexdigest()
