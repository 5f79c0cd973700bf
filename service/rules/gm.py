"""The game master's powers beyond pause, deadlines and defaults (docs/game-master.md):
state edits, key replacement, seat reassignment and substitutes, dropouts, playing a
dropped-out side, rollback to the start of an impulse (with the consent of every other
side when it abandons revealed dice), and the import of a game from another server.

Every GM action is an event with the GM's reason, in the log every side reads. A
rollback is itself an event: the abandoned events stay in the log, the rollback names
them, and its data carries the restored state, so `evolve` needs nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from service.rules.awaiting import CONSENT
from service.rules.codec import to_data
from service.rules.decide import (
    ORDER_HANDLERS,
    SYSTEM_HANDLERS,
    Actor,
    Command,
    check_order_allowed,
    drop_out,
)
from service.rules.errors import Malformed, Refused
from service.rules.events import Event
from service.rules.evolve import evolves
from service.rules.flow import Flow
from service.rules.modes import MODES, ORIENTATIONS
from service.rules.scenario import uses_modes
from service.rules.state import (
    HexEdit,
    Proposal,
    Seat,
    SideControl,
    State,
    UnitState,
    state_from_data,
    with_map_edits,
)

RULE: Final = "docs/game-master.md"

# Events that record who plays, the GM's clock settings and the dice record, not the
# game's position: a rollback keeps their effects, so they are never shown as rolled
# back.
KEPT_KINDS: Final = frozenset({
    "seat.reopened", "seat.substituted", "player.key_replaced", "deadlines.set",
    "game.paused", "game.resumed", "deadline.passed", "side.dropped_out", "side.returned",
    "side.restored", "dice.committed", "dice.revealed", "dice.recommitted",
    "rollback.proposed", "rollback.consented", "rollback.refused", "rollback.withdrawn",
    "game.imported",
})

_UNIT_FIELDS: Final = ("at", "face_up", "shattered", "mode", "orientation")
_POWER_FIELDS: Final = ("bp_spent_last_turn", "bp_on_rps", "rps", "chits")


def _reason(c: Command) -> str:
    reason = c.body.get("reason", "")
    return reason if isinstance(reason, str) else ""


def _with_reason(text: str, reason: str) -> str:
    return f"{text} Reason: {reason}" if reason else text


def _running(state: State, what: str) -> None:
    if state.status not in ("active", "paused"):
        raise Refused("admin/not_active", f"{what} needs a game in play (status "
                      f"{state.status})", rule=RULE)


def _side(state: State, side: Any, path: str) -> str:
    if side not in state.setup.sides:
        raise Malformed("admin/unknown_side", f"no side {side!r} in this game",
                        errors=[(path, f"expected one of {', '.join(state.setup.sides)}")])
    return str(side)


def _seat(state: State, player: Any, path: str = "/player_id") -> Seat:
    seat = state.seats.get(player) if isinstance(player, str) else None
    if seat is None:
        raise Malformed("admin/unknown_player", f"no player {player!r} in this game",
                        errors=[(path, "unknown player")])
    return seat


# --------------------------------------------------------------------------- state edits


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10_000


def _edit_unit(state: State, uid: str, change: Any, problems: list[tuple[str, str]]
               ) -> dict[str, Any]:
    sc = state.setup.scenario
    where = f"/units/{uid}"
    try:
        spec = sc.unit(uid)
    except KeyError:
        problems.append((where, f"unknown unit {uid!r}"))
        return {}
    if not isinstance(change, Mapping) or not change:
        problems.append((where, f"expected some of {', '.join(_UNIT_FIELDS)}"))
        return {}
    out: dict[str, Any] = {}
    for key, value in change.items():
        at = f"{where}/{key}"
        if key == "at":
            if not isinstance(value, str) or not (sc.map.is_hex(value) or sc.map.is_sea(value)):
                problems.append((at, f"unknown hex or sea {value!r}"))
                continue
            if sc.map.is_sea(value) and spec.unit_class == "land":
                problems.append((at, "land units cannot be at sea"))
                continue
            if sc.map.is_hex(value) and spec.unit_class == "naval" and \
                    sc.map.hex(value).port is None:
                problems.append((at, f"naval units in a hex must be in a port; {value} has none"))
                continue
        elif key in ("face_up", "shattered"):
            if not isinstance(value, bool):
                problems.append((at, "expected true or false"))
                continue
        elif key in ("mode", "orientation"):
            allowed = MODES if key == "mode" else ORIENTATIONS
            if not uses_modes(spec):
                problems.append((at, f"{uid} uses no OCS modes (5.1)"))
                continue
            if value not in allowed:
                problems.append((at, f"expected one of {', '.join(allowed)}"))
                continue
        else:
            problems.append((at, f"unknown field {key!r}; editable: {', '.join(_UNIT_FIELDS)}"))
            continue
        out[key] = value
    if uid not in state.units and "at" not in out and not any(p[0].startswith(where)
                                                              for p in problems):
        problems.append((f"{where}/at", f"{uid} is not on the map: give `at` to place it"))
    return out


def _edit_hex(state: State, hid: str, change: Any, problems: list[tuple[str, str]]
              ) -> dict[str, Any]:
    sc = state.setup.scenario
    where = f"/hexes/{hid}"
    if not sc.map.is_hex(hid):
        problems.append((where, f"unknown hex {hid!r}"))
        return {}
    if not isinstance(change, Mapping) or not change:
        problems.append((where, "expected controller and/or port_damaged"))
        return {}
    h = sc.map.hex(hid)
    edit = {"controller": h.controller, "port_damaged": h.port_damaged}
    for key, value in change.items():
        at = f"{where}/{key}"
        if key == "controller":
            if value is not None and (not isinstance(value, str)
                                      or not (sc.is_power(value) or sc.is_minor(value))):
                problems.append((at, f"unknown power or minor {value!r}"))
                continue
        elif key == "port_damaged":
            if not isinstance(value, bool):
                problems.append((at, "expected true or false"))
                continue
            if h.port is None:
                problems.append((at, f"hex {hid} has no port"))
                continue
        else:
            problems.append((at, f"unknown field {key!r}; editable: controller, port_damaged"))
            continue
        edit[key] = value
    return edit


def _edit_power(state: State, pid: str, change: Any, problems: list[tuple[str, str]]
                ) -> dict[str, Any]:
    where = f"/powers/{pid}"
    if pid not in state.powers:
        problems.append((where, f"unknown power {pid!r}"))
        return {}
    if not isinstance(change, Mapping) or not change:
        problems.append((where, f"expected some of {', '.join(_POWER_FIELDS)}"))
        return {}
    out: dict[str, Any] = {}
    for key, value in change.items():
        if key not in _POWER_FIELDS:
            problems.append((f"{where}/{key}",
                             f"unknown field {key!r}; editable: {', '.join(_POWER_FIELDS)}"))
        elif not _int(value):
            problems.append((f"{where}/{key}", "expected an integer 0-10000"))
        else:
            out[key] = value
    return out


def _enemy_stacks(state: State, units: Mapping[str, Mapping[str, Any]]) -> None:
    """The scenario format's rule: no hex holds units of powers at war."""
    sc = state.setup.scenario
    placed = {uid: u.at for uid, u in state.units.items()}
    placed.update({uid: str(ch["at"]) for uid, ch in units.items() if "at" in ch})
    for uid in units:
        at = placed.get(uid)
        if at is None or not sc.map.is_hex(at):
            continue
        power = state.units[uid].power if uid in state.units else sc.unit(uid).power
        for other, where in placed.items():
            if where != at or other == uid:
                continue
            other_power = state.units[other].power if other in state.units \
                else sc.unit(other).power
            if sc.at_war(power, other_power):
                raise Refused("edit/enemy_stack", f"{uid} would share hex {at} with enemy "
                              f"unit {other}", rule="DESIGN 6",
                              errors=[(f"/units/{uid}/at", f"{other} (at war) is in {at}")])


