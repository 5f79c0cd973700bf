"""The game master's use cases that need more than the rules: a rollback (find the
impulse in the live log, the events it abandons, the state to restore), key
replacement and seat reassignment (tokens, keys and join codes live in the database),
playing a dropped-out side. The import of another server's export: `referee.imports`.

Each checks that the caller is the game's GM. See docs/game-master.md for what each
does and what every side sees of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from service.answers import (
    ActOutcome,
    KeyReplaced,
    Outcome,
    SeatReopened,
)
from service.crypto import identity, signing, tokens
from service.referee import devices, members
from service.referee.abandoned import rollbacks, rolled_back
from service.referee.errors import NotFound, Unauthorized
from service.referee.games import check_public_key, gm_actor_command
from service.referee.ledger import Applied, apply
from service.rules import Event, Setup, evolve
from service.rules.codec import to_data
from service.rules.errors import Refused
from service.rules.gm import KEPT_KINDS
from service.rules.state import state_from_data
from service.store.games import Game
from service.store.models import PlayerRow
from service.store.threads import in_thread
from service.store.uow import UnitOfWork

RULE = "docs/game-master.md"


async def as_gm(uow: UnitOfWork, game_id: str, token: str) -> Game:
    """The game, locked, after checking that the caller is its GM and that its acts are
    not signed (a game created with a GM key takes its GM's acts only as signed orders)."""
    (await members.member(uow, game_id, token)).require_gm()
    game = await uow.games.lock(game_id)
    if game.row.gm_public_key:
        raise Refused("admin/sign_your_acts", "this game's GM signs its acts: POST them to "
                      "/orders as signed orders of player \"gm\" (docs/api.md)", rule=RULE)
    return game


async def state_after(uow: UnitOfWork, game: Game, seq: int) -> dict[str, Any]:
    """The plain data of the game's state right after event `seq`: the newest snapshot
    at or before it, and the events since (a rollback event carries its state, so the
    fold is right across earlier rollbacks too)."""
    snapshot = await uow.log.snapshot_at_or_before(game.id, seq)
    if snapshot is None:
        raise RuntimeError(f"game {game.id} has no snapshot before event {seq}")
    records = await uow.log.since(game.id, snapshot[0], upto=seq)
    return await in_thread(_folded_data, snapshot[1], game.setup, records)


def _folded_data(snapshot: dict[str, Any], setup: Setup, records: list[Any]
                 ) -> dict[str, Any]:
    """The data of a snapshot's state with `records` applied (off the loop: up to a few
    hundred events of a big game)."""
    state = state_from_data(snapshot, setup)
    for record in records:
        state = evolve(state, Event.from_record(record))
    data: dict[str, Any] = to_data(state)
    return data


async def _impulse_start(uow: UnitOfWork, game: Game, turn: int, impulse: int) -> int | None:
    """The seq of the event that opened the declaration of the live impulse `impulse` of
    turn `turn` (the `step.began` right after its `impulse.began`), if any."""
    abandoned = await rollbacks(uow, game.id)
    live = [seq for seq in await uow.log.impulse_began(game.id, turn, impulse)
            if not rolled_back(seq, abandoned)]
    if not live:
        return None
    start = max(live) + 1
    return start if await uow.log.kind_at(game.id, start) == "step.began" else None


@dataclass(frozen=True, slots=True)
class Act:
    """A GM act as it reaches the referee: its kind and body, the hash of its signature
    (its contribution to the dice) and the signed envelope, when the GM signed it."""

    kind: str
    body: Mapping[str, object]
    trigger: str = ""
    signed: Mapping[str, Any] | None = None
    position: tuple[int, int, str] | None = None


async def perform(uow: UnitOfWork, game: Game, act: Act) -> ActOutcome:
    """A GM act on the locked `game`: what it does to the game (the rules decide), and
    what it changes beside the game (keys, tokens, join codes)."""
    if act.kind == "admin.rollback":
        return await _rollback(uow, game, act)
    if act.kind == "admin.replace_key":
        return await _replace_key(uow, game, act)
    if act.kind == "admin.reopen_seat":
        return await _reopen_seat(uow, game, act)
    return (await _apply(uow, game, act)).outcome()


async def _apply(uow: UnitOfWork, game: Game, act: Act,
                 extra: Mapping[str, Any] | None = None) -> Applied:
    command = replace(gm_actor_command(act.kind, act.body, extra), trigger=act.trigger,
                      position=act.position)
    return await apply(uow, game, command, signed=act.signed)


async def _rollback(uow: UnitOfWork, game: Game, act: Act) -> Outcome:
    """Roll the game back to the start of an impulse; past revealed dice, propose it to
    the other sides instead."""
    turn, impulse = act.body.get("turn"), act.body.get("impulse")
    extra: dict[str, Any] = {}
    if isinstance(turn, int) and isinstance(impulse, int):
        start = await _impulse_start(uow, game, turn, impulse)
        if start is None:
            raise Refused("rollback/unknown_impulse", f"impulse {impulse} of turn {turn} never "
                          "began in the live log (or was itself rolled back)", rule=RULE,
                          errors=[("/impulse", "no such impulse start")])
        if start >= game.head_seq:
            raise Refused("rollback/nothing_to_undo", f"impulse {impulse} of turn {turn} has "
                          "just begun: nothing to roll back", rule=RULE)
        abandoned = await rollbacks(uow, game.id)
        rows = await uow.log.kinds_after(game.id, start)
        rolls = sum(1 for seq, kind in rows
                    if kind == "dice.rolled" and not rolled_back(seq, abandoned))
        extra["rollback"] = {
            "to_seq": start, "abandons": [start + 1, game.head_seq],
            "kept": sorted(seq for seq, kind in rows if kind in KEPT_KINDS),
            "rolls": rolls, "restore": await state_after(uow, game, start),
        }
    return (await _apply(uow, game, act, extra)).outcome()


async def _player(uow: UnitOfWork, game_id: str, player_id: object) -> PlayerRow:
    found = await uow.players.get(game_id, str(player_id))
    if found is None:
        raise NotFound("admin/unknown_player", f"no player {player_id!r} in this game",
                       errors=[("/player_id", "unknown player")])
    return found


async def _replace_key(uow: UnitOfWork, game: Game, act: Act) -> KeyReplaced:
    """Bind a new Ed25519 key to a player. With the player's consent (signed by its
    current key) the new key orders at once; without it (a lost key), every side sees the
    replacement and the new key may order only after the game's waiting period, while
    the old key orders no more (docs/game-master.md)."""
    player_id, key = act.body.get("player_id"), str(act.body.get("public_key"))
    check_public_key(key)
    player = await _player(uow, game.id, player_id)
    consent = act.body.get("consent")
    consented = isinstance(consent, str) and signing.verify(
        player.public_key, identity.signing_bytes(identity.consent_object(
            game.id, player.id, key)), consent)
    if consent is not None and not consented:
        raise Unauthorized("admin/bad_consent", "the consent does not verify with the "
                           "player's current key", errors=[("/consent", "bad signature")])
    body = {"player_id": player.id, "public_key": key, "reason": act.body.get("reason", ""),
            "consented": consented}
    applied = await _apply(uow, game, replace(act, body={**act.body, **body}))
    replaced = next(e for e in applied.events if e["kind"] == "player.key_replaced")
    await devices.keep_key(uow, game.id, player, key, replaced,
                           consent if consented and isinstance(consent, str) else None)
    new_token = None
    if act.body.get("new_token"):
        new_token = tokens.new_token()
        await uow.players.update(game.id, player.id, token_hash=tokens.hash_token(new_token))
    return {**applied.outcome(), "player_id": player.id, "token": new_token}


async def _reopen_seat(uow: UnitOfWork, game: Game, act: Act) -> SeatReopened:
    """Reassign a seat: revoke its player's token and issue a join code with which a
    substitute takes the seat (POST /seats/{side})."""
    player = await _player(uow, game.id, act.body.get("player_id"))
    applied = await _apply(uow, game, act)
    code = tokens.new_join_code()
    codes = {**(game.row.substitute_codes or {}), player.id: tokens.hash_token(code)}
    await uow.games.update(game.id, substitute_codes=codes)
    await uow.players.update(game.id, player.id, active=False)
    await uow.webhooks.delete(game.id, player.id)
    seat = applied.state.seats[player.id]
    return {**applied.outcome(), "side": seat.side, "powers": list(seat.powers),
            "join_code": code}


async def rollback(uow: UnitOfWork, game_id: str, token: str, body: Mapping[str, object]
                   ) -> ActOutcome:
    return await perform(uow, await as_gm(uow, game_id, token), Act("admin.rollback", body))


async def act(uow: UnitOfWork, game_id: str, token: str, body: Mapping[str, object]
              ) -> ActOutcome:
    """The GM plays a side that dropped out (or whose seat awaits a substitute)."""
    return await perform(uow, await as_gm(uow, game_id, token), Act("admin.act", body))


async def replace_key(uow: UnitOfWork, game_id: str, token: str, player_id: str,
                      body: Mapping[str, object]) -> ActOutcome:
    return await perform(uow, await as_gm(uow, game_id, token),
                         Act("admin.replace_key", {**body, "player_id": player_id}))


async def reopen_seat(uow: UnitOfWork, game_id: str, token: str, player_id: str,
                      body: Mapping[str, object]) -> ActOutcome:
    return await perform(uow, await as_gm(uow, game_id, token),
                         Act("admin.reopen_seat", {**body, "player_id": player_id}))


async def command(uow: UnitOfWork, game_id: str, token: str, kind: str,
                  body: Mapping[str, object]) -> ActOutcome:
    """A GM command without more (pause, resume, end, deadlines, force, weather, edit,
    dropout, withdraw a rollback)."""
    return await perform(uow, await as_gm(uow, game_id, token), Act(kind, body))


__all__ = ["Act", "act", "perform", "reopen_seat", "replace_key", "rollback", "state_after"]
