"""The players' orders of the turn (seed 002; docs/api.md): initiative reroll and
choice, declarations, `done`, production and generic rolls."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from service.rules import state as st
from service.rules.awaiting import awaiting, choices, position
from service.rules.command import Command
from service.rules.errors import Forbidden, Malformed, Refused
from service.rules.flow import Flow
from service.rules.modes import movement_end_refusal, open_combats_refusal
from service.rules.state import State
from service.rules.turn.sequence import after_declare, after_production, after_side_step, choose


def _in_order(s: State, powers: Mapping[str, Any]) -> list[str]:
    """The powers a body names, in the scenario's order: what an order causes never
    depends on the order of a JSON object's keys (its signature does not either)."""
    rank = {p.id: i for i, p in enumerate(s.setup.scenario.powers)}
    return sorted(powers, key=lambda p: (rank.get(p, len(rank)), p))


def refuse_step(state: State, kind: str, why: str) -> Refused:
    return Refused("order/wrong_step", f"{kind} is not allowed now: {why}",
                   rule=st.step_rule(state.step), extra={"current": position(state),
                                             "awaiting": awaiting(state)})


def reroll(f: Flow, c: Command) -> None:
    s = f.state
    side = c.actor.side
    if s.step != st.REROLL:
        raise refuse_step(s, c.kind, f"the step is {s.step}")
    if side not in s.initiative.eligible:
        raise Refused("initiative/not_eligible",
                      f"{side} does not stand on a reroll box (seed 002: +2, +1 and the "
                      "leftmost 0 box allow a reroll attempt)", rule="seed 002 Initiative Track")
    if side in s.turn.sides_done:
        raise Refused("order/already_answered", f"{side} already answered the reroll window",
                      rule="RULES-NOTES 16")
    demand = c.body.get("demand")
    if not isinstance(demand, bool):
        raise Malformed("order/invalid_body", "demand must be true or false",
                        errors=[("/body/demand", "expected a boolean")])
    salt = c.extra.get("salt", "")
    answer_reroll(f, side, demand, c.actor.id, salt=str(salt))


def answer_reroll(f: Flow, side: str, demand: bool, by: str, *, salt: str = "") -> None:
    """A sealed answer (RULES-NOTES 16). The referee salts it with random bytes, so the
    event's hash, which every side sees while the window is open, reveals nothing."""
    f.emit("initiative.reroll_answered", f"{side} answered the reroll window (sealed).",
           {"side": side, "demand": demand, "salt": salt}, by=by)
    if all(s in f.state.turn.sides_done for s in f.state.initiative.eligible):
        after_side_step(f)


def choose_slot(f: Flow, c: Command) -> None:
    s = f.state
    if s.step != st.CHOOSE:
        raise refuse_step(s, c.kind, f"the step is {s.step}")
    if c.actor.side != s.initiative.chooser:
        raise Refused("order/not_your_turn", f"{s.initiative.chooser} chooses now, not "
                      f"{c.actor.side}", rule="seed 002 Initiative Track")
    position_ = c.body.get("position")
    if position_ not in ("first", "last", "before", "after"):
        raise Malformed("order/invalid_body", "position is first, last, before or after",
                        rule="seed 002 Initiative Track",
                        errors=[("/body/position", "expected first, last, before or after")])
    allowed = choices(s, st.CHOOSE)["position"]
    if position_ not in allowed:
        raise Refused("initiative/not_this_choice", f"{c.actor.side} chooses "
                      f"{' or '.join(allowed)} now (seed 002: the winner moves first or last, "
                      "the runner-up before or after the lowest)", rule="seed 002 Initiative "
                      "Track", errors=[("/body/position", f"expected {allowed}")],
                      extra={"choices": {"position": allowed}})
    choose(f, str(s.initiative.chooser), str(position_), c.actor.id)


