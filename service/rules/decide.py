"""`decide(state, command, dice) -> events`: validate a command against the rules and
return every fact it causes, including the server's automatic steps until some side
must act again. A refused command raises a RulesError and changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from service.rules import state as st
from service.rules import turn
from service.rules.awaiting import CONSENT, awaiting, deadline
from service.rules.dice import Dice
from service.rules.errors import Forbidden, Malformed, Refused
from service.rules.events import Event
from service.rules.flow import Flow
from service.rules.options import dropout_policy
from service.rules.state import State

CIVIL_DISORDER = "civil_disorder"
GM_PLAYS = "gm"
SUBSTITUTE = "substitute"


@dataclass(frozen=True, slots=True)
class Actor:
    """Who gives a command: a player (with the side and powers held), the GM, the clock."""

    id: str
    role: str  # player | gm | clock | server
    side: str | None = None
    powers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Command:
    kind: str
    body: Mapping[str, Any]
    actor: Actor
    at: str
    position: tuple[int, int, str] | None = None  # turn, impulse, step the player saw
    extra: Mapping[str, Any] = field(default_factory=dict)


PLAYER_ORDERS = ("initiative.reroll", "initiative.choose", "declare", "done", "production",
                 "roll", "consent")


def current_step(state: State) -> str:
    """The step orders must name: `consent` while a rollback proposal is pending."""
    return CONSENT if state.proposal is not None else state.turn.step


def position(state: State) -> dict[str, Any]:
    return {"turn": state.turn.number, "impulse": state.turn.impulse,
            "step": current_step(state)}


def _refuse_step(state: State, kind: str, why: str) -> Refused:
    return Refused("order/wrong_step", f"{kind} is not allowed now: {why}",
                   rule="DESIGN 4.3", extra={"current": position(state),
                                             "awaiting": awaiting(state)})


# --------------------------------------------------------------------------- orders


def _reroll(f: Flow, c: Command) -> None:
    s = f.state
    side = c.actor.side
    if s.step != st.REROLL:
        raise _refuse_step(s, c.kind, f"the step is {s.step}")
    if side not in s.initiative.eligible:
        raise Refused("initiative/not_eligible",
                      f"{side} does not stand on a reroll box (seed 002: +2, +1 and the "
                      "leftmost 0 box allow a reroll attempt)", rule="seed 002")
    if side in s.turn.sides_done:
        raise Refused("order/already_answered", f"{side} already answered the reroll window",
                      rule="RULES-NOTES 16")
    demand = c.body.get("demand")
    if not isinstance(demand, bool):
        raise Malformed("order/invalid_body", "demand must be true or false",
                        errors=[("/body/demand", "expected a boolean")])
    _answer_reroll(f, side, demand, c.actor.id)


def _answer_reroll(f: Flow, side: str, demand: bool, by: str) -> None:
    f.emit("initiative.reroll_answered", f"{side} answered the reroll window (sealed).",
           {"side": side, "demand": demand}, by=by)
    if all(s in f.state.turn.sides_done for s in f.state.initiative.eligible):
        turn.after_side_step(f)


def _choose(f: Flow, c: Command) -> None:
    s = f.state
    if s.step != st.CHOOSE:
        raise _refuse_step(s, c.kind, f"the step is {s.step}")
    if c.actor.side != s.initiative.chooser:
        raise Refused("order/not_your_turn", f"{s.initiative.chooser} chooses now, not "
                      f"{c.actor.side}", rule="seed 002")
    position_ = c.body.get("position")
    allowed = ("first", "last") if all(x is None for x in s.initiative.slots) else (
        "before", "after")
    if position_ not in allowed:
        raise Malformed("order/invalid_body", f"position must be {' or '.join(allowed)}",
                        rule="seed 002", errors=[("/body/position", f"expected {allowed}")])
    turn.choose(f, str(s.initiative.chooser), str(position_), c.actor.id)


def _declare(f: Flow, c: Command) -> None:
    s = f.state
    if s.step != st.DECLARE:
        raise _refuse_step(s, c.kind, f"the step is {s.step}")
    side = s.turn.phasing_side
    if c.actor.side != side:
        raise Refused("order/not_your_turn", f"it is {side}'s impulse, not {c.actor.side}'s",
                      rule="DESIGN 5.3")
    actions = c.body.get("actions")
    chits = c.body.get("chits") or {}
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
    for power in actions:
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
    sc = s.setup.scenario
    for power, chit in chits.items():
        where = f"/body/chits/{power}"
        if actions[power] == "pass":
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
        hq = chit["hq"]
        unit = s.units.get(hq)
        if unit is None or not sc.unit(hq).type.startswith("HQ"):
            raise Refused("declare/chit_hq", f"{hq} is not an HQ", rule="11.18.11",
                          errors=[(f"{where}/hq", "not an HQ")])
        if sc.side_of_power(unit.power) != side:
            raise Refused("declare/chit_hq", f"{hq} is not an HQ of {side}", rule="11.18.11",
                          errors=[(f"{where}/hq", "not of the phasing side")])
    for power, action in actions.items():
        chit = chits.get(power)
        _declare_power(f, power, str(action), dict(chit) if chit else None, c.actor.id)
    _maybe_after_declare(f)


def _declare_power(f: Flow, power: str, action: str, chit: dict[str, Any] | None,
                   by: str) -> None:
    chit_text = f" and plays a {chit['kind']} chit with {chit['hq']}" if chit else ""
    f.emit("power.declared", f"{power} declares {action}{chit_text}.",
           {"power": power, "action": action, "chit": chit}, by=by)


def _maybe_after_declare(f: Flow) -> None:
    side = f.state.turn.phasing_side
    assert side is not None
    if all(f.state.powers[p].declared is not None for p in f.state.side_powers(side)):
        turn.after_declare(f)


def _done(f: Flow, c: Command) -> None:
    s = f.state
    if s.step not in st.SIDE_STEPS or s.step == st.REROLL:
        raise _refuse_step(s, c.kind, f"{s.step} is not finished with done")
    side = c.actor.side
    if side not in s.turn.step_sides:
        raise Refused("order/not_your_turn", f"{side} takes no part in the {s.step} step",
                      rule="DESIGN 5.3", extra={"awaiting": awaiting(s)})
    if side in s.turn.sides_done:
        raise Refused("order/already_done", f"{side} is already done with {s.step}")
    _side_done(f, str(side), c.actor.id)


def _side_done(f: Flow, side: str, by: str) -> None:
    f.emit("side.done", f"{side} is done with the {f.state.step} step.",
           {"side": side, "step": f.state.step}, by=by)
    if all(x in f.state.turn.sides_done for x in f.state.turn.step_sides):
        turn.after_side_step(f)


def _production(f: Flow, c: Command) -> None:
    s = f.state
    if s.step != st.PRODUCTION:
        raise _refuse_step(s, c.kind, f"the step is {s.step}")
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
    for power, fig in figures.items():
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
        cap = sc.power(power).rp_gearing_cap
        if fig["bp_on_rps"] > cap:
            raise Refused("production/gearing", f"{power} may spend at most {cap} BP on RPs "
                          "(gearing limit)", rule="11.18 Reorganization points",
                          errors=[(f"{where}/bp_on_rps", f"above the gearing cap {cap}")])
    for power, fig in figures.items():
        _report_production(f, power, int(fig["bp_spent"]), int(fig["bp_on_rps"]), c.actor.id)
    _maybe_after_production(f)


def _report_production(f: Flow, power: str, spent: int, on_rps: int, by: str) -> None:
    f.emit("production.submitted",
           f"{power} spent {spent} BP, {on_rps} of them on RPs: {spent + on_rps} RPs next turn.",
           {"power": power, "bp_spent": spent, "bp_on_rps": on_rps,
            "next_turn_rps": spent + on_rps}, by=by)


def _maybe_after_production(f: Flow) -> None:
    if all(ps.production is not None for ps in f.state.powers.values()):
        turn.after_production(f)


_DICE = re.compile(r"^([1-9][0-9]?)d([1-9][0-9]{0,2})$")


def _roll(f: Flow, c: Command) -> None:
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


ORDER_HANDLERS: dict[str, Callable[[Flow, Command], None]] = {
    "initiative.reroll": _reroll,
    "initiative.choose": _choose,
    "declare": _declare,
    "done": _done,
    "production": _production,
    "roll": _roll,
}


# --------------------------------------------------------------------------- defaults


def apply_defaults(f: Flow, by: str, sides: frozenset[str] | None = None) -> int:
    """The default action for everyone the game awaits (deadline passed or GM forced),
    or only for `sides` (civil disorder): declare: pass; reroll: no; choose: first /
    before; done-steps: done; production: last turn's figures. Returns how many
    answers were given."""
    s = f.state
    step = s.step

    def chosen(side: str | None) -> bool:
        return side is not None and (sides is None or side in sides)

    given = 0
    if step == st.DECLARE:
        side = s.turn.phasing_side
        if not chosen(side):
            return 0
        for power in s.side_powers(str(side)):
            if f.state.powers[power].declared is None:
                _declare_power(f, power, "pass", None, by)
                given += 1
        _maybe_after_declare(f)
    elif step == st.REROLL:
        for side in s.initiative.eligible:
            if side not in f.state.turn.sides_done and chosen(side) and f.state.step == step:
                given += 1
                _answer_reroll(f, side, False, by)
    elif step == st.CHOOSE:
        chooser = s.initiative.chooser
        if not chosen(chooser):
            return 0
        first = all(x is None for x in s.initiative.slots)
        turn.choose(f, str(chooser), "first" if first else "before", by)
        given = 1
    elif step == st.PRODUCTION:
        for power, ps in s.powers.items():
            if ps.production is None and chosen(ps.side):
                _report_production(f, power, ps.bp_spent_last_turn, ps.bp_on_rps, by)
                given += 1
        _maybe_after_production(f)
    elif step in st.SIDE_STEPS:
        for side in s.turn.step_sides:
            if side not in f.state.turn.sides_done and f.state.step == step and chosen(side):
                _side_done(f, side, by)
                given += 1
    return given


# --------------------------------------------------------------------------- dropouts


def check_dropouts(f: Flow, sides: list[str], why: str) -> None:
    """A side that missed its policy's number of deadlines in a row drops out: its
    policy applies from now on (docs/game-master.md)."""
    for side in sides:
        control = f.state.dropouts.get(side, st.SideControl())
        _, limit = dropout_policy(f.state.setup.options, side)
        if control.mode is None and limit > 0 and control.missed >= limit:
            drop_out(f, side, f"{why} ({control.missed} in a row)", by="clock")


def drop_out(f: Flow, side: str, reason: str, by: str) -> None:
    policy, _ = dropout_policy(f.state.setup.options, side)
    what = {GM_PLAYS: "the GM plays it", SUBSTITUTE: "it awaits a substitute player",
            CIVIL_DISORDER: "it is in civil disorder: default orders until a substitute "
                            "joins"}[policy]
    f.emit("side.dropped_out", f"{side} has dropped out ({reason}): {what}.",
           {"side": side, "policy": policy, "reason": reason}, by=by)


def play_civil_disorder(f: Flow) -> None:
    """Sides in civil disorder answer with the default at once, every step, while some
    side is still played by people (if none is, the game waits for the GM). A pending
    rollback proposal cannot get their consent: it is refused."""
    for _ in range(10_000):
        s = f.state
        if s.status != "active":
            return
        gone = frozenset(side for side, c in s.dropouts.items() if c.mode == CIVIL_DISORDER)
        if not gone or gone >= set(s.setup.sides):
            return
        if s.proposal is not None:
            silent = [x for x in s.proposal.needs if x in gone and x not in s.proposal.consented]
            if not silent:
                return
            f.emit("rollback.refused", f"{silent[0]} is in civil disorder and cannot consent: "
                   f"rollback proposal {s.proposal.number} is refused.",
                   {"proposal": s.proposal.number, "side": silent[0]}, by=CIVIL_DISORDER)
            continue
        if not any(a["side"] in gone for a in awaiting(s)):
            return
        if apply_defaults(f, CIVIL_DISORDER, gone) == 0:
            return


# --------------------------------------------------------------------------- seats, GM


def _take_seat(f: Flow, c: Command) -> None:
    s = f.state
    if s.status != "open":
        raise Refused("seat/game_not_open", "every power is already held; the game has begun")
    side = c.body["side"]
    if side not in s.setup.sides:
        raise Malformed("seat/unknown_side", f"no side {side!r} in this game",
                        errors=[("/side", f"expected one of {s.setup.sides}")])
    free = [p for p in s.side_powers(side) if s.powers[p].holder is None]
    wanted = c.body.get("powers")
    if wanted is None:
        wanted = free
    problems = [(f"/powers/{i}", f"{p} is not a power of {side}")
                for i, p in enumerate(wanted) if p not in s.side_powers(side)]
    if problems:
        raise Malformed("seat/unknown_power", problems[0][1], errors=problems)
    if len(set(wanted)) != len(wanted):
        raise Malformed("seat/duplicate_power", "a power is named twice",
                        errors=[("/powers", "duplicates")])
    taken = [p for p in wanted if s.powers[p].holder is not None]
    if not wanted or taken:
        held = ", ".join(taken) or "every power of " + side
        raise Refused("seat/taken", f"already held: {held}",
                      errors=[("/powers", f"{p} is held") for p in taken]
                      or [("/powers", "none free")])
    player = c.body["player_id"]
    f.emit("seat.taken", f"{c.body['name']} joins {side} with {', '.join(wanted)}.",
           {"player_id": player, "side": side, "name": c.body["name"], "powers": list(wanted)},
           by=player)
    if all(ps.holder is not None for ps in f.state.powers.values()):
        turn.start_game(f)


def _pause(f: Flow, c: Command) -> None:
    if f.state.status != "active":
        raise Refused("admin/not_active", f"only an active game can be paused "
                      f"(status {f.state.status})")
    most = int(f.state.setup.options.get("game", {}).get("max_pause_hours", 168))
    if most <= 0:
        raise Refused("admin/pause_not_allowed", "this game was created without pauses "
                      "(options.game.max_pause_hours is 0)", rule="options.game.max_pause_hours")
    hours = c.body.get("hours")
    if hours is None:
        hours = most
    if not isinstance(hours, int) or isinstance(hours, bool) or not 1 <= hours <= most:
        raise Malformed("admin/invalid_pause", f"a pause lasts 1-{most} hours (the game's "
                        "maximum, options.game.max_pause_hours)",
                        rule="options.game.max_pause_hours",
                        errors=[("/hours", f"expected an integer 1-{most}")])
    until = (datetime.fromisoformat(c.at) + timedelta(hours=hours)).isoformat()
    until = until.replace("+00:00", "Z")
    reason = c.body.get("reason", "")
    f.emit("game.paused", f"The GM pauses the game until {until} at the latest: {reason}",
           {"reason": reason, "hours": hours, "until": until}, by="gm")


def _resume(f: Flow, c: Command) -> None:
    if f.state.status != "paused":
        raise Refused("admin/not_paused", "the game is not paused")
    reason = c.body.get("reason", "")
    f.emit("game.resumed", f"The game resumes: {reason}", {"reason": reason},
           by="clock" if c.actor.role == "clock" else "gm")


def _end(f: Flow, c: Command) -> None:
    if f.state.status == "finished":
        raise Refused("admin/finished", "the game is already over")
    reason = c.body.get("reason", "")
    f.emit("game.ended", f"The GM ends the game: {reason}", {"reason": reason}, by="gm")
    dice = f.state.dice
    current = f.state.turn.number
    # The current turn's seed, and those of later turns a rollback abandoned, unless the
    # seed stayed on the server the game was imported from.
    turns = sorted(t for t in {current, *dice.commitments}
                   if t >= current and t >= 1 and t not in dice.revealed
                   and t not in dice.elsewhere)
    for t in turns:
        if f.dice is None:
            break
        seed = f.dice.reveal(t)
        f.emit("dice.revealed", f"Dice seed of turn {t} revealed (game over).",
               {"turn": t, "seed": seed}, by="gm")


def _deadlines(f: Flow, c: Command) -> None:
    given = c.body.get("deadlines")
    problems: list[tuple[str, str]] = []
    if not isinstance(given, Mapping):
        raise Malformed("admin/invalid_deadlines", "deadlines maps step names to seconds",
                        errors=[("/deadlines", "expected an object")])
    for step, seconds in given.items():
        if step not in st.STEPS or step in (st.JOIN, st.FINISHED):
            problems.append((f"/deadlines/{step}", f"no step {step!r} takes a deadline"))
        elif seconds is not None and (not isinstance(seconds, int) or isinstance(seconds, bool)
                                      or not 1 <= seconds <= 90 * 86400):
            problems.append((f"/deadlines/{step}", "seconds 1-7776000, or null for none"))
    if problems:
        raise Malformed("admin/invalid_deadlines", problems[0][1], errors=problems)
    merged = dict(f.state.deadlines)
    for step, seconds in given.items():
        if seconds is None:
            merged.pop(step, None)
        else:
            merged[step] = int(seconds)
    f.emit("deadlines.set", f"The GM sets step deadlines: {merged or 'none'}. "
           f"{c.body.get('reason', '')}".strip(), {"deadlines": merged,
                                                  "reason": c.body.get("reason", "")}, by="gm")


def _force(f: Flow, c: Command) -> None:
    if f.state.status != "active":
        raise Refused("admin/not_active", "defaults apply only in an active game")
    refuse_if_proposal(f.state, c.kind)
    f.emit("default.forced", f"The GM forces the default action at {f.state.step}: "
           f"{c.body.get('reason', '')}", {"step": f.state.step,
                                          "reason": c.body.get("reason", "")}, by="gm")
    apply_defaults(f, "gm")


def _clock(f: Flow, c: Command) -> None:
    """The sweeper: a pause reached its maximum length, so the game resumes; or the
    step's deadline has passed, so the default action applies and the sides that
    missed it may drop out."""
    now = datetime.fromisoformat(c.at)
    until = f.state.pause_until
    if f.state.status == "paused" and until and datetime.fromisoformat(until) <= now:
        f.emit("game.resumed", f"The pause reached its maximum length ({until}): the game "
               "resumes by itself.", {"reason": "the pause reached its maximum length",
                                      "until": until}, by="clock")
        return
    due = deadline(f.state)
    if due is None or datetime.fromisoformat(due) > now:
        raise Refused("clock/not_due", "no deadline has passed")
    late = sorted({a["side"] for a in awaiting(f.state)})
    f.emit("deadline.passed", f"The deadline of {f.state.step} passed: default action "
           f"for {', '.join(late)}.", {"step": f.state.step, "deadline": due, "sides": late},
           by="clock")
    apply_defaults(f, "clock")
    check_dropouts(f, late, "missed deadlines")


SYSTEM_HANDLERS: dict[str, Callable[[Flow, Command], None]] = {
    "seat.take": _take_seat,
    "admin.pause": _pause,
    "admin.resume": _resume,
    "admin.end": _end,
    "admin.deadlines": _deadlines,
    "admin.force": _force,
    "clock.expire": _clock,
}


# --------------------------------------------------------------------------- entry


def refuse_if_proposal(state: State, kind: str) -> None:
    if state.proposal is not None:
        p = state.proposal
        waiting = ", ".join(x for x in p.needs if x not in p.consented)
        raise Refused("rollback/pending", f"{kind} must wait: rollback proposal {p.number} "
                      f"awaits the consent of {waiting} (the GM may withdraw it)",
                      rule="docs/game-master.md",
                      extra={"current": position(state), "awaiting": awaiting(state)})


def check_order_allowed(state: State, command: Command) -> None:
    """What every player order needs (also when the GM plays a side)."""
    if state.status == "paused":
        raise Refused("game/paused", "the game is paused: no orders until the GM resumes it",
                      extra={"current": position(state)})
    if state.status != "active":
        raise Refused("game/not_active", f"the game is {state.status}",
                      extra={"current": position(state)})
    if command.kind != CONSENT:
        refuse_if_proposal(state, command.kind)
    check_position(state, command)


def check_position(state: State, command: Command) -> None:
    if command.position is None:
        return
    seen = command.position
    now = (state.turn.number, state.turn.impulse, current_step(state))
    if tuple(seen) != now:
        raise Refused("order/stale",
                      f"the order is for turn {seen[0]} impulse {seen[1]} step {seen[2]}; "
                      f"the game is at turn {now[0]} impulse {now[1]} step {now[2]}",
                      rule="DESIGN 4.1", extra={"current": position(state)})


def decide(state: State, command: Command, dice: Dice | None) -> list[Event]:
    """Validate `command` and return the events it causes (RulesError if refused)."""
    handler = SYSTEM_HANDLERS.get(command.kind) or ORDER_HANDLERS.get(command.kind)
    if handler is None:
        raise Malformed("order/unknown_kind", f"unknown order kind {command.kind!r}",
                        errors=[("/order/kind", f"expected one of {sorted(ORDER_HANDLERS)}")])
    if command.kind in ORDER_HANDLERS:
        check_order_allowed(state, command)
    elif command.kind in ("admin.deadlines", "admin.force", "clock.expire"):
        if state.status == "finished":
            raise Refused("admin/finished", "the game is over")
    if command.kind in ("admin.edit", "admin.weather"):
        refuse_if_proposal(state, command.kind)  # the rollback would undo it silently
    flow = Flow(state, dice, actor=command.actor.id, at=command.at)
    handler(flow, command)
    _returned(flow, command)
    play_civil_disorder(flow)
    return flow.events


def _returned(f: Flow, c: Command) -> None:
    """A player of a side that had missed deadlines (or dropped out) acts again."""
    if c.actor.role != "player" or c.actor.side is None or c.kind not in ORDER_HANDLERS:
        return
    control = f.state.dropouts.get(c.actor.side)
    if control is not None and (control.missed or control.mode is not None):
        f.emit("side.returned", f"{c.actor.side} plays again: missed deadlines reset"
               + (f", the {control.mode} policy ends." if control.mode else "."),
               {"side": c.actor.side}, by=c.actor.id)
