"""`decide(state, command, dice) -> Decision`: validate a command against the rules and
return every fact it causes, including the server's automatic steps until some side
must act again, with the state they lead to. A refused command raises a RulesError
and changes nothing.

The dispatcher: every order kind a player may sign (`ORDERS`) and every command of the
GM, the seats and the clock (`COMMANDS`) is listed here, next to the handler that
decides it. The handlers live in the packages of their part of the game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from service.rules import air, gm, modes, reorg, standing, turn
from service.rules.awaiting import CONSENT, current_step, position
from service.rules.command import Actor, Command
from service.rules.dice import Dice
from service.rules.errors import Malformed, Refused, RulesError
from service.rules.events import Event
from service.rules.evolve import evolve
from service.rules.flow import Flow
from service.rules.shapes import unknown_keys
from service.rules.state import REROLL, SideControl, State

Handler = Callable[[Flow, Command], None]


def play_for_side(f: Flow, c: Command) -> None:
    """`admin.act`: the GM plays a side that dropped out or has a seat open for a
    substitute (docs/game-master.md), with the side's own order kinds."""
    s = f.state
    side = gm.side_named(s, c.body.get("side"), "/side")
    kind = c.body.get("kind")
    if kind not in ORDERS:
        raise Malformed("order/unknown_kind", f"unknown order kind {kind!r}",
                        errors=[("/kind", f"expected one of {sorted(ORDERS)}")])
    body = c.body.get("body") or {}
    if not isinstance(body, Mapping):
        raise Malformed("order/invalid_body", "body must be an object",
                        errors=[("/body", "expected an object")])
    refuse_unknown_keys(str(kind), body)
    control = s.dropouts.get(side, SideControl())
    vacant = any(x.vacant and x.side == side for x in s.seats.values())
    if control.mode is None and not vacant:
        raise Refused("admin/side_not_dropped", f"{side} is played by its players: the GM "
                      "plays a side only after it dropped out or while a seat is open",
                      rule=gm.RULE)
    order = Command(kind=str(kind), body=body, at=c.at, extra=c.extra,
                    actor=Actor(id="gm", role="gm", side=side, powers=s.side_powers(side)))
    check_order_allowed(s, order)
    reason = gm.reason_of(c)
    data: dict[str, Any] = {"side": side, "kind": kind, "body": dict(body), "reason": reason}
    if kind == "initiative.reroll" and c.extra.get("salt"):  # sealed: salted like the answer
        data["salt"] = str(c.extra["salt"])
    elif kind == "standing" and body.get("step") == REROLL and body.get("armed", True) is True:
        # a reroll standing order armed ahead: sealed like the `standing.armed` it makes,
        # until its first window closes, and salted (docs/security.md, Sealed reroll answers)
        data["first_window"] = standing.first_window(s, side)
        if c.extra.get("salt"):
            data["salt"] = str(c.extra["salt"])
    f.emit("gm.played", gm.with_reason(f"The GM plays {side}: {kind}.", reason), data,
           by="gm")
    ORDERS[str(kind)](f, order)


def play_steps(f: Flow, c: Command) -> None:
    """`steps`: several of the side's own orders at once, each decided by its kind's
    handler here (issue 20)."""
    standing.play_steps(f, c, ORDERS, refuse_unknown_keys)


# Orders players sign (docs/api.md), by kind.
ORDERS: Mapping[str, Handler] = {
    "initiative.reroll": turn.reroll,
    "initiative.choose": turn.choose_slot,
    "declare": turn.declare,
    "done": turn.done,
    "production": turn.produce,
    "roll": turn.roll,
    "mode": modes.change_modes,
    "release": modes.release_reserves,
    "report": modes.file_report,
    "reorg": reorg.reorganize,
    CONSENT: gm.consent,
    "standing": standing.arm,
    "steps": play_steps,
    "combat.choose": modes.choose,
    "air.begin": air.begin,
    "air.patrol": air.patrol,
    "air.fly": air.fly,
    "air.intercept": air.intercept,
    "air.choose": air.choose,
}

