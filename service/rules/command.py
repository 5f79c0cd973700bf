"""Commands: what a player, the GM or the clock asks of the rules, and who asks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["player", "gm", "clock", "server"]


@dataclass(frozen=True, slots=True)
class Actor:
    """Who gives a command: a player (with the side and powers held), the GM, the clock."""

    id: str
    role: Role
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
    # What the command's signature contributes to its rolls (docs/dice.md): the SHA-256
    # of the signature of a signed order, GM act or join; "" for the clock's commands.
    trigger: str = ""