def _edit(f: Flow, c: Command) -> None:
    s = f.state
    if s.status == "finished":
        raise Refused("admin/finished", "the game is over", rule=RULE)
    refuse = [k for k in c.body if k not in ("units", "hexes", "powers", "reason")]
    problems: list[tuple[str, str]] = [(f"/{k}", "unknown key; edit units, hexes, powers")
                                       for k in refuse]
    sections: dict[str, dict[str, Any]] = {}
    for key, check in (("units", _edit_unit), ("hexes", _edit_hex), ("powers", _edit_power)):
        given = c.body.get(key) or {}
        if not isinstance(given, Mapping):
            problems.append((f"/{key}", "expected an object keyed by id"))
            continue
        sections[key] = {str(k): check(s, str(k), v, problems) for k, v in given.items()}
    if problems:
        raise Malformed("edit/invalid", f"{len(problems)} problem(s): {problems[0][0]}: "
                        f"{problems[0][1]}", rule="DESIGN 6", errors=problems)
    if not any(sections.values()):
        raise Malformed("edit/empty", "nothing to edit: give units, hexes or powers",
                        errors=[("/", "no change")])
    _enemy_stacks(s, sections["units"])
    said = [f"{uid} {', '.join(f'{k}={v}' for k, v in ch.items())}"
            for uid, ch in sections["units"].items()]
    said += [f"hex {h} controller={e['controller']}, port_damaged={e['port_damaged']}"
             for h, e in sections["hexes"].items()]
    said += [f"{p} {', '.join(f'{k}={v}' for k, v in ch.items())}"
             for p, ch in sections["powers"].items()]
    reason = _reason(c)
    f.emit("state.edited", _with_reason(f"The GM edits the state: {'; '.join(said)}.", reason),
           {**sections, "reason": reason}, by="gm")