def declare(f: Flow, c: Command) -> None:
    s = f.state
    if s.step != st.DECLARE:
        raise refuse_step(s, c.kind, f"the step is {s.step}")
    side = s.turn.phasing_side
    if c.actor.side != side:
        raise Refused("order/not_your_turn", f"it is {side}'s impulse, not {c.actor.side}'s",
                      rule="RULES-NOTES 31")
    actions, chits = _declaration(s, c.body)
    for power in _in_order(s, actions):
        if power not in c.actor.powers:
            raise Forbidden("order/power_not_held", f"{c.actor.id} does not hold {power}",
                            errors=[(f"/body/actions/{power}", "power not held")])
        ps = s.powers[power]
        if ps.side != side:
            raise Refused("order/not_your_turn", f"{power} is not a power of {side}",
                          errors=[(f"/body/actions/{power}", "not of the phasing side")])
        if ps.declared is not None:
            raise Refused("declare/already_declared", f"{power} already declared this impulse",
                          errors=[(f"/body/actions/{power}", "already declared")])
    for power in _in_order(s, chits):
        _check_chit(s, str(side), power, actions[power], chits[power])
    for power in _in_order(s, actions):
        played = chits.get(power)
        declare_power(f, power, str(actions[power]), dict(played) if played else None,
                      c.actor.id)
    after_declaring(f)


def _declaration(s: State, body: Mapping[str, Any]
                 ) -> tuple[Mapping[str, Any], Mapping[str, Mapping[str, Any]]]:
    """The body's actions and chits, every shape problem listed (422)."""
    actions = body.get("actions")
    chits = body.get("chits") or {}
    problems: list[tuple[str, str]] = []
    if not isinstance(actions, Mapping) or not actions:
        raise Malformed("order/invalid_body", "actions must name at least one power",
                        errors=[("/body/actions", "expected {power: action}")])
    if not isinstance(chits, Mapping):
        raise Malformed("order/invalid_body", "chits must be an object",
                        errors=[("/body/chits", "expected {power: {kind, hq}}")])
    for power, action in actions.items():
        if power not in s.powers:
            problems.append((f"/body/actions/{power}", f"unknown power {power}"))
        elif action not in st.ACTIONS:
            problems.append((f"/body/actions/{power}", f"action must be one of {st.ACTIONS}"))
    for power, chit in chits.items():
        where = f"/body/chits/{power}"
        if power not in actions:
            problems.append((where, "a chit needs the power's action in the same order"))
        elif not isinstance(chit, Mapping) or chit.get("kind") not in st.CHIT_KINDS:
            problems.append((f"{where}/kind", f"chit kind must be one of {st.CHIT_KINDS}"))
        elif not isinstance(chit.get("hq"), str):
            problems.append((f"{where}/hq", "the chit names the HQ that plays it"))
    if problems:
        raise Malformed("order/invalid_body", f"{problems[0][0]}: {problems[0][1]}",
                        errors=problems)
    return actions, chits


def _check_chit(s: State, side: str, power: str, action: str, chit: Mapping[str, Any]) -> None:
    """11.18.11: an offensive chit goes with an action, from a power with a chit left,
    played by an HQ of the phasing side."""
    where = f"/body/chits/{power}"
    if action == "pass":
        raise Refused("declare/chit_on_pass", f"{power} passes and cannot play a chit",
                      rule="11.18.11", errors=[(where, "chit with a pass")])
    if chit["kind"] == "reorganize_units" and not s.setup.options["reorg"][
            "reorganize_units_chit"]:
        raise Refused("declare/chit_off", "the Reorganize Units chit is not in this game "
                      "(option reorg.reorganize_units_chit)", rule="RULES-NOTES 10",
                      errors=[(f"{where}/kind", "chit not in play")])
    if s.powers[power].chits < 1:
        raise Refused("declare/no_chits", f"{power} has no offensive chit left",
                      rule="11.18.11", errors=[(where, "no chit left")])
    sc = s.setup.scenario
    hq = chit["hq"]
    unit = s.units.get(hq)
    if unit is None or not sc.unit(hq).type.startswith("HQ"):
        raise Refused("declare/chit_hq", f"{hq} is not an HQ", rule="11.18.11",
                      errors=[(f"{where}/hq", "not an HQ")])
    if sc.side_of_power(unit.power) != side:
        raise Refused("declare/chit_hq", f"{hq} is not an HQ of {side}", rule="11.18.11",
                      errors=[(f"{where}/hq", "not of the phasing side")])


def declare_power(f: Flow, power: str, action: str, chit: dict[str, Any] | None,
                   by: str) -> None:
    chit_text = f" and plays a {chit['kind']} chit with {chit['hq']}" if chit else ""
    f.emit("power.declared", f"{power} declares {action}{chit_text}.",
           {"power": power, "action": action, "chit": chit}, by=by)


def after_declaring(f: Flow) -> None:
    side = f.state.turn.phasing_side
    assert side is not None
    if all(f.state.powers[p].declared is not None for p in f.state.side_powers(side)):
        after_declare(f)


