"""Who signed what, beyond an order: a player's id is derived from its public key (so
the server chooses no id that could enter a die), and what a join, a key-replacement
consent and a receipt sign (RFC 8785 bytes of a small object each)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from service.crypto.canonical import canonical_bytes
from service.crypto.signing import b64url_decode

GM = "gm"  # the `player` of the GM's signed acts


def player_id_of(public_key: str) -> str:
    """A player's id: the first 16 bytes (32 hex digits) of SHA-256 of its raw key."""
    return hashlib.sha256(b64url_decode(public_key)).hexdigest()[:32]


def join_object(game: str, side: str, name: str, public_key: str,
                powers: list[str] | None) -> dict[str, object]:
    """What a joining player signs with the key it registers (proving it holds it)."""
    return {"type": "wif-join/1", "game": game, "side": side, "name": name,
            "public_key": public_key, "powers": powers}


def consent_object(game: str, player: str, public_key: str) -> dict[str, object]:
    """What a player signs with its current key to agree to a new key."""
    return {"type": "wif-key-consent/1", "game": game, "player": player,
            "public_key": public_key}


def signing_bytes(obj: Mapping[str, object]) -> bytes:
    return canonical_bytes(obj)
