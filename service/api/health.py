"""Liveness, readiness, and the problem-type pages."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from fastapi import APIRouter, Request
from typing_extensions import TypedDict

from service.api.auth import work
from service.api.contract import answers
from service.api.numbers import JsonRoute
from service.api.problems import Problem
from service.referee.offload import memory

router = APIRouter(route_class=JsonRoute)


class Health(TypedDict):
    """`status`; on /readyz also what this process holds and how its loop fares (issue
    33, docs/operating.md "Memory"): `memory` its per-game caches (estimated bytes by
    cache, games, the limit, games forgotten), `heavy` its worker processes (requests
    waiting, how requests ended, each worker's caches), `loop` the longest holds of its
    event loop."""

    status: Literal["ok", "ready"]
    memory: NotRequired[dict[str, Any]]
    heavy: NotRequired[dict[str, Any]]
    loop: NotRequired[dict[str, Any]]


class ProblemType(TypedDict):
    type: str
    code: str
    description: str


@router.get("/healthz", summary="The process answers", response_model=None,
            responses=answers(200, Health))
async def healthz() -> Health:
    return {"status": "ok"}


@router.get("/readyz", summary="The database answers", response_model=None,
            responses=answers(200, Health, 503))
async def readyz(request: Request) -> Health:
    try:
        async with work(request) as uow:
            await uow.ping()
    except Exception as error:  # noqa: BLE001 - any failure means not ready
        raise Problem(503, "service/database_unavailable", f"database not reachable: "
                      f"{type(error).__name__}", headers={"Retry-After": "2"}) from None
    state = request.app.state
    memory.sweep()
    return {"status": "ready", "memory": memory.figures(), "heavy": state.offload.figures(),
            "loop": state.loop_watch.figures()}


@router.get("/problems/{code:path}", summary="What a problem type means", response_model=None,
            responses=answers(200, ProblemType, 422))
async def problem_type(code: str) -> ProblemType:
    return {"type": f"/problems/{code}", "code": code,
            "description": "An error of this kind; the response's `detail`, `rule` and "
                           "`errors` say what and where."}
