"""The game routes of DESIGN.md section 4. Thin: parse, call the referee, render."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from service.api import auth
from service.api.problems import Problem
from service.api.schemas import (
    AdminAct,
    AdminDeadlines,
    AdminDropout,
    AdminEdit,
    AdminKey,
    AdminPause,
    AdminReason,
    AdminRollback,
    AdminWeather,
    CreateGame,
    ImportGame,
    JoinSeat,
    SignedOrder,
)
from service.crypto.tokens import hash_token
from service.referee import games as referee
from service.referee import gm as gm_cases
from service.referee import reads
from service.referee.core import GameNotFound, load_state, state_of
from service.referee.orders import dry_run as dry_run_order
from service.referee.orders import submit_order
from service.rules.awaiting import awaiting, position
from service.store.models import GameRow, PlayerRow

router = APIRouter(prefix="/v1")
GameId = Annotated[str, Path(max_length=64, description="the game's id")]


@asynccontextmanager
async def transaction(request: Request) -> AsyncIterator[AsyncSession]:
    """One transaction per request, committed here and nowhere else."""
    async with request.app.state.sessionmaker() as session:
        try:
            async with session.begin():
                yield session
            hub = getattr(request.app.state, "hub", None)
            if hub is not None and request.app.state.settings.notify:
                for game_id, seq in session.info.pop("appended", {}).items():
                    hub.published(game_id, seq)
        except GameNotFound as missing:
            raise Problem(404, "game/not_found", f"no game {missing}") from None
        except referee.Unauthorized as error:
            raise Problem(401, error.code, error.detail) from None


def json_response(body: Any, status_code: int = 200,
                  headers: dict[str, str] | None = None) -> Response:
    """JSON by orjson, for the hot routes whose bodies are plain JSON data (an order's
    result, a state view of thousands of units): several times faster than the default
    encoder, see bench/README.md."""
    return Response(orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS),
                    status_code=status_code, media_type="application/json", headers=headers)


def _summary(game: GameRow) -> dict[str, Any]:
    state = state_of(game)
    return {
        "id": game.id,
        "name": game.name,
        "status": state.status,
        "version": game.version,
        "scenario": state.setup.scenario.id,
        "dice_mode": game.dice["mode"],
        "turn": state.turn.number,
        "round": state.turn.round,
        "impulse": state.turn.impulse,
        "step": state.turn.step,
        "phasing_side": state.turn.phasing_side,
        "awaiting": awaiting(state),
        "position": position(state),
    }


def _gm_summary(game: GameRow) -> dict[str, Any]:
    """The summary as the GM sees it: with the replay-check flag, if any."""
    return {**_summary(game), "divergence": game.divergence}


@router.post("/games", status_code=201, summary="Create a game")
async def create_game(body: CreateGame, request: Request) -> dict[str, Any]:
    key = request.app.state.settings.operator_key
    if key and auth.bearer(request) != key:
        raise Problem(401, "auth/operator_only", "creating games needs the operator key")
    async with transaction(request) as session:
        return await referee.create_game(session, body.model_dump())


@router.get("/games", summary="List the games the caller belongs to")
async def list_games(
    request: Request,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    after: Annotated[str | None, Query(max_length=64)] = None,
) -> dict[str, Any]:
    digest = hash_token(auth.bearer(request))
    async with transaction(request) as session:
        ids = select(PlayerRow.game_id).where(PlayerRow.token_hash == digest).union(
            select(GameRow.id).where(GameRow.gm_token_hash == digest)
        ).subquery()
        query = select(GameRow).where(GameRow.id.in_(select(ids.c[0])))
        if after:
            query = query.where(GameRow.id > after)
        rows = (await session.execute(query.order_by(GameRow.id).limit(limit + 1))).scalars()
        games = list(rows)
        if not games and not after:
            total = await session.scalar(select(func.count()).select_from(ids))
            if not total:
                raise Problem(401, "auth/bad_token", "unknown token")
        page = games[:limit]
        for game in page:
            await load_state(session, game)
        return {"games": [_summary(g) for g in page],
                "next": page[-1].id if len(games) > limit else None}


@router.get("/games/{game_id}", summary="Summary: status, turn, step and who must act")
async def game_summary(game_id: GameId, request: Request) -> dict[str, Any]:
    async with transaction(request) as session:
        m = await auth.member(session, game_id, auth.bearer(request))
        return _gm_summary(m.game) if m.player is None else _summary(m.game)


@router.post("/games/{game_id}/seats/{side}", status_code=201, summary="Join a side")
async def join(game_id: GameId, side: Annotated[str, Path(max_length=40)], body: JoinSeat,
               request: Request) -> dict[str, Any]:
    async with transaction(request) as session:
        return await referee.join_seat(session, game_id, side, body.model_dump())


@router.get("/games/{game_id}/state", summary="The caller's view of the current state")
async def game_state(game_id: GameId, request: Request) -> Any:
    async with transaction(request) as session:
        m = await auth.member(session, game_id, auth.bearer(request))
        viewer = m.viewer
        flagged = "-diverged" if viewer.role == "gm" and m.game.divergence else ""
        etag = f'W/"{m.game.version}-{viewer.role}-{viewer.player_id or ""}{flagged}"'
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers={"ETag": etag})
        return Response(reads.state_view(m.game, viewer), media_type="application/json",
                        headers={"ETag": etag})


@router.get("/games/{game_id}/log", summary="Every event in order (paginated)")
async def game_log(
    game_id: GameId,
    request: Request,
    after: Annotated[int, Query(ge=0, le=2**62)] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> dict[str, Any]:
    async with transaction(request) as session:
        m = await auth.member(session, game_id, auth.bearer(request))
        events = await reads.log(session, m.game, m.viewer, after=after, limit=limit)
        nxt = events[-1]["seq"] if len(events) == limit else None
        return {"events": events, "next_after": nxt, "head": m.game.head_seq}


@router.post("/games/{game_id}/orders", status_code=201, summary="Submit a signed order")
async def post_order(
    game_id: GameId, envelope: SignedOrder, request: Request,
    dry_run: Annotated[bool, Query(description="validate and preview; change nothing")] = False,
) -> Any:
    async with transaction(request) as session:
        player = await auth.player(session, game_id, auth.bearer(request))
        if dry_run:
            preview = await dry_run_order(session, game_id, player, envelope.model_dump())
            return JSONResponse(preview, status_code=200)
        result = await submit_order(session, game_id, player, envelope.model_dump())
    if result.replayed:
        return JSONResponse(result.body, status_code=200,
                            headers={"Idempotent-Replayed": "true"})
    return json_response(result.body, status_code=201)


@router.get("/games/{game_id}/dice", summary="Commitments, revealed seeds, every roll")
async def dice(game_id: GameId, request: Request) -> dict[str, Any]:
    async with transaction(request) as session:
        m = await auth.member(session, game_id, auth.bearer(request))
        return await reads.dice(session, m.game)


@router.get("/games/{game_id}/export", summary="The whole verifiable record")
async def export(game_id: GameId, request: Request) -> dict[str, Any]:
    async with transaction(request) as session:
        m = await auth.member(session, game_id, auth.bearer(request))
        return await reads.export(session, m.game, m.viewer)


async def _admin(request: Request, game_id: str, kind: str, body: dict[str, Any]) -> Any:
    async with transaction(request) as session:
        m = await auth.member(session, game_id, auth.bearer(request))
        auth.require_gm(m)
        applied = await referee.gm_command(session, game_id, kind, body)
        return {"version": applied.version, "events": applied.events,
                "position": position(applied.state), "awaiting": awaiting(applied.state)}


@router.post("/games/{game_id}/admin/pause",
             summary="GM: pause (clocks stop; the game resumes by itself after the maximum)")
async def admin_pause(game_id: GameId, body: AdminPause, request: Request) -> Any:
    return await _admin(request, game_id, "admin.pause", body.model_dump())


@router.post("/games/{game_id}/admin/resume", summary="GM: resume")
async def admin_resume(game_id: GameId, body: AdminReason, request: Request) -> Any:
    return await _admin(request, game_id, "admin.resume", body.model_dump())


@router.post("/games/{game_id}/admin/end", summary="GM: end the game, reveal the dice seeds")
async def admin_end(game_id: GameId, body: AdminReason, request: Request) -> Any:
    return await _admin(request, game_id, "admin.end", body.model_dump())


@router.post("/games/{game_id}/admin/deadlines", summary="GM: set deadlines per step")
async def admin_deadlines(game_id: GameId, body: AdminDeadlines, request: Request) -> Any:
    return await _admin(request, game_id, "admin.deadlines", body.model_dump())


@router.post("/games/{game_id}/admin/weather",
             summary="GM: the weather table from a coming turn on (null: the game's own)")
async def admin_weather(game_id: GameId, body: AdminWeather, request: Request) -> Any:
    data = body.model_dump(exclude_none=True)
    data.setdefault("table", None)
    return await _admin(request, game_id, "admin.weather", data)


@router.post("/games/{game_id}/admin/force", summary="GM: apply the default action now")
async def admin_force(game_id: GameId, body: AdminReason, request: Request) -> Any:
    return await _admin(request, game_id, "admin.force", body.model_dump())


@router.post("/games/{game_id}/admin/edit",
             summary="GM: edit units, hex control and port damage, BP/RP figures")
async def admin_edit(game_id: GameId, body: AdminEdit, request: Request) -> Any:
    return await _admin(request, game_id, "admin.edit", body.model_dump())


async def _gm_case(request: Request, game_id: str, case: Any, *args: Any) -> Any:
    async with transaction(request) as session:
        m = await auth.member(session, game_id, auth.bearer(request))
        auth.require_gm(m)
        result = await case(session, game_id, *args)
        if isinstance(result, dict):
            return result
        return {"version": result.version, "events": result.events,
                "position": position(result.state), "awaiting": awaiting(result.state)}


@router.post("/games/{game_id}/admin/rollback",
             summary="GM: roll back to the start of an impulse (past revealed dice: propose "
                     "it to the other sides)")
async def admin_rollback(game_id: GameId, body: AdminRollback, request: Request) -> Any:
    return await _gm_case(request, game_id, gm_cases.rollback, body.model_dump())


@router.post("/games/{game_id}/admin/rollback/withdraw",
             summary="GM: withdraw the pending rollback proposal")
async def admin_rollback_withdraw(game_id: GameId, body: AdminReason, request: Request) -> Any:
    return await _admin(request, game_id, "admin.rollback_withdraw", body.model_dump())


PlayerId = Annotated[str, Path(max_length=64, description="the player's id")]


@router.post("/games/{game_id}/admin/players/{player_id}/key",
             summary="GM: bind a new Ed25519 key to a player (optionally a new token)")
async def admin_key(game_id: GameId, player_id: PlayerId, body: AdminKey,
                    request: Request) -> Any:
    return await _gm_case(request, game_id, gm_cases.replace_key, player_id, body.model_dump())


@router.post("/games/{game_id}/admin/players/{player_id}/reassign",
             summary="GM: revoke a player's seat and issue a join code for a substitute")
async def admin_reassign(game_id: GameId, player_id: PlayerId, body: AdminReason,
                         request: Request) -> Any:
    return await _gm_case(request, game_id, gm_cases.reopen_seat, player_id, body.model_dump())


@router.post("/games/{game_id}/admin/dropout",
             summary="GM: a side has dropped out (its policy applies), or is back")
async def admin_dropout(game_id: GameId, body: AdminDropout, request: Request) -> Any:
    return await _admin(request, game_id, "admin.dropout", body.model_dump())


@router.post("/games/{game_id}/admin/act",
             summary="GM: play an order for a side that dropped out (logged as the GM's)")
async def admin_act(game_id: GameId, body: AdminAct, request: Request) -> Any:
    return await _gm_case(request, game_id, gm_cases.act, body.model_dump())


@router.post("/games/import", status_code=201,
             summary="Import an export from another server (verified first); play goes on")
async def import_game(body: ImportGame, request: Request) -> dict[str, Any]:
    key = request.app.state.settings.operator_key
    if key and auth.bearer(request) != key:
        raise Problem(401, "auth/operator_only", "importing games needs the operator key")
    async with transaction(request) as session:
        return await gm_cases.import_game(session, body.model_dump())
