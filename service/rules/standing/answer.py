"""The server answering ahead for the sides (issue 20): after every command `decide`
runs `answer`, which, while the game awaits a side at a step for which the side holds an
answer, gives it: first what a `steps` order holds (done in its later steps of the
impulse), then a standing order. Before answering it checks the order's stop
conditions; when one holds the order is disarmed instead (`standing.disarmed`, with
the reason) and the side is asked as usual. Each answer is a `standing.answered` event
naming the order, followed by the step's own events (`side.done`, or the sealed
`initiative.reroll_answered`, salted by the referee through the command's
`extra.standing_salts`).

Pure and deterministic: what it answers follows from the state and the command, so a
replay of the log answers alike. In the reaction step only the side whose turn it is
to react is answered (RULES-NOTES 31).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from service.rules import state as st
from service.rules.awaiting import awaiting
from service.rules.command import Actor, Command
from service.rules.errors import RulesError
from service.rules.flow import Flow
from service.rules.standing.orders import IMPULSE_STEPS
from service.rules.standing.stops import stop_holding
from service.rules.state import Held, Standing, State
from service.rules.turn import answer_reroll

Handler = Callable[[Flow, Command], None]
_LIMIT: Final = 10_000  # every answer moves the game on; this only stops a broken engine


def _first_to_react(s: State) -> str | None:
    return next((x for x in s.turn.step_sides if x not in s.turn.sides_done), None)


def _holds(s: State, held: Held, step: str) -> bool:
    """Whether `held` answers `step` now: its impulse, a step after `after` up to
    `through`."""
    if (held.turn, held.impulse) != (s.turn.number, s.turn.impulse) or step not in IMPULSE_STEPS:
        return False
    at = IMPULSE_STEPS.index(step)
    return IMPULSE_STEPS.index(held.after) < at <= IMPULSE_STEPS.index(held.through)


def _named(kind: str, side: str, step: str, player: str, seq: int | None) -> dict[str, Any]:
    return {"side": side, "step": step, "kind": kind, "player": player, "seq": seq}


def _who(player: str, seq: int | None) -> str:
    return f"order {seq} of {player}" if seq is not None else f"an order of {player}"


def _disarm(f: Flow, kind: str, side: str, step: str, player: str, seq: int | None,
            reason: str, stop: str | None) -> None:
    what = "standing order" if kind == "standing" else "steps held"
    f.emit("standing.disarmed", f"{side}'s {what} for {step} ({_who(player, seq)}) is "
           f"disarmed: {reason}; {side} is asked.",
           {**_named(kind, side, step, player, seq), "reason": reason, "stop": stop})


def _done(f: Flow, side: str, player: str, handlers: Mapping[str, Handler]) -> None:
    actor = Actor(id=player, role="gm" if player == "gm" else "player", side=side,
                  powers=f.state.side_powers(side))
    handlers["done"](f, Command(kind="done", body={}, actor=actor, at=f.at))


def _answer_done(f: Flow, kind: str, side: str, step: str, player: str, seq: int | None,
                 handlers: Mapping[str, Handler]) -> None:
    """`done` for `side`, named by its order; if the step refuses it (a combat waiting
    for its results, say), nothing of it stays and the order is disarmed with why."""
    kept = (len(f.events), f.state)
    f.emit("standing.answered", f"{side}: done with the {step} step by "
           f"{_who(player, seq)}.", _named(kind, side, step, player, seq), by=player)
    try:
        _done(f, side, player, handlers)
    except RulesError as refusal:
        del f.events[kept[0]:]
        del f.states[kept[0]:]
        f.state = kept[1]
        _disarm(f, kind, side, step, player, seq, f"the step refuses done: {refusal.message}",
                None)


def _answer_held(f: Flow, held: Held, step: str, handlers: Mapping[str, Handler]) -> None:
    stop = stop_holding(f.state, held.side, held.stops, held.hits_seen,
                        held.adjacent_seen)
    if stop is not None:
        _disarm(f, "steps", held.side, held.through, held.player, held.seq, stop[1], stop[0])
        return
    _answer_done(f, "steps", held.side, step, held.player, held.seq, handlers)


def _answer_standing(f: Flow, order: Standing, extra: Mapping[str, object],
                     handlers: Mapping[str, Handler]) -> None:
    stop = stop_holding(f.state, order.side, order.stops, order.hits_seen,
                        order.adjacent_seen)
    if stop is not None:
        _disarm(f, "standing", order.side, order.step, order.player, order.seq, stop[1],
                stop[0])
        return
    if order.step != st.REROLL:
        _answer_done(f, "standing", order.side, order.step, order.player, order.seq, handlers)
        return
    salts = extra.get("standing_salts")
    salt = salts.get(order.side, "") if isinstance(salts, Mapping) else ""
    f.emit("standing.answered", f"{order.side} answered the reroll window by a standing "
           "order (sealed).", _named("standing", order.side, order.step, order.player,
                                     order.seq), by=order.player)
    answer_reroll(f, order.side, order.demand, order.player, salt=str(salt))


def _once(f: Flow, extra: Mapping[str, object], handlers: Mapping[str, Handler]) -> bool:
    s = f.state
    if s.status != "active" or s.proposal is not None:
        return False
    for entry in awaiting(s):
        side, step = entry["side"], entry["step"]
        if step == st.REACTION and side != _first_to_react(s):
            continue
        held = s.standing.held.get(side)
        if held is not None and _holds(s, held, step):
            _answer_held(f, held, step, handlers)
            return True
        order = s.standing.orders.get(side, {}).get(step)
        if order is not None:
            _answer_standing(f, order, extra, handlers)
            return True
    return False


def answer(f: Flow, extra: Mapping[str, object], handlers: Mapping[str, Handler]) -> None:
    """Give every answer the sides hold for where the game now awaits them (see the
    module docstring); `handlers` are `decide`'s order handlers."""
    for _ in range(_LIMIT):
        if not _once(f, extra, handlers):
            return
    raise RuntimeError("standing orders answered without end")
