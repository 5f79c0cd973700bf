"""What the GM's commands share: reasons, and checks of sides and seats they name."""

from __future__ import annotations

from typing import Final

from service.rules.command import Command
from service.rules.errors import Malformed, Refused
from service.rules.state import (
    Seat,
    State,
)

RULE: Final = "docs/game-master.md"


def reason_of(c: Command) -> str:
    reason = c.body.get("reason", "")
    return reason if isinstance(reason, str) else ""


def with_reason(text: str, reason: str) -> str:
    return f"{text} Reason: {reason}" if reason else text


def require_running(state: State, what: str) -> None:
    if state.status not in ("active", "paused"):
        raise Refused("admin/not_active", f"{what} needs a game in play (status "
                      f"{state.status})", rule=RULE)


def side_named(state: State, side: object, path: str) -> str:
    if side not in state.setup.sides:
        raise Malformed("admin/unknown_side", f"no side {side!r} in this game",
                        errors=[(path, f"expected one of {', '.join(state.setup.sides)}")])
    return str(side)


def seat_named(state: State, player: object, path: str = "/player_id") -> Seat:
    seat = state.seats.get(player) if isinstance(player, str) else None
    if seat is None:
        raise Malformed("admin/unknown_player", f"no player {player!r} in this game",
                        errors=[(path, "unknown player")])
    return seat


def is_int(value: object, most: int = 10_000) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= most
