"""Use cases around a game's life: create, join a seat, GM commands, the clock."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from service.answers import Created, GameList, Joined, Summary
from service.clock import rfc3339, utc_now
from service.crypto import chain, identity, signing, tokens
from service.crypto import dice as crypto_dice
from service.crypto.canonical import canonical_bytes, sha256_hex
from service.referee import members, summaries
from service.referee.dice import new_dice
from service.referee.errors import NotFound, RefereeError, Unauthorized
from service.referee.ledger import Applied, append, apply, record_of
from service.rules import (
    RULES_VERSION,
    Actor,
    Command,
    Setup,
    decide,
    initial_state,
)
from service.rules.errors import Malformed, Refused, RulesError
from service.rules.options import resolve_options
from service.rules.scenario import (
    Scenario,
    ScenarioInvalid,
    builtin_scenario_ids,
    load_builtin_scenario,
    parse_scenario,
    scenario_to_json,
)
from service.rules.view import Divergence
from service.store.games import Game
from service.store.models import GameRow
from service.store.uow import UnitOfWork

D10_PURPOSES = ("initiative", "weather", "turn_end")
# The scenarios a game may be created from by id (docs/scenario.md).
BUILTIN_SCENARIOS: tuple[str, ...] = tuple(builtin_scenario_ids())


@dataclass(frozen=True, slots=True)
class Sizes:
    """The largest game this server accepts (`MAX_MAP_HEXES`, `MAX_UNITS`), and whether
    the request came with the operator key (which may exceed them)."""

    hexes: int
    units: int
    operator: bool = False


class TooLarge(RefereeError):
    """A game larger than the server accepts (413)."""

    status = 413


def check_size(scenario: object, sizes: Sizes, path: str = "/scenario") -> None:
    """A scenario's map and units against the server's limits, counted before anything
    parses it: 413 `scenario/too_large` naming the setting unless the operator asks."""
    if sizes.operator or not isinstance(scenario, Mapping):
        return
    board = scenario.get("map")
    hexes = board.get("hexes") if isinstance(board, Mapping) else None
    units = scenario.get("units")
    for count, most, setting, where, what in (
            (len(hexes) if isinstance(hexes, list) else 0, sizes.hexes, "MAX_MAP_HEXES",
             f"{path}/map/hexes", "hexes"),
            (len(units) if isinstance(units, list) else 0, sizes.units, "MAX_UNITS",
             f"{path}/units", "units")):
        if count > most:
            raise TooLarge("scenario/too_large", f"the scenario has {count:,} {what}; this "
                           f"server accepts at most {most:,} ({setting}); a larger game "
                           "needs the operator key", errors=[(where, f"more than {most:,}")],
                           extra={"setting": setting, "limit": most, "found": count})


def _scenario(given: str | Mapping[str, Any]) -> Scenario:
    if isinstance(given, str):
        try:
            return load_builtin_scenario(given)
        except KeyError:
            raise Malformed("game/unknown_scenario", f"no built-in scenario {given!r}",
                            errors=[("/scenario", "unknown scenario id")]) from None
    try:
        return parse_scenario(given)
    except ScenarioInvalid as error:
        problems = [(f"/scenario/{p.path}".replace(".", "/").replace("[", "/").replace("]", ""),
                     p.message) for p in error.problems]
        raise Malformed("scenario/invalid",
                        f"the scenario has {len(problems)} problem(s); first: "
                        f"{problems[0][0]}: {problems[0][1]}", rule="docs/scenario.md",
                        errors=problems) from None


def _dice_config(given: Mapping[str, Any] | None) -> dict[str, Any]:
    given = dict(given or {"mode": "fair"})
    mode = given.get("mode", "fair")
    if mode == "fair":
        return {"mode": "fair"}
    if mode == "seeded":
        seed = given.get("seed")
        try:
            ok = isinstance(seed, str) and 16 <= len(bytes.fromhex(seed)) <= 64
        except ValueError:
            ok = False
        if not ok:
            raise Malformed("game/invalid_dice", "a seeded game needs a hex master seed of "
                            "16-64 bytes", errors=[("/dice/seed", "expected 32-128 hex digits")])
        return {"mode": "seeded", "seed": str(seed).lower()}
    if mode == "scripted":
        script = given.get("script") or {}
        problems: list[tuple[str, str]] = []
        if not isinstance(script, Mapping):
            raise Malformed("game/invalid_dice", "script maps purposes to die faces",
                            errors=[("/dice/script", "expected an object")])
        for purpose, values in script.items():
            faces = 10 if purpose in D10_PURPOSES else 100
            if purpose not in (*D10_PURPOSES, "roll", "combat"):
                problems.append((f"/dice/script/{purpose}", "purposes: initiative, weather, "
                                 "turn_end, roll, combat"))
            elif not isinstance(values, list) or len(values) > 10_000:
                problems.append((f"/dice/script/{purpose}", "expected a list of die faces"))
            else:
                for i, v in enumerate(values):
                    if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= faces:
                        problems.append((f"/dice/script/{purpose}/{i}",
                                         f"a die face is 1-{faces}"))
        if problems:
            raise Malformed("game/invalid_dice", f"{problems[0][0]}: {problems[0][1]}",
                            errors=problems)
        return {"mode": "scripted", "script": {k: list(v) for k, v in script.items()}}
    raise Malformed("game/invalid_dice", "dice mode is fair, seeded or scripted",
                    errors=[("/dice/mode", "expected fair, seeded or scripted")])


async def create_game(uow: UnitOfWork, request: Mapping[str, Any],
                      sizes: Sizes | None = None) -> Created:
    if sizes is not None:
        check_size(request["scenario"], sizes)
    scenario = _scenario(request["scenario"])
    sides = [s.id for s in scenario.sides]
    options = resolve_options(request.get("options"), len(sides), tuple(sides))
    dice = _dice_config(request.get("dice"))
    game_id = uuid.uuid4().hex
    gm_token = tokens.new_token()
    codes = {side: tokens.new_join_code() for side in sides}
    scenario_json = scenario_to_json(scenario)
    setup = Setup(game_id=game_id, scenario=scenario, options=options, dice_mode=dice["mode"])
    state = initial_state(setup)
    gm_key = request.get("gm_public_key")
    if gm_key is not None:
        check_public_key(str(gm_key), "/gm_public_key")
    row = GameRow(
        id=game_id, name=request["name"], status="open", version=0, scenario=scenario_json,
        options=options, dice=dice, gm_token_hash=tokens.hash_token(gm_token),
        gm_public_key=gm_key,
        join_codes={s: tokens.hash_token(c) for s, c in codes.items()}, state={},
        head_seq=0, head_hash=chain.genesis_hash(game_id), rules_version=RULES_VERSION,
        hexes=len(scenario.map.hexes), units=len(scenario.units),
    )
    uow.games.add(row)
    await uow.games.flush()
    command = Command(
        kind="game.create", actor=Actor(id="gm", role="gm"), at=rfc3339(utc_now()),
        body={"name": request["name"], "scenario": scenario.id, "title": scenario.title,
              "scenario_hash": sha256_hex(canonical_bytes(scenario_json)),
              "options": options, "dice_mode": dice["mode"],
              "dice_algorithm": crypto_dice.ALGORITHM, "sides": sides,
              "gm_public_key": gm_key})
    server_dice = new_dice(game_id, dice)
    applied = await append(uow, Game(row, state, 0), decide(state, command, server_dice),
                           server_dice)
    await uow.commands.add(game_id, record_of(command, applied.events[0]["seq"], None))
    return {"id": game_id, "gm_token": gm_token, "join_codes": codes}


def check_public_key(key: str, path: str = "/public_key") -> None:
    try:
        signing.parse_public_key(key)
    except signing.InvalidKey as error:
        raise Malformed("seat/bad_public_key", str(error), errors=[(path, str(error))]) from None


async def join_seat(uow: UnitOfWork, game_id: str, side: str, body: Mapping[str, Any]
                    ) -> Joined:
    """Take a seat with the side's join code while the game is open, or take over a seat
    the GM reopened, with the join code the GM issued for it (a substitute)."""
    game = await uow.games.lock(game_id)
    expected = game.row.join_codes.get(side)
    if expected is None:
        raise NotFound("seat/unknown_side", f"no side {side!r} in this game; its sides are "
                       f"{', '.join(sorted(game.row.join_codes))}",
                       errors=[("/side", f"expected one of {sorted(game.row.join_codes)}")])
    code = tokens.hash_token(str(body["join_code"]))
    substitutes = game.row.substitute_codes or {}
    vacated = next((pid for pid, h in substitutes.items() if h == code), None)
    if code != expected and vacated is None:
        raise Unauthorized("seat/bad_join_code", f"that is not the join code of {side}")
    check_public_key(body["public_key"])
    join = identity.join_object(game_id, side, body["name"], body["public_key"],
                                body.get("powers"))
    if not signing.verify(body["public_key"], identity.signing_bytes(join),
                          str(body["signature"])):
        raise Unauthorized("seat/bad_signature", "the join's signature does not verify with "
                           "the key it registers (docs/api.md: what a join signs)")
    player_id = identity.player_id_of(body["public_key"])
    if player_id in game.state.seats:
        raise Refused("seat/key_in_use", "a seat of this game already has that key: each "
                      "player joins with a key of its own", errors=[("/public_key", "in use")])
    token = tokens.new_token()
    actor = Actor(id=player_id, role="player", side=side)
    substitute = vacated is not None and code != expected
    trigger = crypto_dice.trigger_of(str(body["signature"]))
    if substitute:
        command = Command(kind="seat.substitute", actor=actor, at=rfc3339(utc_now()),
                          body={"side": side, "old_player_id": vacated, "name": body["name"],
                                "player_id": player_id}, trigger=trigger)
    else:
        command = Command(kind="seat.take", actor=actor, at=rfc3339(utc_now()),
                          body={"side": side, "powers": body.get("powers"),
                                "name": body["name"], "player_id": player_id}, trigger=trigger)
    applied = await apply(uow, game, command,
                          signed={"join": join, "signature": str(body["signature"])})
    seat = applied.state.seats[player_id]
    await uow.players.add(
        game_id=game_id, id=player_id, side=side, name=body["name"], powers=list(seat.powers),
        public_key=body["public_key"], token_hash=tokens.hash_token(token), active=True,
        keys=[{"public_key": body["public_key"], "from_seq": 0}])
    if substitute:
        await uow.games.update(game_id, substitute_codes={
            k: v for k, v in substitutes.items() if k != vacated})
    return {"player_id": player_id, "token": token, "side": side, "powers": list(seat.powers),
            "head": applied.head}


def summary(game: Game) -> Summary:
    """A game's summary: where it stands and who must act."""
    return summaries.summary(game.row, summaries.state_summary(
        game.state, {"seq": game.head_seq, "hash": game.head_hash}))