# The body of each order kind (docs/api.md "Order kinds"): closed TypedDicts beside
# their handlers, the API edge's schemas.
ORDER_BODIES: Mapping[str, type] = {
    "initiative.reroll": turn.RerollBody,
    "initiative.choose": turn.ChooseBody,
    "declare": turn.DeclareBody,
    "done": turn.DoneBody,
    "production": turn.ProductionBody,
    "roll": turn.RollBody,
    "mode": modes.ModeBody,
    "release": modes.ReleaseBody,
    "report": modes.ReportBody,
    "reorg": reorg.ReorgBody,
    CONSENT: gm.ConsentBody,
    "standing": standing.StandingBody,
    "steps": standing.StepsBody,
    "combat.choose": modes.CombatChooseBody,
    "air.begin": air.AirBeginBody,
    "air.patrol": air.AirPatrolBody,
    "air.fly": air.AirFlyBody,
    "air.intercept": air.AirInterceptBody,
    "air.choose": air.AirChooseBody,
}

# The GM's acts, by kind, with their bodies: a GM with a key signs them as orders of
# player "gm"; without one it posts them to /admin (docs/game-master.md).
ACT_BODIES: Mapping[str, type] = {
    "admin.pause": gm.PauseBody,
    "admin.resume": gm.ReasonBody,
    "admin.end": gm.ReasonBody,
    "admin.deadlines": gm.DeadlinesBody,
    "admin.force": gm.ReasonBody,
    "admin.weather": gm.WeatherBody,
    "admin.edit": gm.EditBody,
    "admin.dropout": gm.DropoutBody,
    "admin.act": gm.ActBody,
    "admin.rollback": gm.RollbackBody,
    "admin.rollback_withdraw": gm.ReasonBody,
    "admin.replace_key": gm.KeyAct,
    "admin.reopen_seat": gm.ReopenAct,
}
GM_ACTS: tuple[str, ...] = tuple(ACT_BODIES)

# Commands of the seats, the GM and the clock, by kind.
COMMANDS: Mapping[str, Handler] = {
    "game.create": gm.create,
    "seat.take": gm.take_seat,
    "seat.substitute": gm.substitute,
    "seat.new_key": gm.new_key,
    "admin.pause": gm.pause,
    "admin.resume": gm.resume,
    "admin.end": gm.end,
    "admin.deadlines": gm.set_deadlines,
    "admin.force": gm.force_defaults,
    "admin.weather": turn.set_weather_table,
    "admin.edit": gm.edit,
    "admin.replace_key": gm.replace_key,
    "admin.reopen_seat": gm.reopen_seat,
    "admin.dropout": gm.declare_dropout,
    "admin.act": play_for_side,
    "admin.rollback": gm.rollback,
    "admin.rollback_withdraw": gm.withdraw,
    "game.import": gm.import_game,
    "clock.expire": gm.clock_expired,
}


@dataclass(frozen=True, slots=True)
class Decision:
    """What a command caused: its events, the state after each (`states`, for the
    referee's snapshots) and the state after the last (`state`)."""

    events: list[Event]
    state: State
    states: list[State]


def check_order_allowed(state: State, command: Command) -> None:
    """What every player order needs (also when the GM plays a side)."""
    if state.status == "paused":
        raise Refused("game/paused", "the game is paused: no orders until the GM resumes it",
                      extra={"current": position(state)})
    if state.status != "active":
        raise Refused("game/not_active", f"the game is {state.status}",
                      extra={"current": position(state)})
    if command.kind != CONSENT:
        gm.refuse_if_proposal(state, command.kind)
    refuse_while_choosing(state, command)
    air.refuse_while_flying(state, command)
    check_position(state, command)


def refuse_while_choosing(state: State, command: Command) -> None:
    """While a combat's result waits for a side's choice, the game waits for it: only
    that answer (and standing orders) may come (docs/api.md "Combat choices")."""
    res = state.modes.resolution
    if res is None or res.question is None or command.kind in ("combat.choose", "standing"):
        return
    q = res.question
    raise Refused("combat/choice_pending", f"the {res.by} on {res.hex} waits for {q.side} to "
                  f"choose: {q.text}", rule="RULES-NOTES 32",
                  extra={"current": position(state)})


