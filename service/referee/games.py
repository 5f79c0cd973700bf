"""Use cases around a game's life: create, join a seat, GM commands, the clock."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from service.crypto import chain, signing, tokens
from service.crypto.canonical import canonical_bytes, sha256_hex
from service.referee.core import (
    Applied,
    append,
    apply,
    game_lock_key,
    lock_game,
    rfc3339,
    state_of,
    utc_now,
)
from service.rules import Actor, Command, Event, Setup, initial_state
from service.rules.errors import Malformed, Refused, RulesError
from service.rules.options import resolve_options
from service.rules.scenario import (
    Scenario,
    ScenarioInvalid,
    load_builtin_scenario,
    parse_scenario,
    scenario_to_json,
)
from service.settings import get_settings
from service.store.models import GameRow, PlayerRow

D10_PURPOSES = ("initiative", "weather", "turn_end")


class Unauthorized(Exception):
    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


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
                        f"{problems[0][0]}: {problems[0][1]}", rule="DESIGN 6",
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
            if purpose not in (*D10_PURPOSES, "roll"):
                problems.append((f"/dice/script/{purpose}", "purposes: initiative, weather, "
                                 "turn_end, roll"))
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


async def create_game(session: AsyncSession, request: Mapping[str, Any]) -> dict[str, Any]:
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
    row = GameRow(
        id=game_id, name=request["name"], status="open", version=0, scenario=scenario_json,
        options=options, dice=dice, gm_token_hash=tokens.hash_token(gm_token),
        join_codes={s: tokens.hash_token(c) for s, c in codes.items()}, state={},
        head_seq=0, head_hash=chain.genesis_hash(game_id), rules_version="",
    )
    from service.rules import RULES_VERSION

    row.rules_version = RULES_VERSION
    session.add(row)
    await session.flush()
    created = Event(
        kind="game.created",
        text=f"Game {request['name']!r} created from scenario {scenario.id} "
             f"({dice['mode']} dice).",
        data={"name": request["name"], "scenario": scenario.id, "title": scenario.title,
              "scenario_hash": sha256_hex(canonical_bytes(scenario_json)), "options": options,
              "dice_mode": dice["mode"], "sides": sides},
        actor="gm", at=rfc3339(utc_now()),
    )
    await append(session, row, state, [created])
    return {"id": game_id, "gm_token": gm_token, "join_codes": codes}


def check_public_key(key: str, path: str = "/public_key") -> None:
    try:
        signing.parse_public_key(key)
    except signing.InvalidKey as error:
        raise Malformed("seat/bad_public_key", str(error), errors=[(path, str(error))]) from None


async def join_seat(
    session: AsyncSession, game_id: str, side: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    """Take a seat with the side's join code while the game is open, or take over a seat
    the GM reopened, with the join code the GM issued for it (a substitute)."""
    game = await lock_game(session, game_id)
    expected = game.join_codes.get(side)
    if expected is None:
        raise Malformed("seat/unknown_side", f"no side {side!r} in this game",
                        errors=[("/side", f"expected one of {sorted(game.join_codes)}")])
    code = tokens.hash_token(str(body["join_code"]))
    vacated = next((pid for pid, h in (game.substitute_codes or {}).items() if h == code), None)
    if code != expected and vacated is None:
        raise Unauthorized("seat/bad_join_code", f"that is not the join code of {side}")
    check_public_key(body["public_key"])
    player_id = uuid.uuid4().hex
    token = tokens.new_token()
    actor = Actor(id=player_id, role="player", side=side)
    if vacated is not None and code != expected:
        command = Command(kind="seat.substitute", actor=actor, at=rfc3339(utc_now()),
                          body={"side": side, "old_player_id": vacated, "name": body["name"],
                                "player_id": player_id})
    else:
        command = Command(kind="seat.take", actor=actor, at=rfc3339(utc_now()),
                          body={"side": side, "powers": body.get("powers"),
                                "name": body["name"], "player_id": player_id})
    applied = await apply(session, game, command)
    seat = applied.state.seats[player_id]
    await session.execute(insert(PlayerRow).values(
        game_id=game_id, id=player_id, side=side, name=body["name"], powers=list(seat.powers),
        public_key=body["public_key"], token_hash=tokens.hash_token(token), active=True,
        keys=[{"public_key": body["public_key"], "from_seq": 0}],
    ))
    if vacated is not None and code != expected:
        codes = {k: v for k, v in game.substitute_codes.items() if k != vacated}
        await session.execute(update(GameRow).where(GameRow.id == game_id)
                              .values(substitute_codes=codes))
    return {"player_id": player_id, "token": token, "side": side, "powers": list(seat.powers)}


async def gm_command(
    session: AsyncSession, game_id: str, kind: str, body: Mapping[str, Any],
    extra: Mapping[str, Any] | None = None,
) -> Applied:
    game = await lock_game(session, game_id)
    command = Command(kind=kind, body=body, actor=Actor(id="gm", role="gm"),
                      at=rfc3339(utc_now()), extra=extra or {})
    return await apply(session, game, command)


async def sweep_deadlines(session: AsyncSession, now: Any = None, limit: int = 20) -> int:
    """Apply the default action wherever a step's deadline has passed, and resume the
    games whose pause reached its maximum length. Safe with several processes: each
    game is claimed with FOR UPDATE SKIP LOCKED, so one applies it."""
    now = now or utc_now()
    rows = (
        await session.execute(
            select(GameRow)
            .where(GameRow.status.in_(("active", "paused")), GameRow.next_deadline <= now)
            .order_by(GameRow.next_deadline)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    ).scalars().all()
    applied = 0
    advisory = get_settings().game_lock == "advisory"
    for game in rows:
        if advisory and not await session.scalar(
                select(func.pg_try_advisory_xact_lock(game_lock_key(game.id)))):
            continue  # an order holds the game; the next sweep sees it again
        command = Command(kind="clock.expire", body={}, actor=Actor(id="clock", role="clock"),
                          at=rfc3339(now))
        try:
            await apply(session, game, command)
            applied += 1
        except RulesError:
            continue
    return applied


__all__ = ["Refused", "Unauthorized", "create_game", "gm_command", "join_seat", "state_of",
           "sweep_deadlines"]
