"""A player's own settings (issue 16): `GET`/`PUT /v1/games/{id}/players/me/settings`,
with the player's token. `confirm_lapse`: the `done` of a reorganization step leaving
RPs unspent must then carry `"confirm_lapse": true` (the RPs lapse, 11.18)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from service.answers import PlayerSettings
from service.api.auth import bearer, work
from service.api.contract import BEARER, BODY, LIMITS, answers
from service.api.games import GameId
from service.referee import settings

router = APIRouter(prefix="/v1")


class SettingsBody(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "examples": [{"confirm_lapse": True}]})
    confirm_lapse: StrictBool | None = Field(default=None, description=(
        "require `\"confirm_lapse\": true` in the `done` of a reorganization step that "
        "leaves RPs unspent"))


@router.get("/games/{game_id}/players/me/settings", summary="The caller's player settings",
            response_model=None, openapi_extra=BEARER,
            responses=answers(200, PlayerSettings, 401, 403, 404, 422, *LIMITS))
async def get_settings(game_id: GameId, request: Request) -> PlayerSettings:
    token = bearer(request)
    async with work(request) as uow:
        return await settings.player_settings(uow, game_id, token)


@router.put("/games/{game_id}/players/me/settings", summary="Change the caller's settings",
            response_model=None, openapi_extra=BEARER,
            responses=answers(200, PlayerSettings, 401, 403, 404, *BODY, *LIMITS))
async def put_settings(game_id: GameId, body: SettingsBody, request: Request
                       ) -> PlayerSettings:
    token = bearer(request)
    async with work(request) as uow:
        return await settings.set_player_settings(uow, game_id, token,
                                                  body.model_dump(exclude_none=True))
