"""The orders that answer ahead (issue 20; docs/api.md "Standing orders"): `standing`
arms or disarms a side's standing order for a step; `steps` plays several of the side's
own orders at once and holds `done` for its later steps of the impulse.

Both are signed orders like any other, kept in the log and replayed by `verify`: what
the server later answers for a side follows from them and the state alone. Events name
the order by its signer and `seq` (the referee passes the seq in the command's
`extra`, which the log keeps).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from service.rules import state as st
from service.rules.air import patrol_plan
from service.rules.awaiting import awaiting, position
from service.rules.command import Command
from service.rules.errors import Forbidden, Malformed, Refused, RulesError
from service.rules.flow import Flow
from service.rules.modes import CHOICE_STEPS, STANDING_ANSWERS
from service.rules.reorg.order import parse_order
from service.rules.standing.bodies import ITEM_KINDS
from service.rules.standing.stops import hits, parse_stops, stops_data
from service.rules.state import State

Handler = Callable[[Flow, Command], None]
KeyCheck = Callable[[str, Mapping[str, object]], None]

STANDING_STEPS: Final = (st.REROLL, st.REACTION, st.COMBAT, st.EXPLOITATION,
                         st.FINAL_REORGANIZATION)
PATROL: Final = "air.patrol"  # a standing combat air patrol (11.18.1 step 1)
# An impulse's steps in order: what `steps` holds `done` for lies between them.
IMPULSE_STEPS: Final = (st.DECLARE, st.ACTION, st.REACTION, st.COMBAT, st.EXPLOITATION,
                        st.REORGANIZATION)
THROUGH: Final = IMPULSE_STEPS[1:]
SPENDS: Final = ("cheapest", "none")
MAX_PLAN: Final = 12


def seq_of(c: Command) -> int | None:
    seq = c.extra.get("seq")
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


def allowed_steps(state: State) -> tuple[str, ...]:
    """The steps this game lets players arm standing orders for (option
    `standing.steps`; games created before it allow every one)."""
    chosen = state.setup.options.get("standing", {}).get("steps")
    return tuple(chosen) if isinstance(chosen, list) else STANDING_STEPS


def first_window(s: State, side: str) -> int:
    """The turn whose reroll window an `initiative.reroll` order armed now first answers:
    this turn's while it is open and `side` may still answer it, else the next."""
    t = s.turn
    if t.step == st.REROLL and side in s.initiative.eligible and side not in t.sides_done:
        return t.number
    return t.number + 1


def _spending(s: State, c: Command, step: str
              ) -> tuple[str, list[dict[str, Any]]] | None:
    """A `final_reorganization` order's `spend` (default "cheapest") and `plan` (its
    `reorg` bodies, each for a power the signer holds); None for another step, which
    takes neither."""
    spend, plan = c.body.get("spend"), c.body.get("plan")
    if step != st.FINAL_REORGANIZATION:
        if spend is not None or plan is not None:
            raise Malformed("order/invalid_body", "only a final_reorganization standing "
                            "order spends RPs (spend, plan)",
                            errors=[("/body/spend" if spend is not None else "/body/plan",
                                     "only for final_reorganization")])
        return None
    if c.body.get("armed", True) is False:
        return None if spend is None and plan is None else ("", [])
    if spend is None:
        spend = "cheapest"
    if spend not in SPENDS:
        raise Malformed("order/invalid_body", f"spend is one of {', '.join(SPENDS)}",
                        errors=[("/body/spend", "expected cheapest or none")])
    if plan is None:
        plan = []
    if not isinstance(plan, list) or len(plan) > MAX_PLAN:
        raise Malformed("order/invalid_body", f"plan is a list of at most {MAX_PLAN} reorg "
                        "orders", errors=[("/body/plan", "expected [{power, items}]")])
    bodies: list[dict[str, Any]] = []
    for i, body in enumerate(plan):
        if not isinstance(body, Mapping):
            raise Malformed("order/invalid_body", f"plan/{i}: a reorg order {{power, items}}",
                            errors=[(f"/body/plan/{i}", "expected {power, items}")])
        try:
            power, items = parse_order(s, body)
        except RulesError as error:
            raise _in_plan(error, i) from None
        if power not in c.actor.powers:
            raise Forbidden("order/power_not_held", f"plan/{i}: {c.actor.id} does not hold "
                            f"{power}", errors=[(f"/body/plan/{i}/power", "power not held")])
        bodies.append({"power": power, "items": items})
    return str(spend), bodies


def spend_words(spend: str, plan: Sequence[object]) -> str:
    """How a final reorganization order spends, in words."""
    ways = (["its plan"] if plan else []) + (
        ["the cheapest way for every unit still face down"] if spend == "cheapest" else [])
    return ", then ".join(ways) or "nothing"