def check_position(state: State, command: Command) -> None:
    if command.position is None:
        return
    seen = command.position
    now = (state.turn.number, state.turn.impulse, current_step(state))
    if tuple(seen) != now:
        raise Refused("order/stale",
                      f"the order is for turn {seen[0]} impulse {seen[1]} step {seen[2]}; "
                      f"the game is at turn {now[0]} impulse {now[1]} step {now[2]}",
                      extra={"current": position(state)})


def refuse_unknown_keys(kind: str, body: Mapping[str, object]) -> None:
    """A key the order kind's body does not declare is refused, not signed into the log
    and ignored (docs/api.md "Strict bodies")."""
    problems = unknown_keys(body, ORDER_BODIES[kind], "/body")
    if problems:
        raise Malformed("order/unknown_key", f"{problems[0][0]}: {problems[0][1]}",
                        errors=problems)


def decide(state: State, command: Command, dice: Dice | None) -> Decision:
    """Validate `command` and return the events it causes (RulesError if refused)."""
    handler = COMMANDS.get(command.kind) or ORDERS.get(command.kind)
    if handler is None:
        raise Malformed("order/unknown_kind", f"unknown order kind {command.kind!r}",
                        errors=[("/order/kind", f"expected one of {sorted(ORDERS)}")])
    if command.kind in ORDERS:
        refuse_unknown_keys(command.kind, command.body)
        check_order_allowed(state, command)
    elif command.kind in ("admin.deadlines", "admin.force", "clock.expire"):
        if state.status == "finished":
            raise Refused("admin/finished", "the game is over")
    if command.kind in ("admin.edit", "admin.weather"):
        gm.refuse_if_proposal(state, command.kind)  # the rollback would undo it silently
    flow = Flow(state, dice, evolve=evolve, actor=command.actor.id, at=command.at,
                trigger=command.trigger)
    try:
        handler(flow, command)
    except RulesError as error:
        name_units(error, state)
        raise
    _side_returns(flow, command)
    answer_for_sides(flow, command)
    return Decision(flow.events, flow.state, flow.states)


def answer_for_sides(f: Flow, c: Command) -> None:
    """What the server answers for the sides where the game now awaits them: standing
    orders and held steps (issue 20), and the defaults of sides in civil disorder, until
    neither has anything more to answer."""
    for _ in range(10_000):
        before = len(f.events)
        modes.answer_by_standing(f)
        air.answer_by_standing(f)
        standing.answer(f, c.extra, ORDERS)
        gm.play_civil_disorder(f)
        if len(f.events) == before:
            return
    raise RuntimeError("the sides' answers did not end")


def name_units(error: RulesError, state: State) -> None:
    """Issue 16: a refusal names each unit it is about by id and name, in its items
    (`unit_labels`, by item path) and in its message."""
    sc = state.setup.scenario

    def known(uid: str | None) -> bool:
        try:
            return uid is not None and bool(sc.unit(uid))
        except KeyError:
            return False

    for path, _ in error.errors:
        uid = error.unit_of(path)
        if known(uid):
            assert uid is not None
            error.unit_labels[path] = {"id": uid, "name": sc.unit_name(uid)}
    main = error.extra.get("unit")
    if isinstance(main, str) and known(main):
        name = sc.unit_name(main)
        if f"{main} (" not in error.message and main in error.message:
            error.message = error.message.replace(main, f"{main} ({name})", 1)
        error.extra["unit_name"] = name


def _side_returns(f: Flow, c: Command) -> None:
    """A player of a side that had missed deadlines (or dropped out) acts again."""
    if c.actor.role != "player" or c.actor.side is None or c.kind not in ORDERS:
        return
    control = f.state.dropouts.get(c.actor.side)
    if control is not None and (control.missed or control.mode is not None):
        f.emit("side.returned", f"{c.actor.side} plays again: missed deadlines reset"
               + (f", the {control.mode} policy ends." if control.mode else "."),
               {"side": c.actor.side}, by=c.actor.id)
