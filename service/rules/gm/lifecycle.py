"""A game's life outside the turn: seats taken, pause and resume, the end, step
deadlines, the GM forcing defaults and the clock (docs/game-master.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime, timedelta

from service.rules import state as st
from service.rules.awaiting import awaiting, deadline
from service.rules.command import Command
from service.rules.errors import Malformed, Refused
from service.rules.events import Event, EventKind
from service.rules.flow import Flow
from service.rules.gm.dropouts import check_dropouts
from service.rules.gm.rollback import refuse_if_proposal
from service.rules.state import Evolver, Seat, State
from service.rules.turn import apply_defaults, new_chain, start_game


def create(f: Flow, c: Command) -> None:
    """`game.create`: the game as the referee made it (its name, scenario, options and
    dice mode), then the chain of dice seeds every turn will use, committed before any
    player joins (docs/dice.md)."""
    if f.state.status != "open" or f.state.seats:
        raise Refused("game/exists", "the game was created already")
    body = dict(c.body)
    f.emit("game.created", f"Game {body['name']!r} created from scenario {body['scenario']} "
           f"({body['dice_mode']} dice).", body, by="gm")
    new_chain(f, 1)


def take_seat(f: Flow, c: Command) -> None:
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
        start_game(f)


def pause(f: Flow, c: Command) -> None:
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


def resume(f: Flow, c: Command) -> None:
    if f.state.status != "paused":
        raise Refused("admin/not_paused", "the game is not paused")
    reason = c.body.get("reason", "")
    f.emit("game.resumed", f"The game resumes: {reason}", {"reason": reason},
           by="clock" if c.actor.role == "clock" else "gm")


def end(f: Flow, c: Command) -> None:
    if f.state.status == "finished":
        raise Refused("admin/finished", "the game is already over")
    reason = c.body.get("reason", "")
    f.emit("game.ended", f"The GM ends the game: {reason}", {"reason": reason}, by="gm")
    dice = f.state.dice
    current = f.state.turn.number
    # The current turn's seed, unless it is out or stayed on the server the game was
    # imported from; with it, every earlier seed of its chain is known (docs/dice.md).
    if current >= 1 and current not in dice.revealed and current not in dice.elsewhere \
            and f.dice is not None:
        seed = f.dice.reveal(current)
        f.emit("dice.revealed", f"Dice seed of turn {current} revealed (game over).",
               {"turn": current, "seed": seed}, by="gm")


def duration_words(seconds: int) -> str:
    """A deadline for people: "2 days 6 h", "1 h 30 min", "45 s"."""
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{days} day{'s' if days != 1 else ''}" if days else "",
             f"{hours} h" if hours else "", f"{minutes} min" if minutes else "",
             f"{secs} s" if secs else ""]
    return " ".join(p for p in parts if p)


def set_deadlines(f: Flow, c: Command) -> None:
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
    shown = "; ".join(f"{step.replace('_', ' ')} {duration_words(merged[step])}"
                      for step in st.STEPS if step in merged) or "none"
    f.emit("deadlines.set", f"The GM sets step deadlines: {shown}. "
           f"{c.body.get('reason', '')}".strip(), {"deadlines": merged,
                                                  "reason": c.body.get("reason", "")}, by="gm")


def force_defaults(f: Flow, c: Command) -> None:
    if f.state.status != "active":
        raise Refused("admin/not_active", "defaults apply only in an active game")
    refuse_if_proposal(f.state, c.kind)
    f.emit("default.forced", f"The GM forces the default action at {f.state.step}: "
           f"{c.body.get('reason', '')}", {"step": f.state.step,
                                          "reason": c.body.get("reason", "")}, by="gm")
    apply_defaults(f, "gm")


def clock_expired(f: Flow, c: Command) -> None:
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


def _seat_taken(state: State, e: Event) -> State:
    player = e.data["player_id"]
    seat = Seat(player_id=player, side=e.data["side"], name=e.data["name"],
                powers=tuple(e.data["powers"]))
    powers = dict(state.powers)
    for p in seat.powers:
        powers[p] = replace(powers[p], holder=player)
    return replace(state, seats={**state.seats, player: seat}, powers=powers)


def _paused(state: State, e: Event) -> State:
    return replace(state, status="paused", paused_at=e.at, pause_until=e.data.get("until"))


def _resumed(state: State, e: Event) -> State:
    """Clocks stop while paused: the step's start, and the asking of a combat question
    waiting, move forward by the pause's length."""
    if not state.paused_at:
        return replace(state, status="active", paused_at=None, pause_until=None)
    paused_for = datetime.fromisoformat(e.at) - datetime.fromisoformat(state.paused_at)

    def later(moment: str) -> str:
        return (datetime.fromisoformat(moment) + paused_for).isoformat()

    started = state.turn.step_started_at
    modes = state.modes
    res = modes.resolution
    if res is not None and res.question is not None and res.question.asked_at:
        asked = later(res.question.asked_at).replace("+00:00", "Z")
        modes = replace(modes, resolution=replace(
            res, question=replace(res.question, asked_at=asked)))
    return replace(state, status="active", paused_at=None, pause_until=None, modes=modes,
                   turn=replace(state.turn, step_started_at=started and later(started)))


def _ended(state: State, e: Event) -> State:
    return replace(state, status="finished", turn=replace(state.turn, step="finished"))


def _deadlines_set(state: State, e: Event) -> State:
    return replace(state, deadlines={k: int(v) for k, v in e.data["deadlines"].items()})


EVOLVE: dict[EventKind, Evolver] = {
    "seat.taken": _seat_taken,
    "game.paused": _paused,
    "game.resumed": _resumed,
    "game.ended": _ended,
    "deadlines.set": _deadlines_set,
}