def _in_plan(error: RulesError, i: int) -> RulesError:
    error.errors = [(p.replace("/body", f"/body/plan/{i}", 1), m) for p, m in error.errors]
    error.message = f"plan/{i}: {error.message}"
    return error


# long: each kind's body checked (reroll, final reorganization, combat choices), then armed.
def arm(f: Flow, c: Command) -> None:
    """`standing`: arm the side's standing order for a step, or disarm it."""
    s = f.state
    side = c.actor.side
    if side is None:
        raise Refused("standing/no_side", "a standing order is a side's: the GM arms one only "
                      "while it plays the side (admin.act)")
    step = c.body.get("step")
    if _armed_for_a_choice(f, c, side, step):
        return
    if step not in STANDING_STEPS:
        raise Malformed("order/invalid_body", f"step must be one of {', '.join(STANDING_STEPS)}",
                        errors=[("/body/step", "not a step a standing order answers")])
    armed = c.body.get("armed", True)
    demand = c.body.get("demand")
    if not isinstance(armed, bool) or (demand is not None and not isinstance(demand, bool)):
        raise Malformed("order/invalid_body", "armed and demand are true or false",
                        errors=[("/body/armed" if not isinstance(armed, bool) else
                                 "/body/demand", "expected a boolean")])
    if demand is not None and step != st.REROLL:
        raise Malformed("order/invalid_body", "only an initiative.reroll standing order has a "
                        "demand", errors=[("/body/demand", "only for initiative.reroll")])
    spending = _spending(s, c, str(step))
    stops = parse_stops(c.body.get("stops"), str(step), "/body/stops")
    current = s.standing.orders.get(side, {}).get(str(step))
    seq = seq_of(c)
    if not armed:
        if stops or demand is not None or spending is not None:
            raise Malformed("order/invalid_body", "an order disarming names only the step",
                            errors=[("/body", "no stops, demand, spend or plan when "
                                              "disarming")])
        if current is None:
            raise Refused("standing/not_armed", f"{side} has no standing order for {step} "
                          "to disarm")
        f.emit("standing.disarmed", f"{side}'s standing order for {step} is disarmed by "
               f"{c.actor.id}.", {"side": side, "step": step, "kind": "standing",
                                  "player": current.player, "seq": current.seq,
                                  "reason": f"disarmed by {c.actor.id}", "stop": None},
               by=c.actor.id)
        return
    if step not in allowed_steps(s):
        raise Refused("standing/not_allowed", f"this game allows no standing orders for {step} "
                      "(option standing.steps)", rule="docs/rules-options.md",
                      errors=[("/body/step", "not allowed in this game")])
    data: dict[str, Any] = {"side": side, "step": step, "kind": "standing",
                            "player": c.actor.id, "seq": seq, "stops": stops_data(stops),
                            "hits_seen": hits(s, side)}
    if step == st.REROLL:
        data["demand"] = bool(demand)
        data["first_window"] = first_window(s, side)
        if c.extra.get("salt"):  # the referee's: without it, the hash tells the demand
            data["salt"] = str(c.extra["salt"])
        text = f"{side} arms a standing order for the initiative reroll (sealed)."
    elif spending is not None:
        data["spend"], data["plan"] = spending
        text = (f"{side} arms a standing order: in each final reorganization step it spends "
                f"RPs ({spend_words(*spending)}), then is done"
                + (f", unless {', '.join(x.kind for x in stops)}" if stops else "") + ".")
    else:
        text = (f"{side} arms a standing order: done in each {step} step"
                + (f", unless {', '.join(x.kind for x in stops)}" if stops else "") + ".")
    f.emit("standing.armed", text, data, by=c.actor.id)


def _armed_for_a_choice(f: Flow, c: Command, side: str, step: object) -> bool:
    """A standing order for a combat choice is armed by `_arm_choice`, a standing combat
    air patrol by `_arm_patrol` (True); no other has an `answer` or `patrols`."""
    if step in CHOICE_STEPS:
        _arm_choice(f, c, side, str(step))
        return True
    if step == PATROL:
        _arm_patrol(f, c, side)
        return True
    if c.body.get("patrols") is not None:
        raise Malformed("order/invalid_body", "only a standing order for air.patrol has "
                        "patrols", errors=[("/body/patrols", "only for air.patrol")])
    if c.body.get("answer") is not None:
        raise Malformed("order/invalid_body", "only a standing order for a combat choice has "
                        "an answer", errors=[("/body/answer", "only for combat choices")])
    return False


