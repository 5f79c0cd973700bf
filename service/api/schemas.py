"""Request bodies at the API edge (docs/api.md), strict: a key a shape does not declare is
a 422 naming it, and no value is coerced (a signed "7" is not 7).

The signed order is a union discriminated by `kind`, one variant per order kind and GM
act, whose `body` is the rules' own TypedDict for that kind (`service/rules/shapes.py`):
the OpenAPI document, the validator and the handlers read one declaration, so they
cannot drift. The referee verifies the signature over the order exactly as it arrived.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, cast

from pydantic import BaseModel, ConfigDict, Field, create_model

from service.referee.games import BUILTIN_SCENARIOS
from service.rules import ACT_BODIES, ORDER_BODIES, PositionStep, steps_of

STRICT = ConfigDict(extra="forbid", strict=True)
Name = Field(min_length=1, max_length=80)
Key = Field(min_length=43, max_length=44, pattern=r"^[A-Za-z0-9_-]{43}=?$",
            description="an Ed25519 public key: base64url of its raw 32 bytes")


class Strict(BaseModel):
    model_config = STRICT


class FairDice(Strict):
    """Every turn's dice from secret random seeds, committed before any roll."""

    mode: Literal["fair"]


class SeededDice(Strict):
    """Reproducible dice from a master seed the creator gives (tournaments, replays)."""

    mode: Literal["seeded"]
    seed: str = Field(pattern=r"^([0-9a-fA-F]{2}){16,64}$",
                      description="the master seed: 16-64 bytes as hex (32-128 digits)")


class Script(Strict):
    """Die faces per purpose, consumed in order; fair dice once a list runs out."""

    initiative: list[Annotated[int, Field(ge=1, le=10)]] = Field(default=[], max_length=10_000)
    weather: list[Annotated[int, Field(ge=1, le=10)]] = Field(default=[], max_length=10_000)
    turn_end: list[Annotated[int, Field(ge=1, le=10)]] = Field(default=[], max_length=10_000)
    roll: list[Annotated[int, Field(ge=1, le=100)]] = Field(default=[], max_length=10_000)
    combat: list[Annotated[int, Field(ge=1, le=100)]] = Field(default=[], max_length=10_000,
                                                              description=(
        "the referee's combat dice in order: a surprise roll, its shift and the combat "
        "roll itself, each die of each"))


class ScriptedDice(Strict):
    """The creator's die faces (tutorials, re-playing a tabletop game, tests); flagged
    as scripted in every view and export."""

    mode: Literal["scripted"]
    script: Script = Field(default_factory=Script)


Dice = Annotated[FairDice | SeededDice | ScriptedDice, Field(discriminator="mode")]


if TYPE_CHECKING:
    Builtin = str
else:
    Builtin = Literal.__getitem__(BUILTIN_SCENARIOS)


class CreateGame(Strict):
    model_config = ConfigDict(
        extra="forbid", strict=True,
        json_schema_extra={"examples": [{
            "name": "Drang 1945", "scenario": "dno-demo",
            "options": {"turn_end": {"threshold": 83}, "dropout": {"policy": "gm"}},
            "dice": {"mode": "scripted", "script": {"initiative": [10, 1, 1, 10, 1, 1],
                                                    "weather": [8, 8], "turn_end": [9] * 12,
                                                    "combat": [4, 4, 5]}},
        }]},
    )
    name: str = Name
    scenario: Builtin | dict[str, Any] = Field(description=(
        "a built-in scenario's id, or a whole scenario (docs/scenario.md)"))
    options: dict[str, Any] = Field(default_factory=dict, description=(
        "the game options (docs/rules-options.md); each omitted one takes its default"))
    dice: Dice = Field(default_factory=lambda: FairDice(mode="fair"))
    gm_public_key: str | None = Field(default=None, min_length=43, max_length=44,
                                      pattern=r"^[A-Za-z0-9_-]{43}=?$", description=(
        "the GM's Ed25519 key (base64url): the GM then signs every act as an order of "
        "player \"gm\" and exports prove them (docs/security.md)"))


class JoinSeat(Strict):
    model_config = ConfigDict(
        extra="forbid", strict=True,
        json_schema_extra={"examples": [{
            "join_code": "k3J9TqV0b2xVwQ", "name": "Dave",
            "public_key": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "powers": ["cw", "usa"],
            "signature": "a" * 86,
        }]},
    )
    join_code: str = Field(min_length=1, max_length=200)
    name: str = Name
    public_key: str = Key
    powers: list[Annotated[str, Field(min_length=1, max_length=40)]] | None = Field(
        default=None, min_length=1, max_length=20,
        description="the powers taken (omitted: every power of the side not yet held)")
    signature: str = Field(min_length=1, max_length=200, description=(
        "Ed25519 by `public_key` over the RFC 8785 bytes of {type: 'wif-join/1', game, "
        "side, name, public_key, powers} (docs/api.md): proves the key is held, and is the "
        "join's contribution to the dice"))


