"""Bearer tokens and join codes: random text handed out once, stored only as a hash."""

from __future__ import annotations

import hashlib
import secrets

__all__ = ["hash_token", "new_join_code", "new_token"]


def new_token() -> str:
    """A fresh bearer token (256 random bits, URL-safe text)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """The stored form of a token: SHA-256 of its UTF-8 text, lowercase hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_join_code() -> str:
    """A fresh join code for one side's seat (96 random bits, shorter to share by hand)."""
    return secrets.token_urlsafe(12)
