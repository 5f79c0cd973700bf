"""The bodies of the game master's acts (docs/game-master.md) and of the players'
`consent` to a rollback. A GM with a key signs each act as an order of player "gm"
whose `kind` is the act's (`admin.pause`, ...) and whose body is below; a GM without
one posts the same bodies to `/admin/...` (where the player comes from the path)."""

from __future__ import annotations

from typing import Annotated, Any, NotRequired

from annotated_types import Ge, Le, MaxLen, MinLen
from typing_extensions import TypedDict

from service.rules.modes import Mode, Orientation
from service.rules.options import WeatherRow
from service.rules.scenario import MOST_FUEL
from service.rules.shapes import OrderKind, Pattern, closed
from service.rules.state import Step

Reason = Annotated[str, MaxLen(2000)]
Figure = Annotated[int, Ge(0), Le(10_000)]
Id = Annotated[str, MinLen(1), MaxLen(100)]


@closed
class ConsentBody(TypedDict):
    """`consent`: a side agrees to (or refuses) the pending rollback proposal."""

    proposal: Annotated[int, Ge(1)]
    agree: bool


@closed
class ReasonBody(TypedDict):
    """`admin.resume`, `admin.end`, `admin.force`, `admin.rollback_withdraw`: why, shown
    to every side in the log."""

    reason: NotRequired[Reason]


@closed
class PauseBody(TypedDict):
    """`admin.pause`: clocks stop until the GM resumes, at most `hours` (default and
    limit: `options.game.max_pause_hours`)."""

    reason: NotRequired[Reason]
    hours: NotRequired[Annotated[int, Ge(1), Le(10_000)] | None]


@closed
class DeadlinesBody(TypedDict):
    """`admin.deadlines`: seconds per step (null: none)."""

    deadlines: dict[Step, Annotated[int, Ge(1), Le(90 * 86400)] | None]
    reason: NotRequired[Reason]


@closed
class WeatherBody(TypedDict):
    """`admin.weather`: the weather table from turn `from_turn` on (null: the game's
    own)."""

    table: NotRequired[Annotated[list[WeatherRow], MinLen(10), MaxLen(10)] | None]
    from_turn: NotRequired[Annotated[int, Ge(1), Le(100_000)] | None]
    reason: NotRequired[Reason]


@closed
class UnitEdit(TypedDict, total=False):
    """What the GM may set of a unit."""

    at: str
    face_up: bool
    shattered: bool
    mode: Mode
    orientation: Orientation


@closed
class HexChange(TypedDict, total=False):
    """What the GM may set of a hex: its controller (a power, a minor or null) and its
    port's damage."""

    controller: str | None
    port_damaged: bool


@closed
class PowerEdit(TypedDict, total=False):
    """What the GM may set of a power's figures: production, RPs, chits and, where the
    scenario has fuel (RULES-NOTES 30), the fuel stock."""

    bp_spent_last_turn: Figure
    bp_on_rps: Figure
    rps: Figure
    chits: Figure
    fuel: Annotated[int, Ge(0), Le(MOST_FUEL)]


@closed
class EditBody(TypedDict):
    """`admin.edit`: units, hexes and powers changed, with the reason; `combat`, for a
    game without combat tables, the scenario's combat section (docs/scenario.md)."""

    reason: NotRequired[Reason]
    units: NotRequired[Annotated[dict[str, UnitEdit], MaxLen(1000)]]
    hexes: NotRequired[Annotated[dict[str, HexChange], MaxLen(1000)]]
    powers: NotRequired[Annotated[dict[str, PowerEdit], MaxLen(100)]]
    combat: NotRequired[dict[str, Any]]


@closed
class RollbackBody(TypedDict):
    """`admin.rollback`: back to the start of impulse `impulse` of turn `turn`; past
    revealed dice the other sides than `requested_by` must consent."""

    turn: Annotated[int, Ge(1), Le(100_000)]
    impulse: Annotated[int, Ge(1), Le(100_000)]
    reason: NotRequired[Reason]
    requested_by: NotRequired[Id | None]


# An Ed25519 public key: base64url of its raw 32 bytes (as every other key field).
PUBLIC_KEY = r"^[A-Za-z0-9_-]{43}=?$"


@closed
class KeyBody(TypedDict):
    """A new Ed25519 key for a player (base64url of the raw 32 bytes); `consent` is its
    current key's signature over {type: "wif-key-consent/1", game, player, public_key}."""

    public_key: Annotated[str, Pattern(PUBLIC_KEY)]
    reason: NotRequired[Reason]
    new_token: NotRequired[bool]
    consent: NotRequired[Annotated[str, MaxLen(200)] | None]


@closed
class KeyAct(KeyBody):
    """`admin.replace_key` signed by the GM: the player is named in the body."""

    player_id: Id


@closed
class ReopenAct(ReasonBody):
    """`admin.reopen_seat` signed by the GM: revoke a player's seat for a substitute."""

    player_id: Id


@closed
class DropoutBody(TypedDict):
    """`admin.dropout`: a side dropped out (its dropout policy applies) or is back."""

    side: Id
    dropped: NotRequired[bool]
    reason: NotRequired[Reason]


@closed
class ActBody(TypedDict):
    """`admin.act`: the GM plays an order of kind `kind` for a side that dropped out (or
    whose seat awaits a substitute); `body` is that order kind's body."""

    side: Id
    kind: OrderKind
    body: NotRequired[dict[str, object]]
    reason: NotRequired[Reason]
