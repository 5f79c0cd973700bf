"""A serving process prepares its routes when it starts (issue 33: no request holds the
event loop over 50 ms): FastAPI builds a router's routes, their answers' serializers
included, when a request first looks through it, which held the first requests of a
process 60-130 ms (bench/attack.py). `ready_routes` makes the router look through all of
them at startup, so no request builds one."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import routing

from service.app import create_app, ready_routes
from service.settings import Settings


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    built: list[str] = []
    original = routing._EffectiveRouteContext.from_api_route

    def counted(cls: Any, /, **parts: Any) -> Any:
        built.append(parts["original_route"].path)
        return original(**parts)

    monkeypatch.setattr(routing._EffectiveRouteContext, "from_api_route",
                        classmethod(counted))
    return built


async def _first_requests(ready: bool, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    app = create_app(Settings(database_url="postgresql://unused@127.0.0.1:1/none",
                              rate_limit=0), database_url="postgresql://unused@127.0.0.1:1/none")
    if ready:
        ready_routes(app)
    built = _counting(monkeypatch)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        assert (await client.get("/healthz")).status_code == 200
        assert (await client.get("/problems/order/wrong_step")).status_code == 200
        assert (await client.get("/nowhere")).status_code == 404  # looks through them all
    monkeypatch.undo()
    return built


async def test_no_request_builds_a_route_once_the_routes_are_ready(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert await _first_requests(True, monkeypatch) == []


async def test_without_it_the_first_requests_build_the_routes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: what `ready_routes` spares the first requests."""
    built = await _first_requests(False, monkeypatch)
    assert "/healthz" in built and len(built) > 10
