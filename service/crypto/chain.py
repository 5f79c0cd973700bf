"""The event hash chain (docs/dice.md): how each logged event commits to all before it.

hash = sha256(prev_hash_hex + RFC 8785 canonical JSON of the event without "hash"),
and the first event chains from sha256(game_id). Editing, dropping, reordering or
inserting a stored event breaks every hash from that point on.

Views may annotate an event with `"rolled_back": true` (it was abandoned by a later
rollback event, which names it): like "hash", that key is not hashed, and a verifier
checks it against the rollback events instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.crypto.canonical import canonical_bytes, sha256_hex

__all__ = ["ANNOTATIONS", "event_hash", "genesis_hash", "verify_chain"]

ANNOTATIONS = ("hash", "rolled_back")
"""Keys of a served event that are not part of what its hash covers."""


def genesis_hash(game_id: str) -> str:
    """The hash the first event of a game chains from: sha256(utf8(game_id)), hex."""
    return sha256_hex(game_id.encode("utf-8"))


def event_hash(prev_hash: str, event: Mapping[str, object]) -> str:
    """The hash of `event` chained after `prev_hash`; its "hash" and "rolled_back" keys
    are ignored."""
    body = {key: value for key, value in event.items() if key not in ANNOTATIONS}
    return sha256_hex(prev_hash.encode("utf-8") + canonical_bytes(body))


def verify_chain(game_id: str, events: Sequence[Mapping[str, object]]) -> int | None:
    """Index of the first bad event in a whole log, or None if every event checks out.

    An event is bad when its "seq" is not the next integer counting from 1, when its
    "hash" is not the chained hash, or when it has no canonical JSON form.
    """
    prev = genesis_hash(game_id)
    for index, event in enumerate(events):
        seq = event.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq != index + 1:
            return index
        stored = event.get("hash")
        try:
            expected = event_hash(prev, event)
        except ValueError:
            return index
        if not isinstance(stored, str) or stored != expected:
            return index
        prev = stored
    return None
