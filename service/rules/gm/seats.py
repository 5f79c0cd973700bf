"""Seats the GM changes: key replacement, a seat reopened for a substitute, the
substitute taking it (docs/game-master.md)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from service.rules.command import Command
from service.rules.errors import Refused
from service.rules.events import Event, EventKind
from service.rules.flow import Flow
from service.rules.gm.common import RULE, reason_of, require_running, seat_named, with_reason
from service.rules.state import (
    Evolver,
    Seat,
    SideControl,
    State,
)


def replace_key(f: Flow, c: Command) -> None:
    if f.state.status == "finished":
        raise Refused("admin/finished", "the game is over", rule=RULE)
    seat = seat_named(f.state, c.body.get("player_id"))
    if seat.vacant:
        raise Refused("admin/seat_vacant", f"{seat.player_id}'s seat was reopened for a "
                      "substitute; the substitute brings a key", rule=RULE)
    key = c.body.get("public_key")
    reason = reason_of(c)
    consented = c.body.get("consented") is True
    if consented:
        effective, when = c.at, "orders from now on verify with the new key"
    else:
        hours = int(f.state.setup.options.get("game", {}).get("key_wait_hours", 24))
        effective = (datetime.fromisoformat(c.at) + timedelta(hours=hours)).isoformat()
        effective = effective.replace("+00:00", "Z")
        when = (f"without the player's consent: the old key orders no more, the new one "
                f"may order from {effective} ({hours} h)")
    f.emit("player.key_replaced", with_reason(
        f"The GM replaces the signing key of {seat.name} ({seat.side}); {when}.", reason),
        {"player_id": seat.player_id, "side": seat.side, "public_key": key,
         "consented": consented, "effective_at": effective, "reason": reason}, by="gm")


def new_key(f: Flow, c: Command) -> None:
    """`seat.new_key`: a player makes a new key (another device's) its signing key with
    the consent of its current key, which the referee checked: in force at once, with no
    wait (docs/game-master.md, "Keys, seats and substitutes")."""
    if f.state.status == "finished":
        raise Refused("admin/finished", "the game is over", rule=RULE)
    seat = seat_named(f.state, c.body.get("player_id"))
    if seat.vacant:
        raise Refused("admin/seat_vacant", f"{seat.player_id}'s seat was reopened for a "
                      "substitute", rule=RULE)
    f.emit("player.key_replaced", f"{seat.name} ({seat.side}) makes a new key their signing "
           "key, with the consent of the old one (another device): orders from now on "
           "verify with the new key.",
           {"player_id": seat.player_id, "side": seat.side, "public_key": c.body["public_key"],
            "consented": True, "effective_at": c.at, "reason": "", "by": "player"},
           by=seat.player_id)


def reopen_seat(f: Flow, c: Command) -> None:
    require_running(f.state, "reassigning a seat")
    seat = seat_named(f.state, c.body.get("player_id"))
    if seat.vacant:
        raise Refused("admin/seat_vacant", f"{seat.player_id}'s seat is already open for a "
                      "substitute", rule=RULE)
    reason = reason_of(c)
    f.emit("seat.reopened", with_reason(
        f"The GM reopens {seat.name}'s seat ({seat.side}: {', '.join(seat.powers)}) for a "
        "substitute player; their token is revoked.", reason),
        {"player_id": seat.player_id, "side": seat.side, "powers": list(seat.powers),
         "reason": reason}, by="gm")


def _reopened(state: State, e: Event) -> State:
    seat = state.seats[e.data["player_id"]]
    return replace(state, seats={**state.seats, seat.player_id: replace(seat, vacant=True)})


def substitute(f: Flow, c: Command) -> None:
    require_running(f.state, "taking over a seat")
    old = seat_named(f.state, c.body.get("old_player_id"), "/join_code")
    if not old.vacant or old.side != c.body.get("side"):
        raise Refused("seat/not_vacant", "that join code is for no open seat of this side",
                      rule=RULE)
    player = c.body["player_id"]
    f.emit("seat.substituted", f"{c.body['name']} takes over {old.name}'s seat ({old.side}: "
           f"{', '.join(old.powers)}) as a substitute.",
           {"player_id": player, "old_player_id": old.player_id, "side": old.side,
            "name": c.body["name"], "powers": list(old.powers)}, by=player)


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


EVOLVE: dict[EventKind, Evolver] = {
    "seat.reopened": _reopened,
    "seat.substituted": _substituted,
}
