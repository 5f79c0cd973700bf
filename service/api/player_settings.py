"""A player's own settings (issue 16): `GET`/`PUT /v1/games/{id}/players/me/settings`,
with the player's token. `confirm_lapse`: the `done` of a reorganization step leaving
RPs unspent must then carry `"confirm_lapse": true` (the RPs lapse, 11.18)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from service.api.auth import bearer, work
from service.api.games import GameId
from service.referee import settings

router = APIRouter(prefix="/v1")


class PlayerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "examples": [{"confirm_lapse": True}]})
    confirm_lapse: StrictBool | None = Field(default=None, description=(
        "require `\"confirm_lapse\": true` in the `done` of a reorganization step that "
        "leaves RPs unspent"))


@router.get("/games/{game_id}/players/me/settings", summary="The caller's player settings")
async def get_settings(game_id: GameId, request: Request) -> dict[str, Any]:
    token = bearer(request)
    async with work(request) as uow:
        return await settings.player_settings(uow, game_id, token)


@router.put("/games/{game_id}/players/me/settings", summary="Change the caller's settings")
async def put_settings(game_id: GameId, body: PlayerSettings, request: Request
                       ) -> dict[str, Any]:
    token = bearer(request)
    async with work(request) as uow:
        return await settings.set_player_settings(uow, game_id, token,
                                                  body.model_dump(exclude_none=True))
