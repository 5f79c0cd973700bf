"""Request bodies (the pinned shapes of DESIGN.md 4.0 and 4.1), with examples."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

Name = Field(min_length=1, max_length=80)


def first_nul(value: Any) -> str | None:
    """The JSON pointer of a string (value or key) in `value` holding a NUL character,
    or None: PostgreSQL cannot store one in text, so no request may carry one."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return where or "/"
        elif isinstance(item, dict):
            for key, inner in item.items():
                at = f"{where}/{str(key).replace('~', '~0').replace('/', '~1')}"
                if isinstance(key, str) and "\x00" in key:
                    return at
                stack.append((at, inner))
        elif isinstance(item, list):
            stack.extend((f"{where}/{i}", inner) for i, inner in enumerate(item))
    return None


class Body(BaseModel):
    """A request body: no text in it, however deep, may contain a NUL character (422
    naming where, before anything reaches the database)."""

    @model_validator(mode="before")
    @classmethod
    def _no_nul(cls, data: Any) -> Any:
        where = first_nul(data)
        if where is not None:
            raise PydanticCustomError("nul_character", "text may not contain NUL (U+0000) "
                                      "characters", {"at": where})
        return data


class CreateGame(Body):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{
            "name": "Drang 1945", "scenario": "dno-demo",
            "options": {"turn_end": {"threshold": 83}},
            "dice": {"mode": "scripted", "script": {"initiative": [5, 8, 5]}},
        }]},
    )
    name: str = Name
    scenario: str | dict[str, Any] = Field(description="a built-in id or an inline scenario")
    options: dict[str, Any] = Field(default_factory=dict)
    dice: dict[str, Any] = Field(default_factory=lambda: {"mode": "fair"})
    gm_public_key: str | None = Field(default=None, max_length=200, description=(
        "the GM's Ed25519 key (base64url): the GM then signs every act as an order of "
        "player \"gm\" and exports prove them (docs/security.md)"))


class JoinSeat(Body):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{
            "join_code": "k3J9...", "name": "Dave",
            "public_key": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "powers": ["cw", "usa"],
            "signature": "<base64url Ed25519 by that key over the RFC 8785 bytes of "
                         "{type: wif-join/1, game, side, name, public_key, powers}>",
        }]},
    )
    join_code: str = Field(min_length=1, max_length=200)
    name: str = Name
    public_key: str = Field(min_length=1, max_length=200)
    powers: list[str] | None = Field(default=None, max_length=20)
    signature: str = Field(min_length=1, max_length=200, description=(
        "Ed25519 by `public_key` over the RFC 8785 bytes of {type: 'wif-join/1', game, "
        "side, name, public_key, powers} (docs/api.md): proves the key is held, and is the "
        "join's contribution to the dice"))


class Order(Body):
    model_config = ConfigDict(extra="forbid")
    game: str = Field(max_length=100)
    player: str = Field(max_length=100, description="the signer: a player's id, or \"gm\"")
    seq: int = Field(ge=0, le=2**53 - 1)
    prev: str = Field(pattern="^[0-9a-f]{64}$", description=(
        "the hash of the newest event the signer saw (the game's `head`): an order over a "
        "history the server did not show is refused, and `verify` checks every one"))
    turn: int = Field(ge=0, le=1_000_000)
    impulse: int = Field(ge=0, le=1_000_000)
    step: str = Field(max_length=40)
    kind: str = Field(max_length=40)
    body: dict[str, Any] = Field(default_factory=dict)


ORDER_EXAMPLES: dict[str, dict[str, Any]] = {
    "roll": {"dice": "2d10", "purpose": "attrition in 1432"},
    "declare": {"actions": {"cw": "land", "usa": "pass"},
                "chits": {"cw": {"kind": "land", "hq": "cw-hq-monty"}}},
    "initiative.reroll": {"demand": True},
    "initiative.choose": {"position": "last"},
    "done": {},
    "production": {"powers": {"cw": {"bp_spent": 30, "bp_on_rps": 5}}},
    "mode": {"changes": [{"unit": "ger-arm-1", "mode": "move"},
                         {"unit": "ger-inf-2", "mode": "reserve", "orientation": "combat"}]},
    "release": {"units": ["cw-arm-1"]},
    "report": {"moves": [{"unit": "ger-arm-1", "to": "h31", "mp": 3, "transport": None}],
               "combats": [{"by": "combat", "hex": "h21", "attackers": ["ger-arm-1"],
                            "results": [{"kind": "dg"},
                                        {"kind": "retreat", "units": ["cw-inf-1"],
                                         "path": ["h11"]},
                                        {"kind": "exploit", "units": ["ger-arm-1"],
                                         "rating": 3}]}],
               "face_down": ["ger-arm-1"]},
    "reorg": {"power": "cw", "items": [
        {"unit": "cw-inf-50", "method": "overseas", "source": "1227", "port": "1333"},
        {"unit": "usa-arm-2", "method": "atr", "atr": "cw-atr-1"},
        {"unit": "cw-ftr-3", "method": "hq", "hq": "cw-hq-montgomery"}]},
}