async def game_summary(uow: UnitOfWork, game_id: str, token: str) -> Summary:
    """The summary as the caller sees it: the GM also sees the replay-check flag. From
    rows alone when the row's summary is current (docs/api.md)."""
    m = await members.member(uow, game_id, token, watching=True)
    found = summaries.summary(m.row, await summaries.state_summary_of(uow, m.row))
    if m.is_gm:
        found["divergence"] = cast(Divergence | None, m.row.divergence)
    return found


async def list_games(uow: UnitOfWork, token: str, *, limit: int, after: str | None
                     ) -> GameList:
    """The games the token belongs to, a page at a time (401 for a token of none)."""
    digest = tokens.hash_token(token)
    rows = await uow.games.of_token(digest, after=after, limit=limit + 1)
    if not rows and not after:
        raise Unauthorized("auth/bad_token", "unknown token", headers=members.BEARER)
    members.seen_valid(digest)
    page = rows[:limit]
    return {"games": [summaries.summary(row, await summaries.state_summary_of(uow, row))
                      for row in page],
            "next": page[-1].id if len(rows) > limit else None}


def gm_actor_command(kind: str, body: Mapping[str, Any],
                     extra: Mapping[str, Any] | None = None) -> Command:
    return Command(kind=kind, body=body, actor=Actor(id="gm", role="gm"),
                   at=rfc3339(utc_now()), extra=extra or {})


