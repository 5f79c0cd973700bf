"""Liveness, readiness, and the problem-type pages."""

from __future__ import annotations

from typing import Literal, NotRequired

from fastapi import APIRouter, Request
from typing_extensions import TypedDict

from service import clock
from service.api.auth import work
from service.api.contract import answers
from service.api.numbers import JsonRoute
from service.api.problems import Problem
from service.referee.holds import LoopFigures
from service.referee.offload import (
    HeavyFigures,
    MemoryFigures,
    ProcessFigures,
    memory,
    process_figures,
)
from service.referee.work import read_clock

router = APIRouter(route_class=JsonRoute)


class ClockCheck(TypedDict):
    skew_seconds: float
    ok: bool
    detail: str


class Health(TypedDict):
    """`status`; on /readyz also the clock's check, and what this process holds and how
    its loop fares (issue 33, docs/operating.md "Memory"): `memory` its per-game caches
    (estimated bytes by cache, games, the limit, games forgotten), `heavy` its worker
    processes (requests waiting, how requests ended, each worker's caches), `loop` the
    longest holds of its event loop, `process` its memory as the kernel, Python and the
    C allocator see it."""

    status: Literal["ok", "ready"]
    clock: NotRequired[ClockCheck]
    memory: NotRequired[MemoryFigures]
    heavy: NotRequired[HeavyFigures]
    loop: NotRequired[LoopFigures]
    process: NotRequired[ProcessFigures]


class ProblemType(TypedDict):
    type: str
    code: str
    description: str


@router.get("/healthz", summary="The process answers", response_model=None,
            responses=answers(200, Health))
async def healthz() -> Health:
    return {"status": "ok"}


@router.get("/readyz", summary="The database answers; how far this process's clock is "
            "from the database's", response_model=None, responses=answers(200, Health, 503))
async def readyz(request: Request) -> Health:
    try:
        async with work(request) as uow:
            sample = await read_clock(uow)
    except Exception as error:  # noqa: BLE001 - any failure means not ready
        raise Problem(503, "service/database_unavailable", f"database not reachable: "
                      f"{type(error).__name__}", headers={"Retry-After": "2"}) from None
    ok = abs(sample.skew) <= request.app.state.settings.clock_tolerance
    state = request.app.state
    memory.sweep()
    return {"status": "ready", "clock": {
        "skew_seconds": round(sample.skew, 3), "ok": ok,
        "detail": "within CLOCK_TOLERANCE of the database's" if ok
        else clock.skew_words(sample.skew)},
        "memory": memory.figures(), "heavy": state.offload.figures(),
        "loop": state.loop_watch.figures(), "process": process_figures()}


@router.get("/problems/{code:path}", summary="What a problem type means", response_model=None,
            responses=answers(200, ProblemType, 422))
async def problem_type(code: str) -> ProblemType:
    return {"type": f"/problems/{code}", "code": code,
            "description": "An error of this kind; the response's `detail`, `rule` and "
                           "`errors` say what and where."}