def _arm_choice(f: Flow, c: Command, side: str, step: str) -> None:
    """A standing order answering a kind of combat question (docs/api.md "Combat
    choices"): its `answer`, checked with care as it answers (RULES-NOTES 32)."""
    answers = STANDING_ANSWERS[step]
    armed = c.body.get("armed", True)
    answer = c.body.get("answer", answers[0])
    if not isinstance(armed, bool) or answer not in answers or c.body.get("demand") is not None \
            or c.body.get("stops"):
        raise Malformed("order/invalid_body", f"a standing order for {step} answers one of "
                        f"{', '.join(answers)}, with no demand or stops",
                        errors=[("/body/answer", f"expected one of {', '.join(answers)}")])
    current = f.state.standing.orders.get(side, {}).get(step)
    named = {"side": side, "step": step, "kind": "standing", "player": c.actor.id,
             "seq": seq_of(c)}
    if not armed:
        if current is None:
            raise Refused("standing/not_armed", f"{side} has no standing order for {step} "
                          "to disarm", rule="RULES-NOTES 32")
        f.emit("standing.disarmed", f"{side}'s standing order for {step} is disarmed by "
               f"{c.actor.id}.", {**named, "player": current.player, "seq": current.seq,
                                  "reason": f"disarmed by {c.actor.id}", "stop": None},
               by=c.actor.id)
        return
    f.emit("standing.armed", f"{side} arms a standing order: {step} answered "
           f"\"{answer}\" unless that costs more than it says.",
           {**named, "stops": [], "hits_seen": hits(f.state, side), "answer": answer},
           by=c.actor.id)


def _arm_patrol(f: Flow, c: Command, side: str) -> None:
    """A standing combat air patrol (11.18.1 step 1, placed ahead): the fighters and hexes
    it places whenever the patrol window awaits the side, those over this mission's
    potential target hexes (RULES-NOTES 34)."""
    armed = c.body.get("armed", True)
    if not isinstance(armed, bool) or any(c.body.get(k) is not None for k in (
            "demand", "stops", "answer", "spend", "plan")):
        raise Malformed("order/invalid_body", "a standing order for air.patrol names its "
                        "patrols, with no demand, stops, answer, spend or plan",
                        errors=[("/body", "only step, armed and patrols")])
    current = f.state.standing.orders.get(side, {}).get(PATROL)
    named = {"side": side, "step": PATROL, "kind": "standing", "player": c.actor.id,
             "seq": seq_of(c)}
    if not armed:
        if current is None or c.body.get("patrols") is not None:
            raise Refused("standing/not_armed", f"{side} has no standing order for {PATROL} "
                          "to disarm" if current is None else "an order disarming names "
                          "only the step", rule="RULES-NOTES 34")
        f.emit("standing.disarmed", f"{side}'s standing order for {PATROL} is disarmed by "
               f"{c.actor.id}.", {**named, "player": current.player, "seq": current.seq,
                                  "reason": f"disarmed by {c.actor.id}", "stop": None},
               by=c.actor.id)
        return
    if PATROL not in allowed_steps(f.state):
        raise Refused("standing/not_allowed", f"this game allows no standing orders for "
                      f"{PATROL} (option standing.steps)", rule="docs/rules-options.md",
                      errors=[("/body/step", "not allowed in this game")])
    patrols = patrol_plan(f.state, c.body.get("patrols", []), "/body/patrols")
    sc = f.state.setup.scenario
    for i, p in enumerate(patrols):
        if sc.side_of_power(sc.unit(p["unit"]).power) != side:
            raise Refused("standing/not_your_unit", f"{p['unit']} is not a fighter of {side}",
                          rule="RULES-NOTES 34", errors=[(f"/body/patrols/{i}/unit",
                                                          "another side's unit")])
    shown = ", ".join(f"{p['unit']} over {p['hex']}" for p in patrols) or "no patrol"
    f.emit("standing.armed", f"{side} arms a standing combat air patrol: {shown}, whenever "
           "those hexes are potential targets of an enemy air reorganization.",
           {**named, "stops": [], "hits_seen": hits(f.state, side), "patrols": patrols},
           by=c.actor.id)


def _in_item(error: RulesError, i: int, kind: str) -> RulesError:
    """A refusal of item `i` of a `steps` order, its paths pointing into the item."""
    def moved(path: str) -> str:
        return f"/body/orders/{i}{path}" if path.startswith("/body") else path

    error.errors = [(moved(p), m) for p, m in error.errors]
    error.units = {moved(p): u for p, u in error.units.items()}
    error.message = f"orders/{i} ({kind}): {error.message}"
    return error