# One example body per order kind and GM act, each legal where `EXAMPLE_AT` says in the
# built-in dno-demo scenario, created by `CreateGame`'s example (tests/api/test_examples.py
# sends every example of the OpenAPI document there).
ORDER_EXAMPLES: dict[str, dict[str, Any]] = {
    "initiative.reroll": {"demand": True},
    "initiative.choose": {"position": "first"},
    "declare": {"actions": {"germany": "land", "italy": "pass", "japan": "pass"},
                "chits": {"germany": {"kind": "land", "hq": "ger-hq-rundstedt"}}},
    "mode": {"changes": [{"unit": "ger-inf-5", "mode": "reserve", "orientation": "combat"},
                         {"unit": "ger-inf-4", "mode": "move"}]},
    "report": {"combats": [{"by": "combat", "hex": "1106",
                            "attackers": ["ger-inf-4", "hun-inf-2"]}]},
    "combat.choose": {"hex": "1106", "retreat": ["1206"]},
    "roll": {"dice": "2d10", "purpose": "attrition in 0506"},
    "done": {},
    "release": {"units": ["cw-transport-1"]},
    "reorg": {"power": "germany", "items": [
        {"unit": "ger-inf-2", "method": "hq", "hq": "ger-hq-rundstedt"}]},
    "air.begin": {},
    "air.patrol": {"patrols": [{"unit": "cw-ftr-1", "hex": "0605"}]},
    "air.fly": {"power": "germany", "flights": [
        {"atr": "ger-atr-1", "hex": "0605", "units": ["ger-mot-1"]}],
        "escorts": [{"unit": "ger-ftr-1", "hex": "0605"}]},
    "air.intercept": {"interceptors": [{"unit": "usa-ftr-1", "hex": "0605"}]},
    "air.choose": {"hex": "0605", "lost": ["ger-ftr-1"], "aborted": []},
    "production": {"powers": {"germany": {"bp_spent": 30, "bp_on_rps": 5}}},
    "consent": {"proposal": 1, "agree": True},
    "standing": {"step": "reaction", "stops": [{"kind": "unit_attacked"}]},
    "steps": {"orders": [{"kind": "release", "body": {"units": ["ger-arm-1"]}}],
              "through": "exploitation"},
    "admin.pause": {"reason": "summer holidays", "hours": 72},
    "admin.resume": {"reason": "back from holidays"},
    "admin.deadlines": {"deadlines": {"declare": 86400, "production": None},
                        "reason": "one day per declaration"},
    "admin.weather": {"table": [{"roll": r, "weather": "fine", "dice": 2, "supply_path": 4}
                                for r in range(1, 11)], "from_turn": 3, "reason": "summer"},
    "admin.edit": {"reason": "the Allies' corps was misplaced in the tabletop game",
                   "units": {"cw-inf-1": {"at": "0406", "face_up": True}}},
    "admin.dropout": {"side": "communists", "reason": "no answer for three weeks"},
    "admin.act": {"side": "communists", "kind": "declare",
                  "body": {"actions": {"ussr": "pass"}},
                  "reason": "playing the Communists until a substitute joins"},
    "admin.force": {"reason": "the Communists' deadline passed"},
    "admin.rollback": {"turn": 1, "impulse": 1, "requested_by": "allies",
                       "reason": "the Allies declared for the wrong power"},
    "admin.rollback_withdraw": {"reason": "the Allies settled it otherwise"},
    "admin.replace_key": {"player_id": "<player id>",
                          "public_key": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
                          "reason": "Dave lost his laptop", "new_token": True},
    "admin.reopen_seat": {"player_id": "<player id>", "reason": "Dave left the game"},
    "admin.end": {"reason": "the Axis conceded"},
}

# Where each player's example is legal: (impulse, step); an impulse of None is the one
# the game has reached (a turn's production comes after however many impulses it took).
EXAMPLE_AT: dict[str, tuple[int | None, str]] = {
    "initiative.reroll": (0, "initiative.reroll"), "initiative.choose": (0, "initiative.choose"),
    "standing": (1, "declare"), "declare": (1, "declare"), "mode": (1, "action"),
    "report": (1, "combat"), "combat.choose": (1, "combat.choice"), "roll": (1, "action"),
    "done": (1, "action"),
    "release": (1, "reaction"), "steps": (1, "exploitation"), "reorg": (1, "reorganization"),
    "air.begin": (1, "reorganization"), "air.patrol": (1, "air.patrol"),
    "air.fly": (1, "air.flight"), "air.intercept": (1, "air.intercept"),
    "air.choose": (1, "air.choice"),
    "production": (None, "production"),
    "consent": (None, "consent"),
}


def _variant_name(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.replace(".", "_").split("_")) + "Order"


class OrderFields(Strict):
    """What every signed order says besides its kind and body."""

    game: str = Field(min_length=1, max_length=64)
    player: str = Field(min_length=1, max_length=64,
                        description="the signer: a player's id, or \"gm\"")
    seq: int = Field(ge=0, le=2**53 - 1, description=(
        "unique per signer (a nonce): a resent order with the same seq and bytes gets its "
        "first answer again"))
    prev: str = Field(pattern="^[0-9a-f]{64}$", description=(
        "the hash of the newest event the signer saw (the game's `head`): an order over a "
        "history the server did not show is refused, and `verify` checks every one"))
    turn: int = Field(ge=0, le=1_000_000)
    impulse: int = Field(ge=0, le=1_000_000)
    step: PositionStep