@evolves("state.edited")
def _edited(state: State, e: Event) -> State:
    sc = state.setup.scenario
    units = dict(state.units)
    eliminated = dict(state.modes.eliminated)
    for uid, change in e.data.get("units", {}).items():
        unit = units.get(uid)
        if unit is None:
            spec = sc.unit(uid)
            unit = UnitState(power=spec.power, at=spec.at, face_up=spec.face_up,
                             shattered=spec.shattered,
                             mode=spec.ocs.mode if spec.ocs else None,
                             orientation=spec.ocs.orientation if spec.ocs else None)
            eliminated.pop(uid, None)
        units[uid] = replace(unit, **{k: change[k] for k in _UNIT_FIELDS if k in change})
    powers = dict(state.powers)
    for pid, change in e.data.get("powers", {}).items():
        figures: dict[str, Any] = {k: int(v) for k, v in change.items()}
        powers[pid] = replace(powers[pid], **figures)
    state = replace(state, units=units, powers=powers,
                    modes=replace(state.modes, eliminated=eliminated))
    hexes = e.data.get("hexes", {})
    if hexes:
        edits = {**state.map_edits, **{h: HexEdit(controller=v["controller"],
                                                   port_damaged=bool(v["port_damaged"]))
                                       for h, v in hexes.items()}}
        state = replace(state, map_edits=edits, setup=with_map_edits(state.setup, edits))
    return state


# --------------------------------------------------------------------------- players


def _replace_key(f: Flow, c: Command) -> None:
    if f.state.status == "finished":
        raise Refused("admin/finished", "the game is over", rule=RULE)
    seat = _seat(f.state, c.body.get("player_id"))
    if seat.vacant:
        raise Refused("admin/seat_vacant", f"{seat.player_id}'s seat was reopened for a "
                      "substitute; the substitute brings a key", rule=RULE)
    key = c.body.get("public_key")
    reason = _reason(c)
    f.emit("player.key_replaced", _with_reason(
        f"The GM replaces the signing key of {seat.name} ({seat.side}); orders from now on "
        "verify with the new key.", reason),
        {"player_id": seat.player_id, "side": seat.side, "public_key": key,
         "reason": reason}, by="gm")


