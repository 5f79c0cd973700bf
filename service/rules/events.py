"""Events: the facts of a game, in the past tense (`turn.began`, `power.declared`).

An event carries its position (turn, impulse, step: where the game stands once it has
happened, so "Impulse 3 begins" is labelled impulse 3), who
caused it (`actor`: "server", "clock", "gm", or a player id), a sentence for people
and structured `data` for programs. The referee adds `seq`, `rules_version` and `hash`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, cast, get_args

from typing_extensions import TypedDict

# The rules that decide a game's events: every event records the version that decided
# it, and `verify` decides again only events of its own version (docs/game-master.md
# "Rules versions"). 2 (0.5.0): combats decided by the scenario's tables, standing
# orders that answer only what their name says, reorganization as the seeds say it.
RULES_VERSION = "2"

# Every kind of fact the rules log, by part of the game.
EventKind = Literal[
    # the game's life, seats and the GM (docs/game-master.md)
    "game.created", "seat.taken", "game.started", "game.paused", "game.resumed",
    "game.ended", "deadlines.set", "deadline.passed", "default.forced", "side.dropped_out",
    "side.returned", "side.restored", "state.edited", "player.key_replaced", "seat.reopened",
    "seat.substituted", "gm.played", "rollback.proposed", "rollback.consented",
    "rollback.refused", "rollback.withdrawn", "game.rolled_back", "game.imported",
    # dice (docs/dice.md)
    "dice.committed", "dice.rolled", "dice.revealed", "dice.recommitted",
    # the turn (seed 002)
    "turn.began", "initiative.rolled", "initiative.reroll_answered",
    "initiative.reroll_closed", "initiative.ranked", "initiative.chosen", "turn.order_set",
    "round.began", "weather.set", "weather.table_set", "impulse.began", "step.began",
    "step.skipped", "side.skipped", "power.declared", "side.done", "impulse.cleaned_up",
    "rps.granted", "turn_end.rolled", "impulse.ended", "turn.ended", "initiative.shifted",
    "production.submitted", "production.applied",
    # reorganization (11.18)
    "unit.reorganized", "port.repaired", "rps.lapsed",
    # OCS modes (seed 004) and what is reported of the table
    "unit.mode_changed", "reserves.released", "report.filed", "unit.moved", "unit.worked",
    "combat.reported", "combat.result_ignored", "hex.disorganized", "reserve.removed",
    "units.retreated", "units.advanced", "unit.step_lost", "unit.eliminated",
    "units.exploit_awarded", "units.turned_face_down", "units.shattered", "unit.flew_mission",
    "combat.rolled", "combat.closed",
    # combats the scenario's tables decide, and the choices they leave (issue 29)
    "combat.resolved", "combat.asked", "combat.answered", "combat.no_retreat",
    # standing orders and steps given ahead (issue 20)
    "standing.armed", "standing.answered", "standing.disarmed",
    # air reorganization missions flown as 11.18.1 says (issue 31)
    "air.mission_began", "air.window_opened", "air.window_skipped", "air.patrolled",
    "air.flown", "air.intercepted", "air.combat_resolved", "air.asked", "air.answered",
    "air.losses_taken", "air.aa_fired", "air.mission_ended",
]
EVENT_KINDS: frozenset[str] = frozenset(get_args(EventKind))


class EventRecord(TypedDict):
    """An event as it is stored, hashed and shown (docs/api.md "The log"): `hash` chains
    it to the one before; `rolled_back` marks one a later rollback abandoned and
    `sealed` one whose content is withheld from the reader until its window closes
    (neither is hashed)."""

    seq: int
    turn: int
    impulse: int
    step: str
    kind: EventKind
    actor: str
    text: str
    data: dict[str, Any]
    at: str
    rules_version: str
    hash: NotRequired[str]
    rolled_back: NotRequired[bool]
    sealed: NotRequired[bool]


@dataclass(frozen=True, slots=True)
class Event:
    kind: EventKind
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    actor: str = "server"
    turn: int = 0
    impulse: int = 0
    step: str = "join"
    at: str = ""

    def record(self, seq: int) -> EventRecord:
        """The event as it is stored and hashed (without `hash`)."""
        return {
            "seq": seq,
            "turn": self.turn,
            "impulse": self.impulse,
            "step": self.step,
            "kind": self.kind,
            "actor": self.actor,
            "text": self.text,
            "data": self.data,
            "at": self.at,
            "rules_version": RULES_VERSION,
        }

    @classmethod
    def from_record(cls, record: EventRecord | dict[str, Any]) -> Event:
        return cls(
            kind=cast(EventKind, record["kind"]),
            text=record["text"],
            data=record["data"],
            actor=record["actor"],
            turn=record["turn"],
            impulse=record["impulse"],
            step=record["step"],
            at=record["at"],
        )
