"""Liveness, readiness, and the problem-type pages."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from typing_extensions import TypedDict

from service.api.auth import work
from service.api.contract import answers
from service.api.numbers import JsonRoute
from service.api.problems import Problem

router = APIRouter(route_class=JsonRoute)


class Health(TypedDict):
    status: Literal["ok", "ready"]


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
    return {"status": "ready"}


@router.get("/problems/{code:path}", summary="What a problem type means", response_model=None,
            responses=answers(200, ProblemType, 422))
async def problem_type(code: str) -> ProblemType:
    return {"type": f"/problems/{code}", "code": code,
            "description": "An error of this kind; the response's `detail`, `rule` and "
                           "`errors` say what and where."}
