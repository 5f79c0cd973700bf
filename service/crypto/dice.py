"""Verifiable dice (docs/dice.md): a hash chain of turn seeds fixed when the game is
created, and die values that no server-chosen input can steer.

A chain is a secret root `x` and a length `n`: the seed of its k-th turn (k = 0 for the
turn it starts at) is `H^(n-1-k)(x)` and its anchor, logged when the chain is made, is
`H^n(x)`, with H = SHA-256 over raw bytes. Revealing a turn's seed at its end therefore
proves it was fixed from the start: it hashes to the anchor or to the seed revealed the
turn before, and nobody, the server included, can make another seed that does.

Die j of roll i of turn T is HMAC-SHA256(key=seed_T, msg="{game}|{T}|{i}|{j}|{purpose}|
{trigger}"), where `trigger` is the SHA-256 (hex) of the Ed25519 signature of the signed
command that made the roll: a value the server cannot compute before the player or GM
signs. Its value comes from the digest by rejection sampling, so every face is exactly
equally likely. Anyone can recompute every roll with hashlib and hmac alone.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets

from service.crypto.signing import b64url_decode

__all__ = [
    "ALGORITHM",
    "CHAIN_LENGTH",
    "MAX_FACES",
    "MIN_FACES",
    "anchor",
    "chain_seed",
    "die_value",
    "links",
    "new_root",
    "roll_dice",
    "roll_message",
    "seeded_root",
    "trigger_of",
]

ALGORITHM = "wif-dice/2"
"""The name of this scheme, logged with every game's dice."""
CHAIN_LENGTH = 1000
"""Turns one chain covers; a game that outlives it starts a new chain."""
_ROOT_BYTES = 32
MIN_FACES = 2
"""Fewest faces a die may have."""
MAX_FACES = 100
"""Most faces a die may have (a d100 still wastes few bytes to rejection)."""


def _h(data: bytes, times: int = 1) -> bytes:
    for _ in range(times):
        data = hashlib.sha256(data).digest()
    return data


def new_root() -> bytes:
    """A fresh secret 32-byte chain root (fair and scripted games)."""
    return secrets.token_bytes(_ROOT_BYTES)


def seeded_root(master_seed: bytes, chain: int) -> bytes:
    """Seeded games' root of chain `chain`: HMAC-SHA256(key=master_seed, msg="chain|{chain}")."""
    return _hmac(master_seed, f"chain|{chain}".encode())


def anchor(root: bytes, length: int = CHAIN_LENGTH) -> str:
    """The chain's commitment, logged when it is made: H^length(root), lowercase hex."""
    return _h(root, length).hex()


@functools.lru_cache(maxsize=1024)
def chain_seed(root: bytes, offset: int, length: int = CHAIN_LENGTH) -> bytes:
    """The seed of the chain's `offset`-th turn (0: the turn it starts at). Remembered:
    a turn's every roll needs it, and it costs up to `length` hashes (a process holds
    the roots of the games it serves anyway)."""
    if not 0 <= offset < length:
        raise ValueError(f"offset {offset} is outside a chain of {length} turns")
    return _h(root, length - 1 - offset)


def links(seed: bytes, link: str) -> bool:
    """Whether a revealed seed hashes to `link` (the anchor, or the seed of the turn
    before in the same chain)."""
    return hmac.compare_digest(hashlib.sha256(seed).hexdigest(), link)


def trigger_of(signature: str) -> str:
    """A signed command's contribution to its rolls: SHA-256 (hex) of the raw bytes of
    its base64url Ed25519 signature."""
    return hashlib.sha256(b64url_decode(signature)).hexdigest()


def roll_message(game_id: str, turn: int, roll_index: int, die_index: int, purpose: str,
                 trigger: str) -> str:
    """The HMAC message of die `die_index` of roll `roll_index` of `turn`."""
    return f"{game_id}|{turn}|{roll_index}|{die_index}|{purpose}|{trigger}"


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


def roll_dice(seed: bytes, *, game_id: str, turn: int, roll_index: int, purpose: str,
              trigger: str, count: int, faces: int = 10) -> list[int]:
    """The values of the `count` dice of one roll, die j from roll_message(..., j, ...)."""
    if count < 0:
        raise ValueError(f"count must not be negative, got {count}")
    return [die_value(seed, roll_message(game_id, turn, roll_index, j, purpose, trigger),
                      faces) for j in range(count)]


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
