"""A player's notification channels (issue 20): e-mail, Discord and Slack, each with
quiet hours and a digest (service/referee/channels.py)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Request, Response

from service.answers import Channel, Channels, TestSent
from service.api.auth import bearer, work
from service.api.contract import BEARER, BODY, LIMITS, READ, answers
from service.api.games import GameId
from service.api.numbers import JsonRoute
from service.api.schemas import ChannelSettings, Empty
from service.referee import channels, notifications

router = APIRouter(prefix="/v1", route_class=JsonRoute)

Kind = Annotated[Literal["email", "discord", "slack"],
                 Path(description="the channel: email, discord or slack")]


def _setup(request: Request) -> channels.Setup:
    setup: channels.Setup = request.app.state.channel_setup
    return setup


@router.put("/games/{game_id}/channels/{kind}",
            summary="Register (or replace) one of my notification channels",
            response_model=None, openapi_extra=BEARER,
            responses=answers(200, Channel, 401, 403, 404, 409, *BODY, *LIMITS))
async def put_channel(game_id: GameId, kind: Kind, body: ChannelSettings, request: Request
                      ) -> Channel:
    token = bearer(request)
    quiet = None if body.quiet_hours is None else {
        "from": body.quiet_hours.from_, "to": body.quiet_hours.to,
        "timezone": body.quiet_hours.timezone}
    async with work(request) as uow:
        shown = await channels.put(uow, game_id, token, kind, target=body.target,
                                   quiet_hours=quiet, digest_minutes=body.digest_minutes,
                                   setup=_setup(request), policy=request.app.state.egress)
    return shown


@router.post("/games/{game_id}/channels/{kind}/test",
             summary="Send one of my notification channels a test message now",
             response_model=None, openapi_extra=BEARER,
             responses=answers(200, TestSent, 401, 403, 404, 409, *BODY, *LIMITS))
async def test_channel(game_id: GameId, kind: Kind, request: Request,
                       body: Empty | None = None) -> TestSent:
    token = bearer(request)
    async with work(request) as uow:
        due = await notifications.test_message(uow, game_id, token, kind)
    return await notifications.try_test(due, request.app.state.egress, _setup(request))


@router.get("/games/{game_id}/channels", summary="My notification channels",
            response_model=None, openapi_extra=BEARER, responses=answers(200, Channels, *READ))
async def get_channels(game_id: GameId, request: Request) -> Channels:
    token = bearer(request)
    async with work(request) as uow:
        found = await channels.listed(uow, game_id, token, _setup(request))
    return found


@router.delete("/games/{game_id}/channels/{kind}", status_code=204,
               summary="Remove one of my notification channels", response_model=None,
               openapi_extra=BEARER,
               responses=answers(204, None, *READ, description="removed"))
async def delete_channel(game_id: GameId, kind: Kind, request: Request) -> Response:
    token = bearer(request)
    async with work(request) as uow:
        await channels.delete(uow, game_id, token, kind)
    return Response(status_code=204)
