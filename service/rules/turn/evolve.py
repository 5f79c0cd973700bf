"""How the turn's facts change the state (`evolve` handlers of the turn package)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from service.rules import state as st
from service.rules.events import Event, EventKind
from service.rules.modes import impulse_marks_cleared
from service.rules.state import Chain, Evolver, State


def _turn(state: State, **changes: Any) -> State:
    return replace(state, turn=replace(state.turn, **changes))


def _ini(state: State, **changes: Any) -> State:
    return replace(state, initiative=replace(state.initiative, **changes))


def _started(state: State, e: Event) -> State:
    return replace(state, status="active")


def _turn_began(state: State, e: Event) -> State:
    number = int(e.data["turn"])
    pending = state.weather_pending
    if pending is not None and pending[0] <= number:  # the GM's table for this turn on
        state = replace(state, weather_override=pending[1], weather_pending=None)
    turn = st.TurnState(
        threshold=state.turn.threshold,
        number=number,
        step=st.REROLL,
        impulses_taken={s: 0 for s in state.setup.sides},
        step_started_at=e.at,
    )
    powers = {p: replace(ps, declared=None, chit=None, production=None, rps=0)
              for p, ps in state.powers.items()}
    ini = st.InitiativeState(boxes=state.initiative.boxes,
                             last_turn_rank=state.initiative.last_turn_rank)
    return replace(state, turn=turn, powers=powers, initiative=ini,
                   dice=replace(state.dice, rolls_this_turn=0))


def _committed(state: State, e: Event) -> State:
    """A new chain of seeds (at creation, after a rollback past a reveal, on import):
    from its first turn on, turns' seeds are its own (docs/dice.md)."""
    d = e.data
    chain = Chain(int(d["chain"]), int(d["from_turn"]), str(d["anchor"]), int(d["length"]))
    first = chain.from_turn
    dice = state.dice
    return replace(state, dice=replace(
        dice, chains=(*dice.chains, chain),
        commitments={**{t: c for t, c in dice.commitments.items() if t < first},
                     first: chain.anchor},
        revealed={t: s for t, s in dice.revealed.items() if t < first},
        elsewhere=tuple(t for t in dice.elsewhere if t < first)))


def _rolled(state: State, e: Event) -> State:
    used = dict(state.dice.script_used)
    if e.data.get("scripted"):
        used[e.data["purpose"]] = used.get(e.data["purpose"], 0) + int(e.data["scripted"])
    return replace(state, dice=replace(state.dice, rolls_this_turn=state.dice.rolls_this_turn + 1,
                                       script_used=used, trigger=str(e.data["trigger"])))


def _revealed(state: State, e: Event) -> State:
    """The turn's seed; the next turn's seed, in the same chain, must hash to it."""
    turn = int(e.data["turn"])
    dice = state.dice
    commitments = dict(dice.commitments)
    chain = dice.chain_of(turn)
    if chain is not None and chain.covers(turn + 1):
        commitments[turn + 1] = str(e.data["seed"])
    return replace(state, dice=replace(dice, revealed={**dice.revealed, turn: e.data["seed"]},
                                       commitments=commitments))


def _ini_rolled(state: State, e: Event) -> State:
    return _ini(state, dice=dict(e.data["dice"]), totals=dict(e.data["totals"]),
                rerolled=bool(e.data["reroll"]))


def _step_began(state: State, e: Event) -> State:
    step = e.data["step"]
    sides = tuple(e.data["sides"])
    state = _turn(state, step=step, step_sides=sides, sides_done=(), step_started_at=e.at)
    if step == st.REROLL:
        state = _ini(state, eligible=sides, answers={})
    elif step == st.CHOOSE:
        state = _ini(state, chooser=e.data["chooser"])
    return state


def _answered(state: State, e: Event) -> State:
    side = e.data["side"]
    state = _ini(state, answers={**state.initiative.answers, side: bool(e.data["demand"])})
    return _turn(state, sides_done=(*state.turn.sides_done, side))


def _reroll_closed(state: State, e: Event) -> State:
    return _ini(state, boxes=dict(e.data["boxes"]))


def _ranked(state: State, e: Event) -> State:
    ranking = tuple(e.data["ranking"])
    return _ini(state, ranking=ranking, slots=(None,) * len(ranking), chooser=None)


def _chosen(state: State, e: Event) -> State:
    slots = list(state.initiative.slots)
    slots[int(e.data["slot"])] = e.data["side"]
    return _ini(state, slots=tuple(slots), chooser=None)


def _order_set(state: State, e: Event) -> State:
    return _turn(state, order=tuple(e.data["order"]))