def done(f: Flow, c: Command) -> None:
    s = f.state
    if s.step not in st.SIDE_STEPS or s.step == st.REROLL:
        raise refuse_step(s, c.kind, f"{s.step} is not finished with done")
    side = c.actor.side
    if side not in s.turn.step_sides:
        raise Refused("order/not_your_turn", f"{side} takes no part in the {s.step} step",
                      rule=st.step_rule(s.step), extra={"awaiting": awaiting(s)})
    if side in s.turn.sides_done:
        raise Refused("order/already_done", f"{side} is already done with {s.step}")
    short = movement_end_refusal(s, str(side)) if s.step == st.ACTION else None
    if short is not None:
        raise short
    waiting = open_combats_refusal(s, str(side))
    if waiting is not None:
        raise waiting
    _check_lapse(s, c, str(side))
    side_done(f, str(side), c.actor.id)


def lapsing(state: State, side: str) -> dict[str, int]:
    """The RPs `side`'s powers have left in a reorganization step, which lapse when it is
    done (11.18: "RPs may not be saved; any unused RPs are lost"), in scenario order."""
    if state.step not in (st.REORGANIZATION, st.FINAL_REORGANIZATION):
        return {}
    return {p: state.powers[p].rps for p in state.side_powers(side) if state.powers[p].rps > 0}


def _check_lapse(s: State, c: Command, side: str) -> None:
    """`confirm_lapse` is a boolean; a player who asked for it (their setting, carried in
    the command as `extra.confirm_lapse` "required") must send it true to leave RPs
    unspent."""
    confirm = c.body.get("confirm_lapse", False)
    if not isinstance(confirm, bool):
        raise Malformed("order/invalid_body", "confirm_lapse is true or false",
                        errors=[("/body/confirm_lapse", "expected a boolean")])
    left = lapsing(s, side)
    if left and not confirm and c.extra.get("confirm_lapse") == "required":
        shown = ", ".join(f"{p} {n}" for p, n in left.items())
        raise Refused("reorg/confirm_lapse", f"{side} still has RPs that lapse when it is "
                      f"done ({shown}): spend them, or send done with \"confirm_lapse\": true "
                      "(your setting asks for it) (11.18)", rule="11.18",
                      errors=[("/body/confirm_lapse", f"RPs that would lapse: {shown}")],
                      extra={"lapse": left})


def side_done(f: Flow, side: str, by: str) -> None:
    """`side` is done with the step; in a reorganization step its powers' unspent RPs
    lapse, each logged (11.18)."""
    for power, amount in lapsing(f.state, side).items():
        f.emit("rps.lapsed", f"{power}'s {amount} unspent RP{'s' if amount != 1 else ''} "
               f"lapse as {side} is done with the {f.state.step} step (11.18: RPs may not be "
               "saved).", {"power": power, "amount": amount, "side": side,
                           "step": f.state.step}, by=by)
    f.emit("side.done", f"{side} is done with the {f.state.step} step.",
           {"side": side, "step": f.state.step}, by=by)
    if all(x in f.state.turn.sides_done for x in f.state.turn.step_sides):
        after_side_step(f)


