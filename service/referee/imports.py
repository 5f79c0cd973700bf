"""Import (docs/game-master.md): an operator's act that makes a game of another
server's export, only when the export verifies in full (`service.verify`: every
signature, every key proven from the log, every roll's trigger, the replay of every
command). Verifying a big game takes a while, so it runs first and apart from the
transaction (`verify`, in a worker thread: the event loop stays free); the import
then takes only what it gave (`Verified`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from service.answers import Export, Imported, ImportedPlayer
from service.crypto import identity, tokens
from service.crypto.canonical import canonical_bytes, sha256_hex
from service.referee.games import gm_actor_command
from service.referee.ledger import apply, moment
from service.rules import (
    RULES_VERSION,
    Event,
    Setup,
    State,
    clock_started,
    evolve,
    initial_state,
    next_due,
)
from service.rules.codec import to_data
from service.rules.errors import Malformed, Refused
from service.rules.options import resolve_options
from service.rules.scenario import ScenarioInvalid, parse_scenario
from service.store.games import SNAPSHOT_AFTER
from service.store.models import GameRow
from service.store.uow import UnitOfWork

RULE = "docs/game-master.md"


@dataclass(frozen=True, slots=True)
class Verified:
    """An export `verify` accepted in full: what `import_game` takes."""

    export: Mapping[str, Any]


def verify(export: Mapping[str, Any]) -> Verified:
    """A complete export that `verify` accepts in full, or a 422 naming what fails (a
    partial export, whose sealed answers are withheld, is refused too). Pure CPU: run
    it in a worker thread."""
    from service.verify import verify_export

    if export.get("format") != "wif-referee-export/2":
        raise _problem("/format", "expected wif-referee-export/2")
    if export.get("complete") is not True:
        raise _problem("/complete", "the export withholds sealed decisions: export it as "
                       "the GM")
    try:
        report = verify_export(cast(Export, dict(export)))  # its shape is what is checked
    except Exception as error:  # noqa: BLE001 - any malformed export is a 422
        raise _problem("/", f"the export cannot be verified: {type(error).__name__}") from None
    failed = [c for c in report.checks if not c.ok]
    if failed:
        raise Malformed("import/verification_failed", f"the export does not verify: "
                        f"{failed[0].name}: {failed[0].detail}", rule=RULE,
                        errors=[(f"/{c.name.replace(' ', '_')}", c.detail) for c in failed])
    if report.unchecked:
        raise Malformed("import/verification_failed", "the export verifies only in part: "
                        f"{report.unchecked[0]}", rule=RULE,
                        errors=[("/complete", what) for what in report.unchecked])
    return Verified(export)


def _problem(path: str, message: str) -> Malformed:
    return Malformed("import/invalid_export", f"{path}: {message}",
                     rule=RULE, errors=[(path, message)])


def _dice_config(export: Mapping[str, Any]) -> dict[str, Any]:
    """The imported game's dice: a seeded game's master seed is secret until the game
    ends, so an unfinished seeded game goes on with fair dice; a scripted game keeps
    its script if the export has it (finished games), else falls back to fair rolls."""
    dice = export["dice"]
    mode = dice.get("mode")
    if mode == "seeded" and isinstance(dice.get("master_seed"), str):
        return {"mode": "seeded", "seed": dice["master_seed"]}
    if mode == "scripted":
        script = dice.get("script")
        return {"mode": "scripted", "script": script if isinstance(script, dict) else {}}
    return {"mode": "fair"}


async def import_game(uow: UnitOfWork, verified: Verified) -> Imported:
    """Create a game from a complete export that verified in full; the hash chain goes
    on from its last event. Players keep their ids and keys and get new tokens; the GM
    gets a new token and new join codes. The current turn's dice seed stayed on the old
    server, so the rest of the turn gets a new commitment (`dice.recommitted`)."""
    export = verified.export
    game_id = str(export["game"]["id"])
    if await uow.games.exists(game_id):
        raise Refused("import/exists", f"game {game_id} already exists on this server",
                      rule=RULE)
    try:
        scenario = parse_scenario(export["scenario"])
    except ScenarioInvalid:
        raise _problem("/scenario", "not a valid scenario") from None
    options = resolve_options(export["options"], len(scenario.sides),
                              tuple(s.id for s in scenario.sides))
    _check_members(export, tuple(s.id for s in scenario.sides))
    dice = _dice_config(export)
    setup = Setup(game_id=game_id, scenario=scenario, options=options, dice_mode=dice["mode"])
    events: list[dict[str, Any]] = list(export["events"])
    state, snapshots = _replay(setup, events)
    head = events[-1]
    gm_token = tokens.new_token()
    codes = {s.id: tokens.new_join_code() for s in scenario.sides}
    uow.games.add(GameRow(
        id=game_id, name=str(export["game"].get("name") or game_id), status=state.status,
        version=int(export["game"].get("version") or 0), scenario=export["scenario"],
        options=options, dice=dice, gm_token_hash=tokens.hash_token(gm_token),
        join_codes={s: tokens.hash_token(c) for s, c in codes.items()}, state={},
        head_seq=int(head["seq"]), head_hash=str(head["hash"]), rules_version=RULES_VERSION,
        gm_public_key=export["game"].get("gm_public_key"),
        next_deadline=moment(next_due(state)),
        step_started_at=moment(clock_started(state)), substitute_codes={},
        hexes=len(scenario.map.hexes), units=len(scenario.units),
    ))
    await uow.games.flush()
    await uow.log.append(game_id, [
        {k: e[k] for k in ("seq", "turn", "impulse", "step", "kind", "actor", "text", "data",
                           "at", "rules_version", "hash")} for e in events])
    await uow.log.add_snapshots([
        {"game_id": game_id, "seq": seq, "turn": data["turn"]["number"],
         "impulse": data["turn"]["impulse"], "state": data} for seq, data in snapshots])
    player_tokens = await _import_members(uow, game_id, export)
    await uow.commands.add_many(game_id, [dict(c) for c in export["commands"]])
    game = await uow.games.lock(game_id)
    source = {"rules_version": export["game"].get("rules_version"),
              "version": export["game"].get("version"), "events": len(events),
              "dice_mode": export["dice"].get("mode")}
    applied = await apply(uow, game, gm_actor_command("game.import", {"source": source}))
    return {"id": game_id, "gm_token": gm_token, "join_codes": codes,
            "players": player_tokens, "version": applied.version,
            "events": applied.events}


async def _import_members(uow: UnitOfWork, game_id: str, export: Mapping[str, Any]
                          ) -> dict[str, ImportedPlayer]:
    """The players with new tokens (keys and ids kept), and their signed orders."""
    player_tokens: dict[str, ImportedPlayer] = {}
    for p in export["players"]:
        token = tokens.new_token()
        active = bool(p.get("active", True))
        player_tokens[p["id"]] = {"side": p["side"], "name": p["name"],
                                  "token": token if active else None}
        await uow.players.add(
            game_id=game_id, id=p["id"], side=p["side"], name=p["name"],
            powers=list(p["powers"]), public_key=p["public_key"],
            token_hash=tokens.hash_token(token), active=active,
            keys=p.get("keys") or [{"public_key": p["public_key"], "from_seq": 0}])
    orders = [o for o in export["orders"] if isinstance(o, Mapping)]
    await uow.orders.add_many([
        {"game_id": game_id, "player_id": o["order"]["player"], "seq": o["order"]["seq"],
         "order_hash": sha256_hex(canonical_bytes(o["order"])),
         "envelope": {"order": o["order"], "signature": o["signature"]},
         "result": {"accepted": True, "imported": True},
         "first_event": o.get("first_event")} for o in orders])
    return player_tokens


def _check_members(export: Mapping[str, Any], sides: tuple[str, ...]) -> None:
    """Players and orders (theirs, and the GM's signed acts in a game with a GM key) the
    database can take (verification checked their keys and signatures, not their
    shape)."""
    seen: set[str] = set()
    for i, p in enumerate(export["players"]):
        ok = (isinstance(p.get("id"), str) and p["id"] not in seen and p.get("side") in sides
              and isinstance(p.get("name"), str) and isinstance(p.get("powers"), list)
              and isinstance(p.get("keys", []), list))
        if not ok:
            raise _problem(f"/players/{i}", "a player is {id (unique), side, name, powers, "
                           "public_key, keys}")
        seen.add(p["id"])
    orders: set[tuple[Any, Any]] = set()
    for i, o in enumerate(export["orders"]):
        order = o.get("order") if isinstance(o, Mapping) else None
        key = (order.get("player"), order.get("seq")) if isinstance(order, Mapping) else None
        signers = seen | ({identity.GM} if export["game"].get("gm_public_key") else set())
        if key is None or key[0] not in signers or not isinstance(key[1], int) \
                or key in orders \
                or not isinstance(o.get("first_event", 0), int | None):
            raise _problem(f"/orders/{i}", "an order of a player of the game, its seq unused")
        orders.add(key)


def _replay(setup: Setup, events: list[dict[str, Any]]
            ) -> tuple[State, list[tuple[int, dict[str, Any]]]]:
    """The state after `events` and the snapshots the referee keeps (game.created,
    impulse.began, turn.began, and the head)."""
    state = initial_state(setup)
    snapshots: list[tuple[int, dict[str, Any]]] = []
    for record in events:
        state = evolve(state, Event.from_record(record))
        if record["kind"] in SNAPSHOT_AFTER or record is events[-1]:
            snapshots.append((int(record["seq"]), to_data(state)))
    return state, snapshots



__all__ = ["Verified", "import_game", "verify"]