def _variant(kind: str, body: type) -> type[BaseModel]:
    impulse, step = EXAMPLE_AT.get(kind, (1, "declare"))
    example = {"game": "<game id>", "player": "gm" if kind.startswith("admin.") else
               "<player id>", "seq": 1, "prev": "<hash of the newest event seen>", "turn": 1,
               "impulse": 1 if impulse is None else impulse, "step": step, "kind": kind,
               "body": ORDER_EXAMPLES[kind]}
    # The document names the steps the kind answers (what a client sends); the server
    # takes any step, and answers one the kind does not answer with 409 order/wrong_step,
    # its receipt, `current` and `awaiting`.
    step = Field(json_schema_extra={"enum": list(steps_of(kind))}, description=(
        "the step the signer saw: one this kind answers"))
    model: type[BaseModel] = create_model(
        _variant_name(kind), __base__=OrderFields,
        __doc__=f"A signed order of kind `{kind}`: {body.__doc__ or ''}".strip(),
        kind=(cast(Any, Literal)[kind], ...), body=(body, ...), step=(PositionStep, step),
    )
    model.model_config["json_schema_extra"] = cast(Any, {"examples": [example]})
    model.model_rebuild(force=True)
    return model


ORDER_VARIANTS: dict[str, type[BaseModel]] = {
    kind: _variant(kind, body) for kind, body in {**ORDER_BODIES, **ACT_BODIES}.items()}
ORDER_KINDS = frozenset(ORDER_VARIANTS)
if TYPE_CHECKING:
    AnyOrder = dict[str, Any]
else:
    AnyOrder = Annotated[Union.__getitem__(tuple(ORDER_VARIANTS.values())),
                         Field(discriminator="kind")]


class SignedOrder(Strict):
    model_config = ConfigDict(
        extra="forbid", strict=True,
        json_schema_extra={"examples": [
            {"order": {"game": "<game id>", "player": "<player id>", "seq": 7,
                       "prev": "<hash of the newest event seen>", "turn": 1, "impulse": 1,
                       "step": "declare", "kind": "declare",
                       "body": ORDER_EXAMPLES["declare"]},
             "signature": "<base64url Ed25519 over the RFC 8785 bytes of order>"}]},
    )
    order: AnyOrder
    signature: str = Field(min_length=1, max_length=200, description=(
        "base64url Ed25519 by the signer's key over the RFC 8785 bytes of `order`"))


class WebhookSettings(Strict):
    model_config = ConfigDict(
        extra="forbid", strict=True,
        json_schema_extra={"examples": [{"url": "https://example.org/wif-hook",
                                         "every_event": False}]},
    )
    url: str = Field(min_length=8, max_length=2000, pattern=r"^https?://[^\s/?#]+[^\s]*$")
    every_event: bool = False


QUIET_HH_MM = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"


class QuietHours(Strict):
    """Hours not to send in (`from`-`to`, HH:MM, may wrap midnight, in `timezone`, an
    IANA name): "your move" waits for their end."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=False)
    from_: str = Field(alias="from", pattern=QUIET_HH_MM)
    to: str = Field(pattern=QUIET_HH_MM)
    timezone: str = Field(default="UTC", min_length=1, max_length=64)


class ChannelSettings(Strict):
    """A notification channel: `target` is an e-mail address (`email`) or the incoming
    webhook URL (`discord`, `slack`); `quiet_hours` hold messages; `digest_minutes`
    waits that long and sends every "your move" due by then in one message."""

    model_config = ConfigDict(
        extra="forbid", strict=True,
        json_schema_extra={"examples": [{
            "target": "https://discord.com/api/webhooks/1234567890/wif-example",
            "quiet_hours": {"from": "22:00", "to": "07:30", "timezone": "Europe/Paris"},
            "digest_minutes": 0}]})
    target: str = Field(min_length=3, max_length=2000)
    quiet_hours: QuietHours | None = None
    digest_minutes: int = Field(default=0, ge=0, le=1440)


class Empty(Strict):
    """A body that says nothing (optional; `{}` when sent, anything more is 422)."""

    model_config = ConfigDict(extra="forbid", strict=True,
                              json_schema_extra={"examples": [{}]})


class ImportGame(BaseModel):
    """An export (GET /games/{id}/export, complete) from another server."""

    model_config = ConfigDict(extra="ignore")
    format: Literal["wif-referee-export/2"]
    game: dict[str, Any]
    scenario: dict[str, Any]
    options: dict[str, Any]
    dice: dict[str, Any]
    players: list[dict[str, Any]] = Field(max_length=1000)
    orders: list[dict[str, Any]]
    commands: list[dict[str, Any]]
    events: list[dict[str, Any]] = Field(min_length=1)
    revealed_seeds: dict[str, str] = Field(default_factory=dict)
    server_keys: list[dict[str, Any]] = Field(default_factory=list)
    state: dict[str, Any]
    complete: bool