def _reopen_seat(f: Flow, c: Command) -> None:
    _running(f.state, "reassigning a seat")
    seat = _seat(f.state, c.body.get("player_id"))
    if seat.vacant:
        raise Refused("admin/seat_vacant", f"{seat.player_id}'s seat is already open for a "
                      "substitute", rule=RULE)
    reason = _reason(c)
    f.emit("seat.reopened", _with_reason(
        f"The GM reopens {seat.name}'s seat ({seat.side}: {', '.join(seat.powers)}) for a "
        "substitute player; their token is revoked.", reason),
        {"player_id": seat.player_id, "side": seat.side, "powers": list(seat.powers),
         "reason": reason}, by="gm")


@evolves("seat.reopened")
def _reopened(state: State, e: Event) -> State:
    seat = state.seats[e.data["player_id"]]
    return replace(state, seats={**state.seats, seat.player_id: replace(seat, vacant=True)})


def _substitute(f: Flow, c: Command) -> None:
    _running(f.state, "taking over a seat")
    old = _seat(f.state, c.body.get("old_player_id"), "/join_code")
    if not old.vacant or old.side != c.body.get("side"):
        raise Refused("seat/not_vacant", "that join code is for no open seat of this side",
                      rule=RULE)
    player = c.body["player_id"]
    f.emit("seat.substituted", f"{c.body['name']} takes over {old.name}'s seat ({old.side}: "
           f"{', '.join(old.powers)}) as a substitute.",
           {"player_id": player, "old_player_id": old.player_id, "side": old.side,
            "name": c.body["name"], "powers": list(old.powers)}, by=player)


@evolves("seat.substituted")
def _substituted(state: State, e: Event) -> State:
    old = state.seats[e.data["old_player_id"]]
    new = Seat(player_id=e.data["player_id"], side=old.side, name=e.data["name"],
               powers=old.powers)
    seats = {k: v for k, v in state.seats.items() if k != old.player_id}
    seats[new.player_id] = new
    powers = {p: (replace(ps, holder=new.player_id) if p in old.powers else ps)
              for p, ps in state.powers.items()}
    dropouts = dict(state.dropouts)
    if not any(s.vacant and s.side == old.side for s in seats.values()):
        dropouts[old.side] = SideControl()
    return replace(state, seats=seats, powers=powers, dropouts=dropouts)


# --------------------------------------------------------------------------- dropouts


def _dropout(f: Flow, c: Command) -> None:
    _running(f.state, "a dropout")
    side = _side(f.state, c.body.get("side"), "/side")
    dropped = c.body.get("dropped", True)
    control = f.state.dropouts.get(side, SideControl())
    reason = _reason(c)
    if dropped:
        if control.mode is not None:
            raise Refused("admin/already_dropped", f"{side} has already dropped out "
                          f"({control.mode})", rule=RULE)
        drop_out(f, side, f"declared by the GM: {reason}" if reason else "declared by the GM",
                 by="gm")
        return
    if control.mode is None and not control.missed:
        raise Refused("admin/not_dropped", f"{side} is played by its players", rule=RULE)
    f.emit("side.restored", _with_reason(f"The GM returns {side} to its players.", reason),
           {"side": side, "reason": reason}, by="gm")


