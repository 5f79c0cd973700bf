"""The game routes of docs/api.md. Thin: parse, call the referee, render."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Body, Depends, Header, Path, Query, Request, Response
from fastapi.responses import JSONResponse

from service.answers import (
    Accepted,
    ActOutcome,
    Created,
    DiceRecord,
    Export,
    GameList,
    Imported,
    Joined,
    LogPage,
    Preview,
    ServerKeys,
    StateAnswer,
    Summary,
)
from service.api.auth import (
    admit_heavy,
    bearer,
    elsewhere,
    heavy,
    heavy_call,
    heavy_change,
    is_operator,
    read,
    require_operator,
    work,
)
from service.api.bodies import INLINE_BYTES, validated
from service.api.contract import (
    BEARER,
    BODY,
    CHANGE,
    GAME,
    LIMITS,
    OPTIONAL_BEARER,
    READ,
    answers,
    body_of,
    link,
    schema_of,
)
from service.api.numbers import JsonRoute
from service.api.schemas import ORDER_EXAMPLES, CreateGame, ImportGame, JoinSeat, SignedOrder
from service.referee import envelopes, imports, orders, reads, receipts
from service.referee import games as referee
from service.referee import gm as gm_cases
from service.referee.work import UnitOfWork
from service.rules import (
    ActBody,
    DeadlinesBody,
    DropoutBody,
    EditBody,
    KeyBody,
    PauseBody,
    ReasonBody,
    RollbackBody,
    WeatherBody,
)

router = APIRouter(prefix="/v1", route_class=JsonRoute)
NOT_MODIFIED = {"description": "the caller's copy (`If-None-Match`: the ETag) is current"}
ORDER_200 = {"description": "the order was accepted before (same seq, same bytes: its first "
                            "answer, with `Idempotent-Replayed: true`), or a dry run's preview",
             "content": {"application/json": {"schema": schema_of(Accepted | Preview)}}}
ACT_ANSWERS = answers(200, ActOutcome, *CHANGE)
GameId = Annotated[str, Path(max_length=64, description="the game's id")]


_MAX = 2**62


async def known_version(
    min_version: Annotated[int | None, Query(ge=0, le=_MAX, description=(
        "the newest game version the client knows (an order's answer `version`): the "
        "read is answered from data at least that new (docs/api.md, Read your writes)"
    ))] = None,
    x_min_version: Annotated[int | None, Header(ge=0, le=_MAX, description=(
        "the same as `min_version`, as a header"))] = None,
) -> int:
    return max(min_version or 0, x_min_version or 0)


KnownVersion = Annotated[int, Depends(known_version)]
_ETAG_VERSION = re.compile(r'^W/"([0-9]{1,18})-')


def _etag_version(if_none_match: str | None) -> int:
    """The version an ETag of the state names (the client has seen that one)."""
    found = _ETAG_VERSION.match(if_none_match or "")
    return int(found.group(1)) if found else 0


def json_response(body: object, status_code: int = 200,
                  headers: dict[str, str] | None = None) -> Response:
    """JSON by orjson, for the hot routes whose bodies are plain JSON data (an order's
    result, a state view of thousands of units): several times faster than the default
    encoder, see bench/README.md."""
    return Response(orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS),
                    status_code=status_code, media_type="application/json", headers=headers)


@router.post("/games", status_code=201, summary="Create a game",
             response_model=None, openapi_extra={**OPTIONAL_BEARER, **body_of(CreateGame)},
             responses=answers(201, Created, 401, *BODY, *LIMITS, links={
                 name: link(name, game_id="$response.body#/id")
                 for name in ("game_summary", "game_state", "game_log", "dice", "export")}))
async def create_game(request: Request) -> Response:
    require_operator(request, "creating games")
    body = await request.body()
    sizes, depth = _sizes(request), request.app.state.settings.max_json_depth
    if len(body) <= INLINE_BYTES:
        async with work(request) as uow:
            created = await created_json(uow, body, sizes, depth)
    else:  # a whole scenario: parsed, checked and created by a worker (issue 33)
        return await heavy(request, created_json, body, sizes, depth, read=False,
                           status=201)
    return Response(created, status_code=201, media_type="application/json")


def _sizes(request: Request) -> referee.Sizes:
    """The largest game this server accepts, and whether the operator asks (only the
    operator may exceed it: a server without an operator key takes no larger game)."""
    settings = request.app.state.settings
    return referee.Sizes(settings.max_map_hexes, settings.max_units,
                         operator=is_operator(request))


async def created_json(uow: UnitOfWork, body: bytes, sizes: referee.Sizes,
                       depth: int) -> bytes:
    """Create the game `body` asks for (a `CreateGame`), within `sizes`, as JSON."""
    parsed = validated(CreateGame, body, depth)
    return orjson.dumps(await referee.create_game(uow, parsed.model_dump(exclude_unset=True),
                                                  sizes))


@router.get("/server-key", summary="The keys this server signs receipts with",
             response_model=None, responses=answers(200, ServerKeys, *LIMITS))
async def server_key(request: Request) -> ServerKeys:
    async with work(request) as uow:
        keys = await receipts.keys(uow)
    current = next((k for k in reversed(keys) if k["retired_at"] is None), None)
    return {"current": current, "keys": keys}


@router.get("/games", summary="List the games the caller belongs to",
             response_model=None, openapi_extra=BEARER,
             responses=answers(200, GameList, 401, 422, *LIMITS))
async def list_games(
    request: Request,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    after: Annotated[str | None, Query(max_length=64)] = None,
) -> GameList:
    token = bearer(request)
    async with work(request) as uow:
        return await referee.list_games(uow, token, limit=limit, after=after)


@router.get("/games/{game_id}", summary="Summary: status, turn, step and who must act",
             response_model=None, openapi_extra=BEARER,
             responses=answers(200, Summary, *READ, links={
                 name: link(name, game_id=GAME) for name in ("game_state", "game_log")}))
async def game_summary(game_id: GameId, request: Request) -> Summary:
    token = bearer(request)
    async with work(request) as uow:
        return await referee.game_summary(uow, game_id, token)


@router.post("/games/{game_id}/seats/{side}", status_code=201, summary="Join a side",
             response_model=None, responses=answers(201, Joined, 401, 404, 409, *BODY, *LIMITS))
async def join(game_id: GameId, side: Annotated[str, Path(max_length=40)], body: JoinSeat,
               request: Request) -> Joined:
    if await elsewhere(request, game_id):  # a big game's: its state is a worker's
        return await heavy_change(request, referee.join_seat, game_id, side,
                                  body.model_dump(), game=game_id)
    async with work(request) as uow:
        return await referee.join_seat(uow, game_id, side, body.model_dump())


@router.get("/games/{game_id}/state", summary="The caller's view of the current state",
             response_model=None, openapi_extra=BEARER,
             responses={**answers(200, StateAnswer, *READ), 304: NOT_MODIFIED})
async def game_state(game_id: GameId, request: Request, known: KnownVersion) -> Any:
    token = bearer(request)
    admit_heavy(request, game_id)
    tag = request.headers.get("if-none-match")
    at_least = max(known, _etag_version(tag))
    found = await read(request, lambda uow: reads.state_view(uow, game_id, token, tag),
                       min_version=at_least)
    etag, body = found.etag, found.body
    if found.elsewhere:  # a big game's view: rendered by a worker (issue 33)
        etag, body = await heavy_call(request, reads.state_elsewhere, game_id, token, tag,
                                      game=game_id, min_version=at_least)
    if body is None:
        return Response(status_code=304, headers={"ETag": etag})
    return Response(body, media_type="application/json", headers={"ETag": etag})


@router.get("/games/{game_id}/log", summary="Every event in order (paginated)",
             response_model=None, openapi_extra=BEARER,
             responses=answers(200, LogPage, *READ))
async def game_log(
    game_id: GameId,
    request: Request,
    known: KnownVersion,
    after: Annotated[int, Query(ge=0, le=2**62)] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> LogPage:
    token = bearer(request)
    return await read(request, lambda uow: reads.log(uow, game_id, token, after=after,
                                                     limit=limit), min_version=known)


@router.post("/games/{game_id}/orders", status_code=201, summary="Submit a signed order",
             response_model=None, openapi_extra=BEARER,
             responses={**answers(201, Accepted, *CHANGE), 200: ORDER_200})
async def post_order(
    game_id: GameId, envelope: SignedOrder, request: Request,
    dry_run: Annotated[bool, Query(description="validate and preview; change nothing")] = False,
) -> Any:
    token = bearer(request)
    # Validated above; the referee checks the signature over the order as it arrived.
    signed = envelopes.Envelope.of(await request.json())
    big = await elsewhere(request, game_id)  # a big game's: decided by a worker
    if dry_run:
        if big:
            preview = await heavy_call(request, orders.dry_run, game_id, token, signed,
                                       game=game_id, read=False)
        else:
            async with work(request) as uow:
                preview = await orders.dry_run(uow, game_id, token, signed)
        return JSONResponse(preview, status_code=200)
    if big:
        result = await heavy_change(request, orders.submit_long, game_id, token, signed,
                                    game=game_id)
    else:
        result = await orders.submit(request.app.state.transactions, game_id, token, signed)
    if result.replayed:
        return JSONResponse(result.body, status_code=200,
                            headers={"Idempotent-Replayed": "true"})
    return json_response(result.body, status_code=201)


@router.get("/games/{game_id}/dice", summary="Commitments, revealed seeds, every roll",
             response_model=None, openapi_extra=BEARER,
             responses=answers(200, DiceRecord, *READ))
async def dice(game_id: GameId, request: Request, known: KnownVersion) -> Response:
    token = bearer(request)
    return await heavy(request, reads.dice_json, game_id, token, game=game_id,
                       min_version=known)


@router.get("/games/{game_id}/export", summary="The whole verifiable record",
             response_model=None, openapi_extra=BEARER,
             responses=answers(200, Export, *READ))
async def export(game_id: GameId, request: Request, known: KnownVersion) -> Response:
    token = bearer(request)
    return await heavy(request, reads.export_json, game_id, token, game=game_id,
                       min_version=known)


async def _admin(request: Request, game_id: str, kind: str, body: Mapping[str, object] | None
                 ) -> ActOutcome:
    token = bearer(request)
    if await elsewhere(request, game_id):  # a big game's: decided by a worker
        return await heavy_change(request, gm_cases.command, game_id, token, kind,
                                  dict(body or {}), game=game_id)
    async with work(request) as uow:
        return await gm_cases.command(uow, game_id, token, kind, dict(body or {}))


def _example(kind: str, *drop: str) -> Any:
    example = {k: v for k, v in ORDER_EXAMPLES[kind].items() if k not in drop}
    return Body(openapi_examples={"example": {"value": example}})


NoBody = Annotated[ReasonBody | None, _example("admin.resume")]


@router.post("/games/{game_id}/admin/pause",
             summary="GM: pause (clocks stop; the game resumes by itself after the maximum)",
             response_model=None, openapi_extra=BEARER,
             responses=ACT_ANSWERS)
async def admin_pause(game_id: GameId, request: Request,
                      body: Annotated[PauseBody | None, _example("admin.pause")] = None
                      ) -> ActOutcome:
    return await _admin(request, game_id, "admin.pause", body)


@router.post("/games/{game_id}/admin/resume", summary="GM: resume",
             response_model=None, openapi_extra=BEARER,
             responses=ACT_ANSWERS)
async def admin_resume(game_id: GameId, request: Request, body: NoBody = None) -> ActOutcome:
    return await _admin(request, game_id, "admin.resume", body)


@router.post("/games/{game_id}/admin/end", summary="GM: end the game, reveal the dice seeds",
             response_model=None, openapi_extra=BEARER,
             responses=ACT_ANSWERS)
async def admin_end(game_id: GameId, request: Request, body: NoBody = None) -> ActOutcome:
    return await _admin(request, game_id, "admin.end", body)


@router.post("/games/{game_id}/admin/deadlines", summary="GM: set deadlines per step",
             response_model=None, openapi_extra=BEARER,
             responses=ACT_ANSWERS)
async def admin_deadlines(game_id: GameId, request: Request,
                          body: Annotated[DeadlinesBody, _example("admin.deadlines")]
                          ) -> ActOutcome:
    return await _admin(request, game_id, "admin.deadlines", body)


@router.post("/games/{game_id}/admin/weather",
             summary="GM: the weather table from a coming turn on (null: the game's own)",
             response_model=None, openapi_extra=BEARER,
             responses=ACT_ANSWERS)
async def admin_weather(game_id: GameId, request: Request,
                        body: Annotated[WeatherBody, _example("admin.weather")]) -> ActOutcome:
    data = {k: v for k, v in body.items() if v is not None}
    data.setdefault("table", None)
    return await _admin(request, game_id, "admin.weather", data)


@router.post("/games/{game_id}/admin/force", summary="GM: apply the default action now",
             response_model=None, openapi_extra=BEARER,
             responses=ACT_ANSWERS)
async def admin_force(game_id: GameId, request: Request, body: NoBody = None) -> ActOutcome:
    return await _admin(request, game_id, "admin.force", body)


@router.post("/games/{game_id}/admin/edit",
             summary="GM: edit units, hex control and port damage, BP/RP figures",
             response_model=None, openapi_extra=BEARER,
             responses=ACT_ANSWERS)
async def admin_edit(game_id: GameId, request: Request,
                     body: Annotated[EditBody, _example("admin.edit")]) -> ActOutcome:
    return await _admin(request, game_id, "admin.edit", body)


async def _gm_case(request: Request, game_id: str,
                   case: Callable[..., Awaitable[ActOutcome]], *args: object) -> ActOutcome:
    token = bearer(request)
    if await elsewhere(request, game_id):  # a big game's: decided by a worker
        return await heavy_change(request, case, game_id, token, *args, game=game_id)
    async with work(request) as uow:
        return await case(uow, game_id, token, *args)


@router.post("/games/{game_id}/admin/rollback",
             summary="GM: roll back to the start of an impulse (past revealed dice: propose "
                     "it to the other sides)",
             response_model=None, openapi_extra=BEARER,
             responses=ACT_ANSWERS)
async def admin_rollback(game_id: GameId, request: Request,
                         body: Annotated[RollbackBody, _example("admin.rollback")]) -> ActOutcome:
    return await _gm_case(request, game_id, gm_cases.rollback, body)


@router.post("/games/{game_id}/admin/rollback/withdraw",
             summary="GM: withdraw the pending rollback proposal",
             response_model=None, openapi_extra=BEARER,
             responses=ACT_ANSWERS)
async def admin_rollback_withdraw(game_id: GameId, request: Request, body: NoBody = None
                                  ) -> ActOutcome:
    return await _admin(request, game_id, "admin.rollback_withdraw", body)


PlayerId = Annotated[str, Path(max_length=64, description="the player's id")]


@router.post("/games/{game_id}/admin/players/{player_id}/key",
             summary="GM: bind a new Ed25519 key to a player (optionally a new token)",
             response_model=None, openapi_extra=BEARER,
             responses=ACT_ANSWERS)
async def admin_key(game_id: GameId, player_id: PlayerId, request: Request,
                    body: Annotated[KeyBody, _example("admin.replace_key", "player_id")]
                    ) -> ActOutcome:
    return await _gm_case(request, game_id, gm_cases.replace_key, player_id, body)


@router.post("/games/{game_id}/admin/players/{player_id}/reassign",
             summary="GM: revoke a player's seat and issue a join code for a substitute",
             response_model=None, openapi_extra=BEARER,
             responses=ACT_ANSWERS)
async def admin_reassign(game_id: GameId, player_id: PlayerId, request: Request,
                         body: NoBody = None) -> ActOutcome:
    return await _gm_case(request, game_id, gm_cases.reopen_seat, player_id, dict(body or {}))


@router.post("/games/{game_id}/admin/dropout",
             summary="GM: a side has dropped out (its policy applies), or is back",
             response_model=None, openapi_extra=BEARER,
             responses=ACT_ANSWERS)
async def admin_dropout(game_id: GameId, request: Request,
                        body: Annotated[DropoutBody, _example("admin.dropout")]) -> ActOutcome:
    return await _admin(request, game_id, "admin.dropout", body)


@router.post("/games/{game_id}/admin/act",
             summary="GM: play an order for a side that dropped out (logged as the GM's)",
             response_model=None, openapi_extra=BEARER,
             responses=ACT_ANSWERS)
async def admin_act(game_id: GameId, request: Request,
                    body: Annotated[ActBody, _example("admin.act")]) -> ActOutcome:
    return await _gm_case(request, game_id, gm_cases.act, body)


@router.post("/games/import", status_code=201,
             summary="Operator: import an export that verifies in full; play goes on",
             response_model=None, openapi_extra={**OPTIONAL_BEARER, **body_of(ImportGame)},
             responses=answers(201, Imported, 401, 403, *BODY, *LIMITS))
async def import_game(request: Request) -> Response:
    require_operator(request, "importing a game", always=True)
    return await heavy(request, imported_json, await request.body(),
                       request.app.state.settings.max_json_depth, read=False, status=201)


async def imported_json(uow: UnitOfWork, body: bytes, depth: int) -> bytes:
    """Verify and import the export `body` holds (an `ImportGame`), as JSON: parsing,
    verification and replay run in a worker (issue 33). An import is the operator's, so
    MAX_MAP_HEXES and MAX_UNITS do not bound it."""
    parsed = validated(ImportGame, body, depth)
    verified = imports.verify(parsed.model_dump())
    return orjson.dumps(await imports.import_game(uow, verified))
