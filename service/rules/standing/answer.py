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
to react is answered (RULES-NOTES 31); combat and exploitation orders answer only a side
that is not phasing (issue 30: never the side's own attacks). A final-reorganization
order spends first (`spend`) and lets no RP lapse past its `rps_lapse` stop; any `done`
it or a held step gives says what lapses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from service.rules import state as st
from service.rules.awaiting import awaiting
from service.rules.command import Actor, Command
from service.rules.errors import RulesError
from service.rules.flow import Flow
from service.rules.standing.orders import IMPULSE_STEPS, spend_words
from service.rules.standing.spend import spend
from service.rules.standing.stops import stop_holding
from service.rules.state import Held, Standing, State
from service.rules.turn import answer_reroll
from service.rules.turn.orders import lapsing

Handler = Callable[[Flow, Command], None]
# Standing orders for these steps answer only a side that is not phasing (issue 30): the
# defender's answers, never the phasing side's own attacks and exploitation.
_NOT_PHASING: Final = (st.COMBAT, st.EXPLOITATION)
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


def _lapse_words(s: State, side: str) -> str:
    """What the side's `done` lets lapse now, said in the answer (never silently)."""
    left = lapsing(s, side)
    if not left:
        return ""
    total = sum(left.values())
    return (f"; {total} unspent RP{'s' if total != 1 else ''} lapse ("
            + ", ".join(f"{p} {n}" for p, n in left.items()) + ")")


def _answer_done(f: Flow, kind: str, side: str, step: str, player: str, seq: int | None,
                 handlers: Mapping[str, Handler]) -> None:
    """`done` for `side`, named by its order; if the step refuses it (a combat waiting
    for its results, say), nothing of it stays and the order is disarmed with why."""
    kept = (len(f.events), f.state)
    f.emit("standing.answered", f"{side}: done with the {step} step by "
           f"{_who(player, seq)}{_lapse_words(f.state, side)}.",
           _named(kind, side, step, player, seq), by=player)
    _done_or_disarm(f, kept, kind, side, step, player, seq, handlers)


def _done_or_disarm(f: Flow, kept: tuple[int, State], kind: str, side: str, step: str,
                    player: str, seq: int | None, handlers: Mapping[str, Handler]) -> None:
    try:
        _done(f, side, player, handlers)
    except RulesError as refusal:
        del f.events[kept[0]:]
        del f.states[kept[0]:]
        f.state = kept[1]
        _disarm(f, kind, side, step, player, seq, f"the step refuses done: {refusal.message}",
                None)


def _answer_final(f: Flow, order: Standing, handlers: Mapping[str, Handler]) -> None:
    """The final reorganization (11.18): the order spends (its plan, then the cheapest way
    for every unit still face down), then, unless its `rps_lapse` stop holds (it is
    then disarmed and the side asked, what it spent kept), it is done."""
    side, player, seq = order.side, order.player, order.seq
    f.emit("standing.answered", f"{side}: the final reorganization step answered by "
           f"{_who(player, seq)}: it spends RPs ({spend_words(order.spend, order.plan)}), "
           "then is done.", _named("standing", side, order.step, player, seq), by=player)
    spend(f, order, handlers)
    lapse = stop_holding(f.state, side, [x for x in order.stops if x.kind == "rps_lapse"], 0)
    if lapse is not None:
        _disarm(f, "standing", side, order.step, player, seq, lapse[1], lapse[0])
        return
    kept = (len(f.events), f.state)
    _done_or_disarm(f, kept, "standing", side, order.step, player, seq, handlers)


def _answer_held(f: Flow, held: Held, step: str, handlers: Mapping[str, Handler]) -> None:
    stop = stop_holding(f.state, held.side, held.stops, held.hits_seen,
                        held.adjacent_seen)
    if stop is not None:
        _disarm(f, "steps", held.side, held.through, held.player, held.seq, stop[1], stop[0])
        return
    _answer_done(f, "steps", held.side, step, held.player, held.seq, handlers)


def _answer_standing(f: Flow, order: Standing, extra: Mapping[str, object],
                     handlers: Mapping[str, Handler]) -> None:
    before = [x for x in order.stops if x.kind != "rps_lapse"] \
        if order.step == st.FINAL_REORGANIZATION else order.stops
    stop = stop_holding(f.state, order.side, before, order.hits_seen, order.adjacent_seen)
    if stop is not None:
        _disarm(f, "standing", order.side, order.step, order.player, order.seq, stop[1],
                stop[0])
        return
    if order.step == st.FINAL_REORGANIZATION:
        _answer_final(f, order, handlers)
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
        if order is not None and not (step in _NOT_PHASING and side == s.turn.phasing_side):
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
