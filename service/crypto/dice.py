"""Verifiable dice (DESIGN 4.2): turn seeds, their commitments, and die values.

A die is HMAC-SHA256 of a message naming the game, turn, roll, die, purpose and the
chain hash before the roll, keyed by the turn's secret seed; its value comes from the
digest by rejection sampling, so every face is exactly equally likely. Once the seed
is revealed anyone can recompute every roll from the log with hashlib and hmac alone.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

__all__ = [
    "MAX_FACES",
    "MIN_FACES",
    "commitment",
    "die_value",
    "new_seed",
    "roll_dice",
    "roll_message",
    "seeded_recommit_seed",
    "seeded_turn_seed",
]

_SEED_BYTES = 32
MIN_FACES = 2
"""Fewest faces a die may have."""
MAX_FACES = 100
"""Most faces a die may have (a d100 still wastes few bytes to rejection)."""


def new_seed() -> bytes:
    """A fresh secret 32-byte turn seed (fair mode)."""
    return secrets.token_bytes(_SEED_BYTES)


def commitment(seed: bytes) -> str:
    """The commitment logged before a turn's first roll: sha256(seed), lowercase hex."""
    return hashlib.sha256(seed).hexdigest()


def seeded_turn_seed(master_seed: bytes, turn: int) -> bytes:
    """Seeded mode's seed for `turn`: HMAC-SHA256(key=master_seed, msg="turn|{turn}")."""
    return _hmac(master_seed, f"turn|{turn}".encode())


def seeded_recommit_seed(master_seed: bytes, turn: int, epoch: int) -> bytes:
    """Seeded mode's seed for the rest of `turn` after its `epoch`-th new commitment
    (a rollback past the turn's reveal): HMAC-SHA256(master_seed, "turn|{turn}|{epoch}")."""
    return _hmac(master_seed, f"turn|{turn}|{epoch}".encode())


def roll_message(
    game_id: str,
    turn: int,
    roll_index: int,
    die_index: int,
    purpose: str,
    chain_hash: str,
) -> str:
    """The HMAC message of die `die_index` of roll `roll_index` of `turn`."""
    return f"{game_id}|{turn}|{roll_index}|{die_index}|{purpose}|{chain_hash}"


def die_value(seed: bytes, message: str, faces: int = 10) -> int:
    """The value, 1..faces, of the die named by `message` under `seed`.

    Takes the first digest byte b below the largest multiple of `faces` that fits in a
    byte (250 for a d10) and returns (b % faces) + 1; a digest with no such byte is
    re-hashed as HMAC-SHA256(key=seed, msg=digest) until one has. Raises ValueError
    unless 2 <= faces <= 100.
    """
    if isinstance(faces, bool) or not MIN_FACES <= faces <= MAX_FACES:
        raise ValueError(f"faces must be in {MIN_FACES}..{MAX_FACES}, got {faces!r}")
    return _value_from_digest(seed, _hmac(seed, message.encode()), faces)


def roll_dice(
    seed: bytes,
    *,
    game_id: str,
    turn: int,
    roll_index: int,
    purpose: str,
    chain_hash: str,
    count: int,
    faces: int = 10,
) -> list[int]:
    """The values of the `count` dice of one roll, die j from roll_message(..., j, ...)."""
    if count < 0:
        raise ValueError(f"count must not be negative, got {count}")
    return [
        die_value(
            seed,
            roll_message(game_id, turn, roll_index, die_index, purpose, chain_hash),
            faces,
        )
        for die_index in range(count)
    ]


def _hmac(key: bytes, msg: bytes) -> bytes:
    return hmac.new(key, msg, hashlib.sha256).digest()


def _value_from_digest(seed: bytes, digest: bytes, faces: int) -> int:
    """Rejection-sample a die value from `digest`, re-hashing while no byte qualifies."""
    bound = 256 - 256 % faces
    while True:
        for byte in digest:
            if byte < bound:
                return byte % faces + 1
        digest = _hmac(seed, digest)
