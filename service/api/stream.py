"""`GET /v1/games/{id}/stream`: Server-Sent Events of the caller's view of each event as
it is committed. `id:` is the event's seq; `Last-Event-ID` (or `?after=`) resumes with
nothing missed and nothing twice. Heartbeats every 15 s as SSE comments."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from sse_starlette.sse import EventSourceResponse

from service.api.auth import bearer, work
from service.api.games import GameId
from service.api.problems import Problem
from service.referee import members, reads
from service.referee.errors import RefereeError

router = APIRouter(prefix="/v1")
REREAD_SECONDS = 5.0
BATCH = 500


@router.get("/games/{game_id}/stream", summary="Live events (SSE); resume with Last-Event-ID",
            response_class=EventSourceResponse)
async def stream(
    game_id: GameId,
    request: Request,
    last_event_id: Annotated[str | None, Header()] = None,
    after: Annotated[int | None, Query(ge=0, le=2**62)] = None,
) -> EventSourceResponse:
    token = bearer(request)
    async with work(request) as uow:
        await members.member(uow, game_id, token)
    start = after or 0
    if last_event_id is not None:
        if not last_event_id.isdigit() or len(last_event_id) > 18:
            raise Problem(422, "request/invalid_parameter", "Last-Event-ID is an event seq",
                          errors=[{"path": "/headers/last-event-id", "message": "not a seq"}])
        start = int(last_event_id)
    hub = request.app.state.hub

    async def events() -> AsyncIterator[dict[str, Any]]:
        wake = hub.subscribe(game_id)
        last = start
        try:
            while True:
                wake.clear()
                while True:
                    try:
                        async with work(request) as uow:
                            batch = await reads.stream_page(uow, game_id, token, after=last,
                                                            limit=BATCH)
                    except RefereeError:  # the seat was revoked: the stream ends
                        return
                    for event in batch:
                        last = event["seq"]
                        yield {"id": str(event["seq"]), "event": event["kind"],
                               "data": json.dumps(event, separators=(",", ":"))}
                    if len(batch) < BATCH:
                        break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), timeout=REREAD_SECONDS)
        finally:
            hub.unsubscribe(game_id, wake)

    return EventSourceResponse(events(), ping=15)