STEP_OF = {"declare": "declare", "initiative.reroll": "initiative.reroll",
           "initiative.choose": "initiative.choose", "production": "production",
           "reorg": "reorganization", "release": "reaction", "mode": "action",
           "report": "combat", "roll": "action", "done": "action"}


class SignedOrder(Body):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [
            {"order": {"game": "<game id>", "player": "<player id>", "seq": i + 1,
                       "prev": "<hash of the newest event seen>", "turn": 1,
                       "impulse": 1, "step": STEP_OF[kind],
                       "kind": kind, "body": body},
             "signature": "<base64url Ed25519 over the RFC 8785 bytes of order>"}
            for i, (kind, body) in enumerate(ORDER_EXAMPLES.items())
        ]},
    )
    order: Order
    signature: str = Field(min_length=1, max_length=200)


class AdminReason(Body):
    model_config = ConfigDict(extra="forbid")
    reason: str = Field(default="", max_length=2000)


class AdminDeadlines(Body):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"deadlines": {"declare": 86400, "production": None},
                                         "reason": "one day per declaration"}]},
    )
    deadlines: dict[str, int | None]
    reason: str = Field(default="", max_length=2000)


Role = Literal["player", "gm"]


class WebhookSettings(Body):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"url": "https://example.org/wif-hook",
                                         "every_event": False}]},
    )
    url: str = Field(min_length=8, max_length=2000, pattern=r"^https?://")
    every_event: bool = False


class Empty(Body):
    """A body that says nothing (optional; `{}` when sent, anything more is 422)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{}]})


class AdminWeather(Body):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{
            "table": [{"roll": r, "weather": "fine", "dice": 2, "supply_path": 4}
                      for r in range(1, 11)],
            "from_turn": 3, "reason": "summer"}]},
    )
    table: list[dict[str, Any]] | None = Field(default=None, max_length=10)
    from_turn: int | None = Field(default=None, ge=1, le=100_000)
    reason: str = Field(default="", max_length=2000)


Reason = Field(default="", max_length=2000, description="why: shown to every side in the log")


class AdminPause(Body):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"reason": "summer holidays", "hours": 72}]},
    )
    reason: str = Reason
    hours: int | None = Field(default=None, ge=1, le=10_000, description=(
        "how long at most (default and limit: the game's options.game.max_pause_hours); "
        "the game then resumes by itself"))


class AdminEdit(Body):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{
            "reason": "the Allies' corps was misplaced in the tabletop game",
            "units": {"cw-inf-1": {"at": "1332", "face_up": True}},
            "hexes": {"1332": {"controller": "cw", "port_damaged": False}},
            "powers": {"cw": {"bp_spent_last_turn": 30, "bp_on_rps": 5}},
        }]},
    )
    reason: str = Reason
    units: dict[str, dict[str, Any]] = Field(
        default_factory=dict, max_length=1000,
        description="unit id -> {at, face_up, shattered, mode, orientation}")
    hexes: dict[str, dict[str, Any]] = Field(
        default_factory=dict, max_length=1000,
        description="hex id -> {controller (power, minor or null), port_damaged}")
    powers: dict[str, dict[str, Any]] = Field(
        default_factory=dict, max_length=100,
        description="power id -> {bp_spent_last_turn, bp_on_rps, rps, chits}")


class AdminRollback(Body):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"turn": 2, "impulse": 5, "requested_by": "allies",
                                         "reason": "the Allies declared for the wrong power"}]},
    )
    turn: int = Field(ge=1, le=100_000)
    impulse: int = Field(ge=1, le=100_000)
    reason: str = Reason
    requested_by: str | None = Field(
        default=None, max_length=40,
        description="the side that asked for it: its consent is not needed")


class AdminKey(Body):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{
            "public_key": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
            "reason": "Dave lost his laptop", "new_token": True}]},
    )
    public_key: str = Field(min_length=1, max_length=200)
    reason: str = Reason
    new_token: bool = Field(default=False, description="also issue a new token (the old "
                            "one stops working); returned to the GM")
    consent: str | None = Field(default=None, max_length=200, description=(
        "the player's consent: its current key's Ed25519 signature over the RFC 8785 bytes "
        "of {type: 'wif-key-consent/1', game, player, public_key}. Without it the new key "
        "may order only after options.game.key_wait_hours, and the old key no more"))


class AdminDropout(Body):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"side": "communists", "dropped": True,
                                         "reason": "no answer for three weeks"}]},
    )
    side: str = Field(min_length=1, max_length=40)
    dropped: bool = Field(default=True, description="true: the side's dropout policy "
                          "applies now; false: the side is back with its players")
    reason: str = Reason


class AdminAct(Body):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"side": "communists", "kind": "declare",
                                         "body": {"actions": {"ussr": "pass"}},
                                         "reason": "playing the Communists until a "
                                                   "substitute joins"}]},
    )
    side: str = Field(min_length=1, max_length=40)
    kind: str = Field(min_length=1, max_length=40)
    body: dict[str, Any] = Field(default_factory=dict)
    reason: str = Reason


class ImportGame(Body):
    """An export (GET /games/{id}/export, complete) from another server."""

    model_config = ConfigDict(extra="ignore")
    format: str = Field(max_length=100)
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