def _held_from(s: State, now: str | None, after: str) -> str:
    """The step after which a `steps` order holds done: the one it acted in, or the one
    before while a combat of it waits for a choice (its done waits for the answer)."""
    if now is None and s.modes.resolution is not None and IMPULSE_STEPS.index(after) > 0:
        return IMPULSE_STEPS[IMPULSE_STEPS.index(after) - 1]
    return after


def _awaited(s: State, side: str) -> str | None:
    """The step `side` is awaited in now, if it is (a combat's question is not a step:
    the held answers wait for it)."""
    return next((e["step"] for e in awaiting(s) if e["side"] == side
                 and e["step"] != "combat.choice"), None)


# long: the items in order, then `through`: the done now and the held answers, each checked.
def play_steps(f: Flow, c: Command, handlers: Mapping[str, Handler], check_keys: KeyCheck
               ) -> None:
    """`steps`: the items now, in order (all or nothing), then `through`."""
    side = c.actor.side
    items = c.body.get("orders")
    through = c.body.get("through")
    if not isinstance(items, list) or len(items) > 50:
        raise Malformed("order/invalid_body", "orders is a list of at most 50 orders",
                        errors=[("/body/orders", "expected [{kind, body}]")])
    if through is not None and through not in THROUGH:
        raise Malformed("order/invalid_body", f"through is one of {', '.join(THROUGH)}",
                        errors=[("/body/through", "not a step of an impulse after declare")])
    if not items and through is None:
        raise Malformed("order/invalid_body", "a steps order needs orders or through",
                        errors=[("/body", "nothing to do")])
    stops = parse_stops(c.body.get("stops"), "", "/body/stops")
    for i, item in enumerate(items):
        kind = item.get("kind") if isinstance(item, Mapping) else None
        body = item.get("body") if isinstance(item, Mapping) else None
        if kind not in ITEM_KINDS or not isinstance(body, Mapping):
            raise Malformed("order/invalid_body", f"orders/{i}: an order of kind "
                            f"{', '.join(ITEM_KINDS)} with its body",
                            errors=[(f"/body/orders/{i}", "expected {kind, body}")])
        check_keys(str(kind), body)
    if side is None or _awaited(f.state, side) is None:
        raise Refused("order/not_your_turn", f"{side} is not awaited now: a steps order "
                      "answers the side's own steps", rule="RULES-NOTES 31",
                      extra={"current": position(f.state), "awaiting": awaiting(f.state)})
    acted = f.state.step
    start = (f.state.turn.number, f.state.turn.impulse)
    for i, item in enumerate(items):
        kind = str(item["kind"])
        acted = f.state.step
        sub = Command(kind=kind, body=item["body"], actor=c.actor, at=c.at, extra=c.extra,
                      trigger=c.trigger)
        try:
            handlers[kind](f, sub)
        except RulesError as error:
            raise _in_item(error, i, kind) from None
    s = f.state
    if through is None or (s.turn.number, s.turn.impulse) != start \
            or s.step not in IMPULSE_STEPS:
        return  # nothing to hold: the impulse is over (every power passed, say)
    now = _awaited(s, side)
    after = str(now) if now is not None else acted
    if after not in IMPULSE_STEPS or IMPULSE_STEPS.index(str(through)) < \
            IMPULSE_STEPS.index(after):
        raise Refused("steps/through_passed", f"through {through}: {side} is at the {after} "
                      f"step, past it", rule="RULES-NOTES 31",
                      errors=[("/body/through", "already past")])
    if after == st.DECLARE:
        raise Refused("steps/declare_first", f"{side}'s declaration is not complete: a steps "
                      "order with through needs every power of the side declared first",
                      rule="seed 002", errors=[("/body/through", "declare first")])
    after = _held_from(s, now, after)
    if IMPULSE_STEPS.index(str(through)) > IMPULSE_STEPS.index(after):
        f.emit("standing.armed", f"{side} holds done for its steps after {after} through "
               f"{through} this impulse" + (f", unless {', '.join(x.kind for x in stops)}"
                                            if stops else "") + ".",
               {"side": side, "step": through, "kind": "steps", "player": c.actor.id,
                "seq": seq_of(c), "stops": stops_data(stops), "hits_seen": hits(s, side),
                "turn": s.turn.number, "impulse": s.turn.impulse, "after": after},
               by=c.actor.id)
    if now is not None:
        try:
            handlers["done"](f, Command(kind="done", body={}, actor=c.actor, at=c.at,
                                        extra=c.extra, trigger=c.trigger))
        except RulesError as error:
            error.errors = [("/body/through", m) for _, m in error.errors] or [
                ("/body/through", error.message)]
            raise
