"""Bearer tokens and join codes (service.crypto.tokens)."""

from __future__ import annotations

import hashlib
import re

from service.crypto.tokens import hash_token, new_join_code, new_token

URLSAFE = re.compile(r"[A-Za-z0-9_-]+")


def test_tokens_are_long_urlsafe_and_fresh() -> None:
    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50
    for token in tokens:
        assert URLSAFE.fullmatch(token)
        assert len(token) == 43  # 32 random bytes


def test_join_codes_are_shorter_urlsafe_and_fresh() -> None:
    codes = {new_join_code() for _ in range(50)}
    assert len(codes) == 50
    for code in codes:
        assert URLSAFE.fullmatch(code)
        assert len(code) == 16  # 12 random bytes
        assert len(code) < len(new_token())


def test_hash_token_is_sha256_hex_of_utf8() -> None:
    assert hash_token("abc") == hashlib.sha256(b"abc").hexdigest()
    assert hash_token("\u00e9") == hashlib.sha256("\u00e9".encode()).hexdigest()
    token = new_token()
    assert hash_token(token) == hash_token(token) != hash_token(new_token())
