"""Spectators and key requests (issue 19): the GM issues read-only spectator tokens
(`/admin/spectators`); a player asks for a new key (`/players/me/key-request`), which the
GM sees in `/admin/key-requests` and approves with `/admin/players/{player_id}/key`.
Plain routes: they change nothing in the game's state or log."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import ConfigDict, Field

from service.answers import (
    KeyReplaced,
    KeyRequest,
    KeyRequestList,
    SpectatorIssued,
    SpectatorList,
)
from service.api.auth import bearer, elsewhere, heavy_change, work
from service.api.contract import BEARER, BODY, LIMITS, answers
from service.api.games import GameId
from service.api.numbers import JsonRoute
from service.api.schemas import Key, Strict
from service.referee import devices, watchers

router = APIRouter(prefix="/v1", route_class=JsonRoute)


class SpectatorBody(Strict):
    model_config = ConfigDict(extra="forbid", strict=True,
                              json_schema_extra={"examples": [{"name": "Dave's club"}]})
    name: str = Field(default="spectator", min_length=1, max_length=80,
                      description="who watches, as the GM lists them")


class KeyRequestBody(Strict):
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"public_key": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]})
    public_key: str = Key


class KeyConsentBody(Strict):
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"public_key": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
                      "consent": "<base64url Ed25519 signature by the current key>"}]})
    public_key: str = Key
    consent: str = Field(min_length=86, max_length=88, pattern=r"^[A-Za-z0-9_-]{86}(==)?$",
                         description="the current key's signature (base64url) over the RFC "
                         "8785 bytes of {type: \"wif-key-consent/1\", game, player, "
                         "public_key}")


@router.post("/games/{game_id}/admin/spectators", status_code=201,
             summary="Issue a spectator's read-only token (the GM)", response_model=None,
             openapi_extra=BEARER,
             responses=answers(201, SpectatorIssued, 401, 403, 404, 409, *BODY, *LIMITS))
async def add_spectator(game_id: GameId, request: Request,
                        body: SpectatorBody | None = None) -> SpectatorIssued:
    token = bearer(request)
    async with work(request) as uow:
        return await watchers.add_spectator(uow, game_id, token,
                                            (body or SpectatorBody()).name)


@router.get("/games/{game_id}/admin/spectators", summary="The game's spectators (the GM)",
            response_model=None, openapi_extra=BEARER,
            responses=answers(200, SpectatorList, 401, 403, 404, 422, *LIMITS))
async def list_spectators(game_id: GameId, request: Request) -> SpectatorList:
    token = bearer(request)
    async with work(request) as uow:
        return await watchers.spectators(uow, game_id, token)


@router.post("/games/{game_id}/players/me/key-request", status_code=201,
             summary="Ask the GM to make a new key the caller's signing key",
             response_model=None, openapi_extra=BEARER,
             responses=answers(201, KeyRequest, 401, 403, 404, 409, *BODY, *LIMITS))
async def request_key(game_id: GameId, body: KeyRequestBody, request: Request) -> KeyRequest:
    token = bearer(request)
    async with work(request) as uow:
        return await watchers.request_key(uow, game_id, token, body.public_key)


@router.get("/games/{game_id}/players/me/key-requests",
            summary="My own requests for a new key (another device's)", response_model=None,
            openapi_extra=BEARER,
            responses=answers(200, KeyRequestList, 401, 403, 404, 422, *LIMITS))
async def my_key_requests(game_id: GameId, request: Request) -> KeyRequestList:
    token = bearer(request)
    async with work(request) as uow:
        return await devices.my_key_requests(uow, game_id, token)


@router.post("/games/{game_id}/players/me/key",
             summary="Make a new key my signing key, with my current key's consent",
             response_model=None, openapi_extra=BEARER,
             responses=answers(200, KeyReplaced, 401, 403, 404, 409, *BODY, *LIMITS))
async def bind_key(game_id: GameId, body: KeyConsentBody, request: Request) -> KeyReplaced:
    token = bearer(request)
    if await elsewhere(request, game_id):  # a big game's: its state is a worker's
        return await heavy_change(request, devices.bind_with_consent, game_id, token,
                                  body.public_key, body.consent, game=game_id)
    async with work(request) as uow:
        return await devices.bind_with_consent(uow, game_id, token, body.public_key,
                                               body.consent)


@router.get("/games/{game_id}/admin/key-requests",
            summary="Players' requests for new keys (the GM)", response_model=None,
            openapi_extra=BEARER,
            responses=answers(200, KeyRequestList, 401, 403, 404, 422, *LIMITS))
async def key_requests(game_id: GameId, request: Request) -> KeyRequestList:
    token = bearer(request)
    async with work(request) as uow:
        return await watchers.key_requests(uow, game_id, token)