def _act(f: Flow, c: Command) -> None:
    """The GM plays a side that dropped out or has a seat open for a substitute."""
    s = f.state
    side = _side(s, c.body.get("side"), "/side")
    kind = c.body.get("kind")
    if kind not in ORDER_HANDLERS:
        raise Malformed("order/unknown_kind", f"unknown order kind {kind!r}",
                        errors=[("/kind", f"expected one of {sorted(ORDER_HANDLERS)}")])
    body = c.body.get("body") or {}
    if not isinstance(body, Mapping):
        raise Malformed("order/invalid_body", "body must be an object",
                        errors=[("/body", "expected an object")])
    control = s.dropouts.get(side, SideControl())
    vacant = any(x.vacant and x.side == side for x in s.seats.values())
    if control.mode is None and not vacant:
        raise Refused("admin/side_not_dropped", f"{side} is played by its players: the GM "
                      "plays a side only after it dropped out or while a seat is open",
                      rule=RULE)
    order = Command(kind=str(kind), body=body, at=c.at, extra=c.extra,
                    actor=Actor(id="gm", role="gm", side=side, powers=s.side_powers(side)))
    check_order_allowed(s, order)
    reason = _reason(c)
    f.emit("gm.played", _with_reason(f"The GM plays {side}: {kind}.", reason),
           {"side": side, "kind": kind, "body": dict(body), "reason": reason}, by="gm")
    ORDER_HANDLERS[str(kind)](f, order)


# --------------------------------------------------------------------------- rollback


def rolled_back_state(current: State, target: State, at: str) -> State:
    """The game position of `target` (the start of an impulse) with what a rollback
    keeps from `current`: the status and pause, the seats and who holds each power,
    the deadlines, the dice record (commitments, revealed seeds) and the dropouts. The
    step's clock starts again at `at`."""
    powers = {p: replace(ps, holder=current.powers[p].holder) for p, ps in target.powers.items()}
    dice = replace(current.dice, rolls_this_turn=target.dice.rolls_this_turn,
                   script_used=dict(target.dice.script_used))
    return replace(target, status=current.status, paused_at=current.paused_at,
                   pause_until=current.pause_until, seats=current.seats, powers=powers,
                   deadlines=current.deadlines, dice=dice, dropouts=current.dropouts,
                   proposal=None, proposals=current.proposals,
                   turn=replace(target.turn, step_started_at=at))


def _target(c: Command) -> Mapping[str, Any]:
    """What the referee found in the log for the rollback: `to_seq` (the event after
    which the impulse's declaration began), `abandons` (first, last), `kept`, `rolls`
    (revealed dice rolls abandoned) and `restore` (the state after `to_seq`)."""
    target = c.extra.get("rollback")
    if not isinstance(target, Mapping):
        raise Refused("rollback/unknown_impulse", "no such impulse start in the live log",
                      rule=RULE)
    return target


def _rollback(f: Flow, c: Command) -> None:
    s = f.state
    _running(s, "a rollback")
    if s.proposal is not None:
        raise Refused("rollback/pending", f"rollback proposal {s.proposal.number} is still "
                      "pending: withdraw it first", rule=RULE)
    requested_by = c.body.get("requested_by")
    if requested_by is not None:
        requested_by = _side(s, requested_by, "/requested_by")
    turn, impulse = c.body.get("turn"), c.body.get("impulse")
    if not _int(turn) or not _int(impulse) or not turn or not impulse:
        raise Malformed("rollback/invalid", "name the impulse: turn and impulse, from 1",
                        errors=[("/turn", "expected an integer from 1"),
                                ("/impulse", "expected an integer from 1")])
    target = _target(c)
    reason = _reason(c)
    abandons = (int(target["abandons"][0]), int(target["abandons"][1]))
    rolls = int(target["rolls"])
    if rolls == 0:
        _roll_back(f, turn=turn, impulse=impulse, to_seq=int(target["to_seq"]),
                   abandons=abandons, kept=tuple(target["kept"]), rolls=0, reason=reason,
                   proposal=None, consents=(), restore=target["restore"])
        return
    if s.status != "active":
        raise Refused("rollback/paused", "a rollback past revealed dice needs the other "
                      "sides' consent, so the game must be running: resume it first",
                      rule=RULE)
    needs = [x for x in s.setup.sides if x != requested_by]
    number = s.proposals + 1
    f.emit("rollback.proposed", _with_reason(
        f"The GM proposes rollback {number} to the start of impulse {impulse} of turn {turn}: "
        f"events {abandons[0]}-{abandons[1]} would be abandoned, {rolls} revealed dice roll(s) "
        f"among them, so {', '.join(needs)} must consent (any may refuse).", reason),
        {"proposal": number, "to_seq": int(target["to_seq"]), "turn": turn,
         "impulse": impulse, "abandons": list(abandons), "kept": list(target["kept"]),
         "rolls": rolls, "needs": needs, "requested_by": requested_by, "reason": reason},
        by="gm")