def produce(f: Flow, c: Command) -> None:
    s = f.state
    if s.step != st.PRODUCTION:
        raise refuse_step(s, c.kind, f"the step is {s.step}")
    figures = c.body.get("powers")
    if not isinstance(figures, Mapping) or not figures:
        raise Malformed("order/invalid_body", "powers must map each power to its figures",
                        errors=[("/body/powers", "expected {power: {bp_spent, bp_on_rps}}")])
    problems: list[tuple[str, str]] = []
    for power, fig in figures.items():
        where = f"/body/powers/{power}"
        if power not in s.powers:
            problems.append((where, f"unknown power {power}"))
            continue
        if not isinstance(fig, Mapping):
            problems.append((where, "expected {bp_spent, bp_on_rps}"))
            continue
        for key in ("bp_spent", "bp_on_rps"):
            v = fig.get(key)
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= 10_000:
                problems.append((f"{where}/{key}", "expected an integer 0-10000"))
    if problems:
        raise Malformed("order/invalid_body", f"{problems[0][0]}: {problems[0][1]}",
                        errors=problems)
    sc = s.setup.scenario
    for power in _in_order(s, figures):
        fig = figures[power]
        where = f"/body/powers/{power}"
        if power not in c.actor.powers:
            raise Forbidden("order/power_not_held", f"{c.actor.id} does not hold {power}",
                            errors=[(where, "power not held")])
        if s.powers[power].production is not None:
            raise Refused("production/already_reported", f"{power} already reported",
                          errors=[(where, "already reported")])
        if fig["bp_on_rps"] > fig["bp_spent"]:
            raise Refused("production/rps_exceed_spent",
                          f"{power}: BP on RPs ({fig['bp_on_rps']}) is part of BP spent "
                          f"({fig['bp_spent']})", rule="11.18 Reorganization points",
                          errors=[(f"{where}/bp_on_rps", "more than bp_spent")])
        bp = sc.power(power).build_points
        if bp is not None and fig["bp_spent"] > bp:
            raise Refused("production/build_points",
                          f"{power} has {bp} build points this turn (the scenario's): it "
                          f"cannot spend {fig['bp_spent']}", rule="11.18 Reorganization points",
                          errors=[(f"{where}/bp_spent", f"above the scenario's {bp} build "
                                                        "points")])
        cap = sc.power(power).rp_gearing_cap
        if fig["bp_on_rps"] > cap:
            raise Refused("production/gearing", f"{power} may spend at most {cap} BP on RPs "
                          "(gearing limit)", rule="11.18 Reorganization points",
                          errors=[(f"{where}/bp_on_rps", f"above the gearing cap {cap}")])
    for power in _in_order(s, figures):
        fig = figures[power]
        submit_production(f, power, int(fig["bp_spent"]), int(fig["bp_on_rps"]), c.actor.id)
    after_producing(f)


def submit_production(f: Flow, power: str, spent: int, on_rps: int, by: str) -> None:
    """A power's production figures: within the scenario's build points when it gives
    them (checked by `produce`), else the player's word, and the event says so."""
    bp = f.state.setup.scenario.power(power).build_points
    word = ("" if bp is not None else
            f" (as reported: the scenario gives {power} no build points to check them by)")
    f.emit("production.submitted",
           f"{power} spent {spent} BP, {on_rps} of them on RPs: {spent + on_rps} RPs next "
           f"turn{word}.",
           {"power": power, "bp_spent": spent, "bp_on_rps": on_rps,
            "next_turn_rps": spent + on_rps, "build_points": bp, "reported": bp is None},
           by=by)


def after_producing(f: Flow) -> None:
    if all(ps.production is not None for ps in f.state.powers.values()):
        after_production(f)


_DICE = re.compile(r"^([1-9][0-9]?)d([1-9][0-9]{0,2})$")


# Steps in which the rules need dice rolled on the table (OCS 5.7b overruns and
# barrage, combat, exploitation); nowhere else may a player roll.
ROLL_STEPS = (st.ACTION, st.REACTION, st.COMBAT, st.EXPLOITATION)


def roll(f: Flow, c: Command) -> None:
    """A generic roll for the table (docs/api.md), by a side acting in a step where the
    rules need dice: never in a step whose dice are the server's own or after the
    turn's seed is revealed."""
    s = f.state
    if s.step not in ROLL_STEPS:
        raise refuse_step(s, c.kind, f"no dice are rolled in the {s.step} step (rolls are "
                          f"for the {', '.join(ROLL_STEPS)} steps)")
    if c.actor.side not in s.turn.step_sides or c.actor.side in s.turn.sides_done:
        raise Refused("order/not_your_turn", f"{c.actor.side} does not act in this "
                      f"{s.step} step", rule=st.step_rule(s.step),
                      extra={"awaiting": awaiting(s)})
    spec = c.body.get("dice")
    purpose = c.body.get("purpose", "")
    match = _DICE.match(spec) if isinstance(spec, str) else None
    problems = []
    if match is None or not 1 <= int(match.group(1)) <= 20 or not 2 <= int(match.group(2)) <= 100:
        problems.append(("/body/dice", "dice must be NdM with N 1-20 and M 2-100, e.g. 2d10"))
    if not isinstance(purpose, str) or not purpose.strip() or len(purpose) > 200:
        problems.append(("/body/purpose", "purpose is a label of 1-200 characters"))
    if problems or match is None:
        raise Malformed("order/invalid_body", f"{problems[0][0]}: {problems[0][1]}",
                        errors=problems)
    count, faces = int(match.group(1)), int(match.group(2))
    f.roll("roll", count, faces, text=f"{c.actor.id} rolls {spec} for {purpose}",
           by=c.actor.id, label=str(purpose))
