"""How an air reorganization mission's facts change the state (11.18.1)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from service.rules.events import Event, EventKind
from service.rules.reorg import counters, period_key
from service.rules.state import AirMission, AirQuestion, Evolver, Sortie, State


def _air(state: State) -> AirMission:
    assert state.air is not None
    return state.air


def _with(state: State, **changes: Any) -> State:
    return replace(state, air=replace(_air(state), **changes))


def _began(state: State, e: Event) -> State:
    return replace(state, air=AirMission(side=str(e.data["side"]), window="",
                                         targets=tuple(e.data["targets"])))


def _opened(state: State, e: Event) -> State:
    return _with(state, window=str(e.data["window"]), sides=tuple(e.data["sides"]),
                 answered=(), opened_at=e.at)


def _flew(state: State, side: str, window: str, flying: list[Sortie], **more: Any) -> State:
    m = _air(state)
    answered = (*m.answered, side)
    closed = set(m.sides) <= set(answered)
    return _with(state, sorties=(*m.sorties, *flying), answered=answered,
                 window="" if closed else window, **more)


def _placed(side: str, role: str, placed: Any) -> list[Sortie]:
    return [Sortie(str(p["unit"]), str(p["hex"]), role, side) for p in placed]


def _patrolled(state: State, e: Event) -> State:
    side = str(e.data["side"])
    return _flew(state, side, str(e.data["window"]), _placed(side, "patrol", e.data["patrols"]))


def _flown(state: State, e: Event) -> State:
    d = e.data
    side = str(d["side"])
    flying = [Sortie(str(x["atr"]), str(x["hex"]), "atr", side) for x in d["flights"]]
    items = tuple((str(u), str(x["atr"])) for x in d["flights"] for u in x["units"])
    return _flew(state, side, str(d["window"]),
                 flying + _placed(side, "escort", d["escorts"]), power=d["power"],
                 items=items)


def _intercepted(state: State, e: Event) -> State:
    d = e.data
    side = str(d["side"])
    role = "intercept" if d["window"] == "air.intercept" else "counter"
    return _flew(state, side, str(d["window"]), _placed(side, role, d["interceptors"]))


def _resolved(state: State, e: Event) -> State:
    m = _air(state)
    due = tuple((str(d["side"]), int(d["lost"]), int(d["aborted"])) for d in e.data["due"])
    return _with(state, fought=(*m.fought, str(e.data["key"])), due=due)


def _asked(state: State, e: Event) -> State:
    q = e.data["question"]
    question = AirQuestion(side=q["side"], hex=q["hex"], against=q["against"],
                           lost=int(q["lost"]), aborted=int(q["aborted"]),
                           units=tuple(q["units"]), default=tuple(q["default"]),
                           asked_at=q["asked_at"], text=q["text"])
    return _with(state, window="air.choice", sides=(question.side,), answered=(),
                 opened_at=e.at, question=question)


def _answered(state: State, e: Event) -> State:
    return _with(state, window="", answered=(str(e.data["side"]),), question=None)


def _fates(state: State, fates: dict[str, str], hex_id: str | None = None) -> State:
    m = _air(state)
    sorties = tuple(replace(s, fate=fates[s.unit]) if s.unit in fates
                    and (hex_id is None or s.hex == hex_id) else s for s in m.sorties)
    return _with(state, sorties=sorties)


def _losses(state: State, e: Event) -> State:
    d = e.data
    fates = {**{u: "lost" for u in d["lost"]}, **{u: "aborted" for u in d["aborted"]}}
    state = _fates(state, fates, str(d["hex"]))
    return _with(state, due=_air(state).due[1:])


def _aa(state: State, e: Event) -> State:
    result = str(e.data["result"])
    if not result:
        return state
    return _fates(state, {str(e.data["atr"]): "lost" if result == "eliminated" else "aborted"})


def _ended(state: State, e: Event) -> State:
    """Step 8: home, face down; the side's air reorganization of the step is flown."""
    units = dict(state.units)
    for uid in e.data["returned"]:
        if uid in units:
            units[uid] = replace(units[uid], face_up=False)
    t = state.turn
    period = period_key(t.number, t.impulse, t.step)
    r = counters(state.reorg, period)
    key = f"air:{e.data['side']}"
    reorg = replace(r, used={**r.used, key: r.used.get(key, 0) + 1})
    return replace(state, units=units, air=None, reorg=reorg)


EVOLVE: dict[EventKind, Evolver] = {
    "air.mission_began": _began,
    "air.window_opened": _opened,
    "air.patrolled": _patrolled,
    "air.flown": _flown,
    "air.intercepted": _intercepted,
    "air.combat_resolved": _resolved,
    "air.asked": _asked,
    "air.answered": _answered,
    "air.losses_taken": _losses,
    "air.aa_fired": _aa,
    "air.mission_ended": _ended,
}