def _roll_back(f: Flow, *, turn: int, impulse: int, to_seq: int, abandons: tuple[int, int],
               kept: tuple[int, ...], rolls: int, reason: str, proposal: int | None,
               consents: tuple[str, ...], restore: Mapping[str, Any]) -> None:
    current = f.state
    target = state_from_data(restore, current.setup)
    restored = rolled_back_state(current, target, f.at)
    f.emit("game.rolled_back", _with_reason(
        f"Rollback to the start of impulse {impulse} of turn {turn}: events {abandons[0]}-"
        f"{abandons[1]} are abandoned (they stay in the log, marked rolled back).", reason),
        {"proposal": proposal, "to_seq": to_seq, "turn": turn, "impulse": impulse,
         "abandons": list(abandons), "kept": list(kept), "rolls": rolls,
         "consents": list(consents), "reason": reason, "state": to_data(restored)}, by="gm")
    number = f.state.turn.number
    for t in sorted(x for x in current.dice.revealed if x >= number):
        recommit(f, t, f"the seed of turn {t} was revealed before the rollback")


def recommit(f: Flow, turn: int, why: str) -> None:
    """A new secret seed for the rest of `turn`, committed before its next roll."""
    assert f.dice is not None
    epoch = f.state.dice.epochs.get(turn, 0) + 1
    commitment = f.dice.recommit(turn, epoch)
    f.emit("dice.recommitted", f"New dice commitment for the rest of turn {turn} ({why}): "
           f"{commitment[:16]}...", {"turn": turn, "epoch": epoch, "commitment": commitment,
                                     "reason": why})


def _withdraw(f: Flow, c: Command) -> None:
    p = f.state.proposal
    if p is None:
        raise Refused("rollback/no_proposal", "no rollback proposal is pending", rule=RULE)
    reason = _reason(c)
    f.emit("rollback.withdrawn", _with_reason(f"The GM withdraws rollback proposal "
                                              f"{p.number}.", reason),
           {"proposal": p.number, "reason": reason}, by="gm")


def _consent(f: Flow, c: Command) -> None:
    p = f.state.proposal
    side = c.actor.side
    if p is None:
        raise Refused("rollback/no_proposal", "no rollback proposal is pending", rule=RULE)
    number = c.body.get("proposal")
    agree = c.body.get("agree")
    if not isinstance(agree, bool) or not isinstance(number, int) or isinstance(number, bool):
        raise Malformed("order/invalid_body", "consent is {proposal: number, agree: bool}",
                        errors=[("/body", "expected {proposal: integer, agree: boolean}")])
    if number != p.number:
        raise Refused("rollback/stale_proposal", f"the pending proposal is {p.number}, not "
                      f"{number}", rule=RULE, errors=[("/body/proposal", "not pending")])
    if side not in p.needs:
        raise Refused("order/not_your_turn", f"proposal {p.number} does not need {side}'s "
                      "consent", rule=RULE)
    if side in p.consented:
        raise Refused("order/already_answered", f"{side} already consented", rule=RULE)
    if not agree:
        f.emit("rollback.refused", f"{side} refuses rollback proposal {p.number}: the game "
               "goes on.", {"proposal": p.number, "side": side}, by=c.actor.id)
        return
    f.emit("rollback.consented", f"{side} consents to rollback proposal {p.number}.",
           {"proposal": p.number, "side": side}, by=c.actor.id)
    after = f.state.proposal
    assert after is not None
    if all(x in after.consented for x in after.needs):
        restore = c.extra.get("restore")
        if not isinstance(restore, Mapping):
            raise Refused("rollback/unavailable", "the state to restore is not available",
                          rule=RULE)
        _roll_back(f, turn=p.turn, impulse=p.impulse, to_seq=p.to_seq, abandons=p.abandons,
                   kept=p.kept, rolls=p.rolls, reason=p.reason, proposal=p.number,
                   consents=after.consented, restore=restore)