@dataclass
class Swept:
    """What a sweep did: how many games' defaults it applied, and the games it left to a
    worker process (`leave`)."""

    applied: int = 0
    left: list[str] = field(default_factory=list)


async def sweep_deadlines(uow: UnitOfWork, now: Any = None, limit: int = 20) -> int:
    """Apply the default action wherever a step's deadline has passed, and resume the
    games whose pause reached its maximum length: how many games it applied. Safe with
    several processes: each game is claimed with FOR UPDATE SKIP LOCKED, so one applies
    it."""
    return (await sweep(uow, now, limit)).applied


async def sweep(uow: UnitOfWork, now: Any = None, limit: int = 20, *,
                leave: Callable[[GameRow], bool] | None = None,
                game_id: str | None = None) -> Swept:
    """`sweep_deadlines`, only `game_id`'s if given; a game `leave` picks (a big one,
    whose default may plan every face-down unit) is listed instead, for a worker
    process to sweep (`sweep_game`)."""
    now = now or utc_now()
    swept = Swept()
    for row in await uow.games.claim_due(now, limit, game_id):
        if leave is not None and leave(row):
            swept.left.append(row.id)
            continue
        game = await uow.games.with_state(row)
        command = Command(kind="clock.expire", body={}, actor=Actor(id="clock", role="clock"),
                          at=rfc3339(now))
        try:
            await apply(uow, game, command)
            swept.applied += 1
        except RulesError:
            continue
    return swept


async def sweep_game(uow: UnitOfWork, game_id: str, now: Any = None) -> int:
    """One game's sweep (a big game's, in a worker process): 1 if its default applied."""
    return (await sweep(uow, now, 1, game_id=game_id)).applied


__all__ = ["Applied", "Swept", "Unauthorized", "create_game", "game_summary",
           "join_seat", "list_games", "summary", "sweep", "sweep_deadlines", "sweep_game"]
