"""`GET /v1/games/{id}/stream`: Server-Sent Events of the caller's view of each event as
it is committed. `id:` is the event's seq, `event:` its kind; `Last-Event-ID` (or
`?after=`) resumes with nothing missed and nothing twice; with neither, the whole log
from seq 1 comes first. Heartbeats every 15 s as SSE comments. The caller is named by
`Authorization: Bearer` or, for a browser's EventSource (which cannot send headers), by
a single-use `?ticket=` from `POST /v1/games/{id}/stream/tickets` (docs/api.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from sse_starlette.sse import EventSourceResponse

from service.answers import Ticket
from service.api.auth import bearer, read, work
from service.api.contract import (
    BEARER,
    BODY,
    GAME,
    LIMITS,
    OPTIONAL_BEARER,
    READ,
    answers,
    link,
)
from service.api.games import GameId, KnownVersion
from service.api.numbers import JsonRoute
from service.api.problems import Problem
from service.api.schemas import Empty
from service.referee import reads, tickets
from service.referee.errors import RefereeError

router = APIRouter(prefix="/v1", route_class=JsonRoute)
STREAM = {"type": "object", "required": ["event", "data"], "description": (
    "Server-Sent Events: each `event:` is an event's kind (never the default `message`), "
    "`id:` its seq, `data:` the EventRecord as JSON; `: ping` comments every 15 s; after "
    "an `initiative.reroll_closed`, each answer this stream sent sealed comes again as "
    "`sealed.opened` (no `id:`, the record with its own seq, now whole)"),
    "properties": {
        "event": {"type": "string", "description": "the event's kind"},
        "id": {"type": "string", "pattern": "^[0-9]+$",
               "description": "the event's seq (none on `sealed.opened`)"},
        "data": {"type": "string", "contentMediaType": "application/json",
                 "contentSchema": {"$ref": "#/components/schemas/EventRecord"}}}}
STREAM_WORDS = ("the caller's view of each event as it is committed (docs/api.md, "
                "Streams): event names are the event kinds, ids the seqs")
REREAD_SECONDS = 5.0
HEARTBEAT_SECONDS = 15
BATCH = 500


@router.post("/games/{game_id}/stream/tickets", status_code=201,
             summary="A single-use ticket (60 s) that opens my stream without the token",
             response_model=None, openapi_extra=BEARER,
             responses=answers(201, Ticket, 401, 403, 404, *BODY, *LIMITS, links={"stream": link(
                 "stream", game_id=GAME, ticket="$response.body#/ticket")}))
async def stream_ticket(game_id: GameId, request: Request, body: Empty | None = None
                        ) -> Ticket:
    token = bearer(request)
    async with work(request) as uow:
        return await tickets.issue(uow, game_id, token)


@router.get("/games/{game_id}/stream",
            summary="Live events (SSE); resume with Last-Event-ID or after; bearer or ticket",
            response_class=EventSourceResponse, openapi_extra=OPTIONAL_BEARER,
            responses=answers(200, STREAM, *READ, media_type="text/event-stream",
                              description=STREAM_WORDS))
async def stream(
    game_id: GameId,
    request: Request,
    last_event_id: Annotated[str | None, Header(pattern="^[0-9]{1,18}$", description=(
        "the seq of the last event received: the stream resumes after it"))] = None,
    after: Annotated[int | None, Query(ge=0, le=2**62)] = None,
    ticket: Annotated[str | None, Query(min_length=1, max_length=200, description=(
        "a ticket from POST .../stream/tickets, instead of the Authorization header"
    ))] = None,
    known: KnownVersion = 0,
) -> EventSourceResponse:
    start = after or 0
    if last_event_id is not None:
        if not last_event_id.isdigit() or len(last_event_id) > 18:
            raise Problem(422, "request/invalid_parameter", "Last-Event-ID is an event seq",
                          errors=[{"path": "/headers/last-event-id", "message": "not a seq"}])
        start = int(last_event_id)
    async with work(request) as uow:
        if ticket is not None:
            digest = await tickets.redeem(uow, game_id, ticket)
        else:
            digest = await tickets.of_token(uow, game_id, bearer(request))
    hub = request.app.state.hub

    async def events() -> AsyncIterator[dict[str, Any]]:
        wake = hub.subscribe(game_id)
        last = start
        sealed: set[int] = set()  # seqs this stream sent sealed, to send again opened
        try:
            while True:
                wake.clear()
                while True:
                    page = partial(reads.stream_page, game_id=game_id, digest=digest,
                                   after=last, limit=BATCH)
                    try:  # from a replica only when it has what this process heard of
                        batch = await read(request, page, min_version=known,
                                           min_seq=max(last, hub.newest(game_id)))
                    except RefereeError:  # the seat was revoked: the stream ends
                        return
                    for streamed in batch:
                        event = streamed.record
                        last = event["seq"]
                        if event.get("sealed"):
                            sealed.add(event["seq"])
                        yield {"id": str(event["seq"]), "event": event["kind"],
                               "data": json.dumps(event, separators=(",", ":"))}
                        for opened in streamed.opens:  # no id: Last-Event-ID stays
                            if opened["seq"] in sealed:
                                sealed.discard(opened["seq"])
                                yield {"event": "sealed.opened",
                                       "data": json.dumps(opened, separators=(",", ":"))}
                    if len(batch) < BATCH:
                        break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), timeout=REREAD_SECONDS)
        finally:
            hub.unsubscribe(game_id, wake)

    return EventSourceResponse(events(), ping=HEARTBEAT_SECONDS)