@evolves("rollback.proposed")
def _proposed(state: State, e: Event) -> State:
    d = e.data
    proposal = Proposal(number=int(d["proposal"]), to_seq=int(d["to_seq"]), turn=int(d["turn"]),
                        impulse=int(d["impulse"]), reason=d["reason"], needs=tuple(d["needs"]),
                        abandons=(int(d["abandons"][0]), int(d["abandons"][1])),
                        rolls=int(d["rolls"]), kept=tuple(d["kept"]),
                        requested_by=d.get("requested_by"))
    return replace(state, proposal=proposal, proposals=proposal.number)


@evolves("rollback.consented")
def _consented(state: State, e: Event) -> State:
    p = state.proposal
    assert p is not None
    return replace(state, proposal=replace(p, consented=(*p.consented, e.data["side"])))


@evolves("rollback.refused", "rollback.withdrawn")
def _dropped(state: State, e: Event) -> State:
    return replace(state, proposal=None)


@evolves("game.rolled_back")
def _rolled_back(state: State, e: Event) -> State:
    return state_from_data(e.data["state"], state.setup)


@evolves("game.imported")
def _game_imported(state: State, e: Event) -> State:
    elsewhere = tuple(int(t) for t in e.data.get("seeds_elsewhere", ()))
    return replace(state, dice=replace(state.dice, elsewhere=elsewhere))


@evolves("dice.recommitted")
def _recommitted(state: State, e: Event) -> State:
    turn = int(e.data["turn"])
    dice = state.dice
    revealed = {t: s for t, s in dice.revealed.items() if t != turn}
    return replace(state, dice=replace(
        dice, commitments={**dice.commitments, turn: e.data["commitment"]},
        epochs={**dice.epochs, turn: int(e.data["epoch"])}, revealed=revealed))


# --------------------------------------------------------------------------- import


def _imported(f: Flow, c: Command) -> None:
    """The game arrived from another server: its current turn's seed stayed there, so
    the rest of the turn gets a new commitment."""
    source = c.body.get("source") or {}
    s = f.state
    t = s.turn.number
    elsewhere = sorted(x for x in s.dice.commitments if x != t and x not in s.dice.revealed)
    f.emit("game.imported", "The game was imported from an export of another server "
           "(verified); play goes on from here.",
           {"source": dict(source), "seeds_elsewhere": elsewhere}, by="gm")
    if s.status in ("active", "paused") and t >= 1 and t not in s.dice.revealed:
        recommit(f, t, "imported: the seed stayed on the old server")


SYSTEM_HANDLERS.update({
    "admin.edit": _edit,
    "admin.replace_key": _replace_key,
    "admin.reopen_seat": _reopen_seat,
    "seat.substitute": _substitute,
    "admin.dropout": _dropout,
    "admin.act": _act,
    "admin.rollback": _rollback,
    "admin.rollback_withdraw": _withdraw,
    "game.import": _imported,
})
ORDER_HANDLERS[CONSENT] = _consent

__all__ = ["KEPT_KINDS", "recommit", "rolled_back_state"]
