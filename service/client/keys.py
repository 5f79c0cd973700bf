"""Private key files: the raw 32-byte Ed25519 seed, mode 0600 (never sent anywhere)."""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
)

from service.crypto import signing

__all__ = ["DEFAULT_KEY", "KeyFileError", "load_key", "public_key_of", "write_new_key"]

DEFAULT_KEY = Path(".wif") / "key.ed25519"
_RAW_BYTES = 32


class KeyFileError(Exception):
    """A key file that is missing, unreadable or not a raw Ed25519 key."""


def write_new_key(path: Path, overwrite: bool = False) -> Ed25519PrivateKey:
    """Make a fresh key and write its raw bytes to `path` (0600, created exclusively
    unless `overwrite`)."""
    key = signing.new_private_key()
    raw = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if overwrite else os.O_EXCL)
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError:
        raise KeyFileError(f"{path} exists; use --force to replace it") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(raw)
    os.chmod(path, 0o600)
    return key


def load_key(path: Path | str) -> Ed25519PrivateKey:
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise KeyFileError(f"cannot read key {path}: {error.strerror or error}") from None
    if len(raw) != _RAW_BYTES:
        raise KeyFileError(f"{path} is not a raw Ed25519 private key ({len(raw)} bytes, "
                           f"expected {_RAW_BYTES})")
    return Ed25519PrivateKey.from_private_bytes(raw)


def public_key_of(key: Ed25519PrivateKey) -> str:
    """The public key as the server wants it: base64url of the raw 32 bytes."""
    return signing.public_key_text(key)
