"""The export as the checks read it: its commands in log order, the events each caused,
the trigger each must have given its dice, and what a partial export seals."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from service.answers import Export
from service.crypto import dice as crypto_dice

# What an honest export seals from a side while a reroll window is open: the answers
# (signed, given by a standing order, or by the GM for a side it plays) and the reroll
# standing orders armed ahead (docs/security.md, Sealed reroll answers).
SEALABLE_COMMANDS = ("initiative.reroll", "standing", "admin.act")
SEALABLE_EVENTS = ("initiative.reroll_answered", "standing.answered", "standing.armed",
                   "gm.played")
# The events that close a reroll window (or say a turn has none): nothing before the
# newest of them is sealed any more.
WINDOW_CLOSED = ("initiative.reroll_closed",)


def sealed_envelope(c: Mapping[str, Any]) -> bool:
    return bool((c.get("signed") or {}).get("sealed")) or c.get("body") == {"sealed": True}


def trigger_of(c: Mapping[str, Any]) -> str:
    """What the command gave its dice: the hash of its signature, or nothing (a command
    with no signature rolls with the previous roll's trigger). Never the trigger the
    export claims: that is checked against this."""
    envelope = c.get("signed")
    if not envelope or envelope.get("sealed") or "signature" not in envelope:
        return ""
    return crypto_dice.trigger_of(str(envelope["signature"]))


@dataclass
class Record:
    commands: list[dict[str, Any]]  # by first event
    events: dict[int, Mapping[str, Any]]  # by seq
    spans: dict[int, range] = field(default_factory=dict)  # first event -> its events
    sealed_events: set[int] = field(default_factory=set)
    sealed_commands: set[int] = field(default_factory=set)  # first events
    sealed_orders: int = 0

    @property
    def sealed(self) -> bool:
        return bool(self.sealed_events or self.sealed_commands or self.sealed_orders)

    def command_of(self, seq: int) -> dict[str, Any] | None:
        return next((c for c in self.commands if seq in self.spans[int(c["first_event"])]),
                    None)


def read(export: Export) -> Record:
    commands = sorted(export["commands"], key=lambda c: int(c["first_event"]))
    events: dict[int, Mapping[str, Any]] = {int(e["seq"]): e for e in export["events"]}
    head = max(events, default=0)
    firsts = [int(c["first_event"]) for c in commands] + [head + 1]
    record = Record(commands, events, {first: range(first, nxt) for first, nxt
                                       in zip(firsts, firsts[1:], strict=False)})
    record.sealed_events = {seq for seq, e in events.items() if e.get("sealed")}
    record.sealed_commands = {int(c["first_event"]) for c in commands if sealed_envelope(c)}
    record.sealed_orders = sum(1 for o in export["orders"]
                               if o.get("sealed") or "signature" not in o)
    return record
