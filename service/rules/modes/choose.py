"""Answering a combat's question (docs/api.md "Combat choices"): the `combat.choose`
order of the side asked, the default when its deadline passes (or the GM forces it, or
the side is in civil disorder), and a standing order armed for that kind of question.

    {"hex": "h21", "losses": ["cw-inf-1", "cw-inf-1"]}     which units take the losses
    {"hex": "h21", "retreat": ["h11", "h01"], "losses"?}   the retreat path (empty: none)
    {"hex": "h21", "advance": ["ger-arm-1"]}               who advances (empty: nobody)

A standing order answers a kind of question (`standing` with step `combat.losses`,
`combat.retreat` or `combat.advance` and its `answer`) with the same care a stop takes:
when its answer would cost more than it says (a unit eliminated by the losses, a
retreat into an enemy ZOC, an advance that overstacks), it is disarmed instead and the
side is asked (RULES-NOTES 32).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from service.rules.board import Board
from service.rules.command import Command
from service.rules.errors import Refused
from service.rules.flow import Flow
from service.rules.modes.items import malformed, refuse, strings, unknown_keys
from service.rules.modes.movement import stacking_problem
from service.rules.modes.resolve import (
    RULE,
    answered,
    default_answer,
    proceed,
    steps_left,
    task_data,
)
from service.rules.state import Question, Resolution, State

__all__ = ["CHOICE_STEPS", "STANDING_ANSWERS", "answer_by_default", "answer_by_standing",
           "choose"]
CHOICE_STEPS: Final = ("combat.losses", "combat.retreat", "combat.advance")
# What a standing order may answer to each kind of question.
STANDING_ANSWERS: Final[Mapping[str, tuple[str, ...]]] = {
    "combat.losses": ("default",), "combat.retreat": ("retreat", "losses"),
    "combat.advance": ("advance", "stay"),
}


def _pending(state: State) -> tuple[Resolution, Question] | None:
    res = state.modes.resolution
    if res is None or res.question is None:
        return None
    return res, res.question


def check_answer(state: State, res: Resolution, q: Question, body: Mapping[str, Any]
                 ) -> None:
    """Whether `body` answers `q`: one of its choices (409 otherwise, naming them)."""
    keys = ("hex", q.kind) + (("losses",) if q.kind == "retreat" else ())
    unknown_keys(body, keys, "/body")
    if body.get("hex") != res.hex:
        raise refuse("combat/other_combat", f"the question is about the {res.by} on "
                     f"{res.hex}, not {body.get('hex')!r}", rule=RULE, path="/body/hex")
    if q.kind not in body:
        raise malformed(f"the question asks for {q.kind}: {q.text}", path=f"/body/{q.kind}")
    path = f"/body/{q.kind}"
    if q.kind == "losses":
        named = strings(body["losses"], path, distinct=False)
        if len(named) != q.count:
            raise refuse("combat/not_a_choice", f"name {q.count} unit(s), one per step lost, "
                         f"among {', '.join(q.units)}", rule=RULE, path=path)
        for i, uid in enumerate(named):
            if uid not in q.units or uid not in state.units:
                raise refuse("combat/not_a_choice", f"{uid} is not one of the units that "
                             f"may take these losses ({', '.join(q.units)})", rule=RULE,
                             path=f"{path}/{i}", unit=uid)
            if named[:i + 1].count(uid) > steps_left(state, uid):
                raise refuse("combat/not_a_choice", f"{uid} has {steps_left(state, uid)} "
                             "step(s) left", rule=RULE, path=f"{path}/{i}", unit=uid)
    elif q.kind == "retreat":
        hexes = strings(body["retreat"], path, what="hex ids", empty=True)
        if tuple(hexes) not in q.paths:
            shown = "; ".join(" -> ".join(p) or "(none)" for p in q.paths)
            raise refuse("combat/not_a_choice", f"{' -> '.join(hexes) or 'no retreat'} is not "
                         f"a legal retreat of {', '.join(q.units)} from {res.hex}: the legal "
                         f"ones are {shown}", rule=RULE, path=path)
        strings(body.get("losses", []), "/body/losses", empty=True, distinct=False)
    else:
        units = strings(body["advance"], path, empty=True)
        for i, uid in enumerate(units):
            if uid not in q.units or uid not in state.units:
                raise refuse("combat/not_a_choice", f"{uid} is not one of the attackers that "
                             f"may advance ({', '.join(q.units)})", rule=RULE,
                             path=f"{path}/{i}", unit=uid)
        problem = _overstack(state, res.hex, units)
        if problem is not None:
            raise refuse("combat/stacking", problem, rule="docs/rules-options.md", path=path)


def _overstack(state: State, hex_id: str, units: Sequence[str]) -> str | None:
    sc = state.setup.scenario
    here = [u for u, x in state.units.items() if x.at == hex_id and u not in units]
    points = sum(sc.movement.stacking.points(sc.unit(u)) for u in [*here, *units])
    return stacking_problem(state, hex_id, points) if units else None


def _give(f: Flow, actor: str, body: Mapping[str, Any], how: str) -> None:
    res, q = _pending_or_fail(f.state)
    tasks = answered(res, body)
    answer = list(body.get(q.kind, []))
    f.emit("combat.answered", f"{q.side} answers the {res.by} on {res.hex} ({how}): "
           f"{_words(q, answer)}.",
           {"hex": res.hex, "kind": q.kind, "side": q.side, "answer": answer,
            "losses": list(body.get("losses", [])) if q.kind == "retreat" else [],
            "how": how, "tasks": [task_data(t) for t in tasks]}, by=actor)
    proceed(f, actor)


def _words(q: Question, answer: Sequence[str]) -> str:
    if q.kind == "retreat":
        return f"retreat {' -> '.join(answer)}" if answer else "no retreat: the options are " \
                                                               "step losses"
    if q.kind == "advance":
        return f"{', '.join(answer)} advance" if answer else "nobody advances"
    return f"losses on {', '.join(answer)}"


def _pending_or_fail(state: State) -> tuple[Resolution, Question]:
    found = _pending(state)
    if found is None:
        raise Refused("combat/no_choice", "no combat waits for a choice now", rule=RULE)
    return found


def choose(f: Flow, c: Command) -> None:
    """`combat.choose`: the side asked answers the question of the combat resolving."""
    res, q = _pending_or_fail(f.state)
    if c.actor.side != q.side:
        raise Refused("order/not_your_turn", f"{q.side} answers this question: {q.text}",
                      rule=RULE)
    check_answer(f.state, res, q, c.body)
    _give(f, c.actor.id, c.body, "chosen")


def answer_by_default(f: Flow, by: str, sides: frozenset[str] | None = None) -> int:
    """The default answer of the question waiting (deadline passed, the GM forcing it,
    civil disorder for `sides`): 1 if it answered, else 0."""
    found = _pending(f.state)
    if found is None or (sides is not None and found[1].side not in sides):
        return 0
    _give(f, by, {"hex": found[0].hex, **default_answer(found[1])}, f"default, by {by}")
    return 1


def _standing_body(state: State, res: Resolution, q: Question, answer: str
                   ) -> tuple[dict[str, Any] | None, str]:
    """What a standing order with `answer` gives, or why it asks instead."""
    body: dict[str, Any] = {"hex": res.hex}
    if q.kind == "losses":
        counts = {u: q.default.count(u) for u in q.default}
        lost = [u for u, n in counts.items() if n >= steps_left(state, u)]
        if lost:
            return None, f"the losses would eliminate {', '.join(sorted(lost))}"
        body["losses"] = list(q.default)
        return body, ""
    if q.kind == "retreat":
        board = Board.from_state(state)
        power = state.units[q.units[0]].power
        clean = [p for p in q.paths if not any(board.enemy_zoc(h, power) for h in p)]
        pick = max(clean, key=len, default=None) if answer == "retreat" else \
            min(clean, key=len, default=None)
        if pick is None or (answer == "retreat" and not pick):
            return None, "no retreat path avoids every enemy ZOC"
        body["retreat"] = list(pick)
        return body, ""
    units = list(q.units) if answer == "advance" else []
    problem = _overstack(state, res.hex, units)
    if problem is not None:
        return None, problem
    body["advance"] = units
    return body, ""


def answer_by_standing(f: Flow) -> bool:
    """A standing order of the side asked answers the question (or, when its care
    holds, is disarmed and the side asked): True if it did either."""
    found = _pending(f.state)
    if found is None:
        return False
    res, q = found
    step = f"combat.{q.kind}"
    order = f.state.standing.orders.get(q.side, {}).get(step)
    if order is None:
        return False
    named = {"side": q.side, "step": step, "kind": "standing", "player": order.player,
             "seq": order.seq}
    who = f"order {order.seq} of {order.player}" if order.seq is not None else \
        f"an order of {order.player}"
    body, why = _standing_body(f.state, res, q, order.answer or "")
    if body is None:
        f.emit("standing.disarmed", f"{q.side}'s standing order for {step} ({who}) is "
               f"disarmed: {why}; {q.side} is asked.", {**named, "reason": why, "stop": None})
        return True
    f.emit("standing.answered", f"{q.side} answers the {res.by} on {res.hex} by a standing "
           f"order ({who}).", named, by=order.player)
    _give(f, order.player, body, f"standing order, {order.answer}")
    return True
