"""A game's summary: where it stands and who must act (docs/api.md, "Who must act").

Its state's part (`answers.StateSummary`: status, turn, step, who is awaited, position)
is written on the game row by the process that applies a change, with the head it
describes (`ledger.append`; the row keeps it as `Kept`). While that head is the row's, a
summary, a page of games, a page of the log or a live stream of the game needs rows
only: a serving process answers them for a big game (`reads.BIG`) without loading its
state, which only a worker holds (issue 33). A row whose summary is behind its head (an
order taken in one call, `one_call`, does not write it; a game from before migration
0014 has none) is summarized from the state, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from service.answers import Head, StateSummary, Summary
from service.referee.awaited import awaited
from service.rules import State, position
from service.rules.awaiting import AwaitingEntry
from service.store.models import GameRow
from service.store.uow import UnitOfWork


class Kept(StateSummary):
    """The state's summary as a game row keeps it (`games.summary`)."""

    # The entries of `awaiting` (their indexes) whose side may act now (`must_act`): not
    # part of the API's summary; the deadline reminders read it.
    acting: list[int]


def must_act(state: State) -> list[AwaitingEntry]:
    """The entries of `awaited` whose side may act now: in the Reaction step only the
    first side not yet done (the sides react one after the other, RULES-NOTES 31; the
    next is told when its turn comes); a combat's question is its side's to answer."""
    entries = awaited(state)
    return [e for e, acts in zip(entries, _acts(state, entries), strict=True) if acts]


def _acts(state: State, entries: list[AwaitingEntry]) -> list[bool]:
    t = state.turn
    if t.step == "reaction" and state.status == "active" and state.proposal is None:
        first = next((x for x in t.step_sides if x not in t.sides_done), None)
        return [e["step"] != "reaction" or e["side"] == first for e in entries]
    return [True] * len(entries)


def state_summary(state: State, head: Head) -> Kept:
    """The summary of `state`, the state after the event `head`."""
    turn, entries = state.turn, awaited(state)
    return {"head": head, "status": state.status,
            "scenario": state.setup.scenario.id, "turn": turn.number, "round": turn.round,
            "impulse": turn.impulse, "step": turn.step, "phasing_side": turn.phasing_side,
            "awaiting": entries, "position": position(state),
            "acting": [i for i, acts in enumerate(_acts(state, entries)) if acts]}


def current(row: GameRow) -> Kept | None:
    """The row's summary if it is of the row's head, else None."""
    kept = cast(Kept | None, row.summary)
    if kept is None or kept["head"] != {"seq": row.head_seq, "hash": row.head_hash}:
        return None
    return kept


async def state_summary_of(uow: UnitOfWork, row: GameRow) -> Kept:
    """The state's summary at the row's head: the row's when current, else from the
    game's state."""
    kept = current(row)
    if kept is not None:
        return kept
    game = await uow.games.with_state(row)
    return state_summary(game.state, {"seq": row.head_seq, "hash": row.head_hash})


def summary(row: GameRow, kept: Kept) -> Summary:
    """The game's summary: its row's facts and its state's summary."""
    found: dict[str, Any] = {"id": row.id, "name": row.name, **kept, "version": row.version,
                             "dice_mode": row.dice["mode"]}
    del found["acting"]
    return cast(Summary, found)


def acting(kept: Kept) -> list[AwaitingEntry]:
    """The entries of the summary's `awaiting` whose side may act now (`must_act`)."""
    return [kept["awaiting"][i] for i in kept["acting"]]


@dataclass(frozen=True, slots=True)
class _Turn:
    number: int
    step: str


@dataclass(frozen=True, slots=True)
class Moment:
    """What sealing an event depends on (`rules.view.is_sealed`), from a state's
    summary: the game's status, its turn's number and step."""

    status: str
    turn: _Turn

    @classmethod
    def of(cls, kept: Kept) -> Moment:
        return cls(kept["status"], _Turn(kept["turn"], kept["step"]))
