"""Players' keys as the log proves them, not as the export lists them: a player's first
key is the one its signed join registered (its id is that key's), and each later key
is tied to the `player.key_replaced` event that bound it and to the command behind it:
the player's consent signed by the key it replaces (the GM's `admin.replace_key` with
it, or the player's own `seat.new_key`), or the GM's act (signed, in a game with a GM
key) and the time from which the new key may sign (`effective_at`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.answers import Export
from service.crypto import identity, signing
from service.verify.record import Record


@dataclass(frozen=True, slots=True)
class Key:
    public_key: str
    from_seq: int  # signs commands whose first event comes after this event
    effective_at: str | None  # and applied at or after this time


@dataclass
class Keys:
    """Every player's proven keys, and the keys bound on the host's word alone (by an
    unsigned GM act without the player's consent, in a game with no GM key)."""

    of: dict[str, list[Key]]
    on_word: list[str]

    def signer(self, player: str, first_event: int, at: str,
               problems: list[str]) -> str | None:
        """The key `player` signed with for a command whose first event is `first_event`,
        applied at `at`: the newest key bound before it, if it was in force."""
        valid = [k for k in self.of.get(player, []) if k.from_seq < first_event]
        if not valid:
            return None
        key = valid[-1]
        if key.effective_at and datetime.fromisoformat(key.effective_at) > \
                datetime.fromisoformat(at):
            problems.append(f"{player} ordered at {at} with a key in force only from "
                            f"{key.effective_at}")
        return key.public_key


def _replaced(record: Record, c: Mapping[str, Any]) -> Mapping[str, Any] | None:
    return next((record.events[seq] for seq in record.spans[int(c["first_event"])]
                 if seq in record.events
                 and record.events[seq]["kind"] == "player.key_replaced"), None)


def proven(export: Export, record: Record, problems: list[str]) -> Keys:
    """Walk the commands in log order, binding each key where the log proves it."""
    game = export["game"]["id"]
    keys = Keys({}, [])
    bound: set[int] = set()
    for c in record.commands:
        envelope = c.get("signed") or {}
        join = envelope.get("join")
        if c["kind"] in ("seat.take", "seat.substitute") and isinstance(join, Mapping):
            player = identity.player_id_of(str(join["public_key"]))
            keys.of.setdefault(player, [Key(str(join["public_key"]), 0, None)])
        if c["kind"] not in ("admin.replace_key", "seat.new_key"):
            continue
        event = _replaced(record, c)
        if event is None:
            continue  # the replay finds a key replacement that bound no key
        bound.add(int(event["seq"]))
        data = event["data"]
        player = str(data.get("player_id"))
        held = keys.of.get(player)
        if not held:
            problems.append(f"event {event['seq']}: a key bound for {player}, who never "
                            "joined")
            continue
        new = str(data.get("public_key"))
        if data.get("consented") is True:
            consent = c["body"].get("consent")
            if not (isinstance(consent, str) and signing.verify(
                    held[-1].public_key, identity.signing_bytes(identity.consent_object(
                        game, player, new)), consent)):
                problems.append(f"event {event['seq']}: a key bound \"with consent\" that "
                                f"{player}'s key never gave")
        elif not c.get("signed"):
            keys.on_word.append(player)
        effective = data.get("effective_at")
        held.append(Key(new, int(event["seq"]), str(effective) if effective else None))
    for seq, event in record.events.items():
        if event["kind"] == "player.key_replaced" and seq not in bound \
                and seq not in record.sealed_events:
            problems.append(f"event {seq}: a key bound by no key replacement")
    return keys


def listed(export: Export, keys: Keys, problems: list[str]) -> None:
    """The export's players and their key lists are the ones the log proves (an import
    takes them as listed)."""
    for p in export["players"]:
        found = keys.of.get(str(p["id"]))
        if found is None:
            problems.append(f"player {p['id']} never joined with a signed join")
            continue
        given = p.get("keys") or [{"public_key": p["public_key"], "from_seq": 0}]
        if [(str(k["public_key"]), int(k["from_seq"])) for k in given] != \
                [(k.public_key, k.from_seq) for k in found] \
                or p["public_key"] != found[-1].public_key:
            problems.append(f"player {p['id']}: the keys listed are not the ones the log "
                            "binds")
