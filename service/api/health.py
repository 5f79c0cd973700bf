"""Liveness, readiness, and the problem-type pages."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from service.api.auth import work
from service.api.problems import Problem

router = APIRouter()


@router.get("/healthz", summary="The process answers")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz", summary="The database answers")
async def readyz(request: Request) -> dict[str, str]:
    try:
        async with work(request) as uow:
            await uow.ping()
    except Exception as error:  # noqa: BLE001 - any failure means not ready
        raise Problem(503, "service/database_unavailable", f"database not reachable: "
                      f"{type(error).__name__}", headers={"Retry-After": "2"}) from None
    return {"status": "ready"}


@router.get("/problems/{code:path}", summary="What a problem type means")
async def problem_type(code: str) -> dict[str, Any]:
    return {"type": f"/problems/{code}", "code": code,
            "description": "An error of this kind; the response's `detail`, `rule` and "
                           "`errors` say what and where."}