def _round(state: State, e: Event) -> State:
    return _turn(state, round=int(e.data["round"]))


def _weather(state: State, e: Event) -> State:
    return _turn(state, weather=dict(e.data))


def _impulse(state: State, e: Event) -> State:
    side = e.data["side"]
    powers = {p: (replace(ps, declared=None, chit=None) if ps.side == side else ps)
              for p, ps in state.powers.items()}
    state = replace(state, powers=powers)
    return _turn(state, impulse=int(e.data["impulse"]), phasing_side=side)


def _declared(state: State, e: Event) -> State:
    power = e.data["power"]
    ps = state.powers[power]
    chit = e.data.get("chit")
    new = replace(ps, declared=e.data["action"], chit=chit,
                  chits=ps.chits - (1 if chit else 0))
    return replace(state, powers={**state.powers, power: new})


def _done(state: State, e: Event) -> State:
    return _turn(state, sides_done=(*state.turn.sides_done, e.data["side"]))


def _cleaned(state: State, e: Event) -> State:
    units = dict(state.units)
    for uid in e.data["units"]:
        unit = units[uid]
        units[uid] = replace(unit, mode=unit.orientation)
    return impulse_marks_cleared(replace(state, units=units))


def _rps(state: State, e: Event) -> State:
    powers = dict(state.powers)
    for power, rps in e.data["rps"].items():
        powers[power] = replace(powers[power], rps=int(rps))
    return replace(state, powers=powers)


def _lapsed(state: State, e: Event) -> State:
    power = e.data["power"]
    return replace(state, powers={**state.powers, power: replace(state.powers[power], rps=0)})


def _turn_end(state: State, e: Event) -> State:
    """The total, and the passing bonus in it (seed 002 Effects of Passing): the bonus
    of each die rolled, and of each die a certain threshold left unrolled (counted at
    its least, 1 + the bonus, in `added`)."""
    d = e.data
    per, values = int(d["bonus_per_die"]), [int(v) for v in d["values"]]
    dice = len(values)
    if d.get("certain"):
        dice += (int(d["added"]) - sum(values) - per * len(values)) // (1 + per)
    return _turn(state, turn_end_total=int(d["total"]),
                 turn_end_bonus=state.turn.turn_end_bonus + per * dice)


def _impulse_ended(state: State, e: Event) -> State:
    taken = {**state.turn.impulses_taken, e.data["side"]: int(e.data["impulses_taken"])}
    powers = {p: replace(ps, rps=0) for p, ps in state.powers.items()}
    return replace(_turn(state, impulses_taken=taken), powers=powers)


def _shifted(state: State, e: Event) -> State:
    powers = {p: replace(ps, rps=0) for p, ps in state.powers.items()}
    state = replace(state, powers=powers)
    return _ini(state, boxes=dict(e.data["boxes"]), last_turn_rank=tuple(e.data["rank"]))


def _production(state: State, e: Event) -> State:
    power = e.data["power"]
    figures = {"bp_spent": int(e.data["bp_spent"]), "bp_on_rps": int(e.data["bp_on_rps"])}
    return replace(state, powers={**state.powers,
                                  power: replace(state.powers[power], production=figures)})


def _production_applied(state: State, e: Event) -> State:
    powers = dict(state.powers)
    for power, figures in e.data["powers"].items():
        powers[power] = replace(powers[power], bp_spent_last_turn=int(figures["bp_spent"]),
                                bp_on_rps=int(figures["bp_on_rps"]), production=None)
    for power, added in e.data.get("fuel", {}).items():
        powers[power] = replace(powers[power], fuel=(powers[power].fuel or 0) + int(added))
    return replace(state, powers=powers)


EVOLVE: dict[EventKind, Evolver] = {
    "game.started": _started,
    "turn.began": _turn_began,
    "dice.committed": _committed,
    "dice.recommitted": _committed,
    "dice.rolled": _rolled,
    "dice.revealed": _revealed,
    "initiative.rolled": _ini_rolled,
    "step.began": _step_began,
    "initiative.reroll_answered": _answered,
    "initiative.reroll_closed": _reroll_closed,
    "initiative.ranked": _ranked,
    "initiative.chosen": _chosen,
    "turn.order_set": _order_set,
    "round.began": _round,
    "weather.set": _weather,
    "impulse.began": _impulse,
    "power.declared": _declared,
    "side.done": _done,
    "impulse.cleaned_up": _cleaned,
    "rps.granted": _rps,
    "rps.lapsed": _lapsed,
    "turn_end.rolled": _turn_end,
    "impulse.ended": _impulse_ended,
    "initiative.shifted": _shifted,
    "production.submitted": _production,
    "production.applied": _production_applied,
}
