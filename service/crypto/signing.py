"""Ed25519 keys and signatures for orders (docs/api.md), and their base64url text form.

Keys travel as base64url (no padding) of the raw 32 bytes, signatures as base64url
of the raw 64 bytes. An order's signature covers `order_signing_bytes(order)`, the
RFC 8785 canonical bytes of the "order" object. `verify` is the only check run on
attacker input and never raises: anything malformed is simply not a valid signature.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from functools import lru_cache

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from service.crypto import edwards
from service.crypto.canonical import canonical_bytes

__all__ = [
    "InvalidKey",
    "b64url_decode",
    "b64url_encode",
    "new_private_key",
    "order_signing_bytes",
    "parse_public_key",
    "public_key_text",
    "sign",
    "verify",
]

_PUBLIC_KEY_BYTES = 32
_SIGNATURE_BYTES = 64

_B64URL_BODY = re.compile(r"[A-Za-z0-9_-]*")


class InvalidKey(ValueError):
    """A public key text that is not base64url of 32 raw bytes of an acceptable Ed25519
    key (canonical, of prime order)."""


def b64url_encode(data: bytes) -> str:
    """Base64url of `data` without "=" padding (RFC 4648 section 5)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Decode base64url, padded or not.

    Strict, so that one byte string has exactly one accepted text: raises ValueError
    for characters outside the URL-safe alphabet (including "+", "/" and whitespace),
    wrong padding, an impossible length, or non-zero unused trailing bits.
    """
    body = text.rstrip("=")
    padding = len(text) - len(body)
    if padding and (len(text) % 4 or padding > 2):
        raise ValueError("base64url: wrong padding")
    if not _B64URL_BODY.fullmatch(body):
        raise ValueError("base64url: character outside the URL-safe alphabet")
    if len(body) % 4 == 1:
        raise ValueError("base64url: impossible length")
    try:
        data = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except binascii.Error as exc:
        raise ValueError(f"base64url: {exc}") from exc
    if b64url_encode(data) != body:
        raise ValueError("base64url: non-canonical encoding (unused bits set)")
    return data


def parse_public_key(text: str) -> Ed25519PublicKey:
    """The Ed25519 public key in `text` (base64url of the raw 32 bytes); InvalidKey if
    not, and for keys no honest key generation makes: a non-canonical encoding, a point
    of small order (one signature would verify for every message) or one with a
    small-order part (libraries would disagree on its signatures); see
    `service.crypto.edwards`."""
    try:
        raw = b64url_decode(text)
    except ValueError as exc:
        raise InvalidKey(f"public key is not base64url: {exc}") from exc
    if len(raw) != _PUBLIC_KEY_BYTES:
        raise InvalidKey(f"public key must be {_PUBLIC_KEY_BYTES} raw bytes, got {len(raw)}")
    return _checked_key(raw)


@lru_cache(maxsize=4096)
def _checked_key(raw: bytes) -> Ed25519PublicKey:
    """The key of 32 raw bytes after the checks (about 1 ms, so cached: verifying an
    order parses its player's key again)."""
    try:
        point = edwards.decode(raw)
    except edwards.BadPoint as exc:
        raise InvalidKey(f"public key is not a valid Ed25519 key: {exc}") from None
    if edwards.has_small_order(point):
        raise InvalidKey("public key is a point of small order (a signature by it proves "
                         "nothing)")
    if not edwards.in_prime_subgroup(point):
        raise InvalidKey("public key has a small-order component (not a key that Ed25519 "
                         "key generation makes)")
    try:
        return Ed25519PublicKey.from_public_bytes(raw)
    except ValueError as exc:
        raise InvalidKey(f"public key is not a valid Ed25519 key: {exc}") from exc


def verify(public_key_b64: str, message: bytes, signature_b64: str) -> bool:
    """Whether `signature_b64` is a valid Ed25519 signature of `message` by the key.

    False, never an exception, for any malformed input: a bad key text, a signature
    that is not base64url or not 64 bytes, or arguments of the wrong type.
    """
    if not (
        isinstance(public_key_b64, str)
        and isinstance(message, bytes)
        and isinstance(signature_b64, str)
    ):
        return False
    try:
        key = parse_public_key(public_key_b64)
        signature = b64url_decode(signature_b64)
    except ValueError:
        return False
    if len(signature) != _SIGNATURE_BYTES or not edwards.canonical_scalar(signature[32:]):
        return False  # S >= L would make a second signature of the same message
    try:
        key.verify(signature, message)
    except InvalidSignature:
        return False
    return True


def sign(private_key: Ed25519PrivateKey, message: bytes) -> str:
    """Ed25519 signature of `message` as base64url without padding (deterministic)."""
    return b64url_encode(private_key.sign(message))


def public_key_text(private_key: Ed25519PrivateKey) -> str:
    """The public half of `private_key` as base64url of its raw 32 bytes."""
    raw = private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return b64url_encode(raw)


def new_private_key() -> Ed25519PrivateKey:
    """A fresh random Ed25519 private key (for clients, bots and tests)."""
    return Ed25519PrivateKey.generate()


def order_signing_bytes(order: Mapping[str, object]) -> bytes:
    """The message an order's signature covers: RFC 8785 canonical bytes of the order."""
    return canonical_bytes(order)
