"""The operator key (issue 14, item 10): creating and importing games needs it when it
is set, it is compared in constant time, and `serve` warns when it listens beyond
loopback without one."""

from __future__ import annotations

import asyncio
import hmac
import os
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from conftest import free_port

from service.app import create_app
from service.settings import Settings

KEY = "operator-secret-0123456789"


@pytest.fixture
async def guarded(migrated_url: str) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Settings(database_url=migrated_url, operator_key=KEY, sweep_interval=0),
                     database_url=migrated_url)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://op") as c:
            yield c


async def test_the_operator_key_is_compared_in_constant_time(
    guarded: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every comparison of the key goes through hmac.compare_digest, with inputs of one
    length whatever the guess (so neither its bytes nor its length leak by timing)."""
    compared: list[tuple[Any, Any]] = []
    real = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    game = {"name": "guarded", "scenario": "dno-demo"}
    for guess in ("", "o", KEY[:-1], KEY + "x", "x" * 5000):
        r = await guarded.post("/v1/games", json=game,
                               headers={"Authorization": f"Bearer {guess}"} if guess else {})
        assert r.status_code == 401, r.text
        assert r.json()["type"] == "/problems/auth/operator_only"
    assert (await guarded.post("/v1/games/import", json={},
                               headers={"Authorization": "Bearer nope"})).status_code in (401, 422)
    r = await guarded.post("/v1/games", json=game, headers={"Authorization": f"Bearer {KEY}"})
    assert r.status_code == 201, r.text
    assert len(compared) >= 5
    assert {(len(a), len(b)) for a, b in compared} == {(32, 32)}


async def _serve(env: dict[str, str], port: int) -> tuple[asyncio.subprocess.Process, str]:
    """`python -m service serve --host 0.0.0.0`; returns once /readyz answers or the
    process printed a warning, with what it wrote to stderr so far."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "service", "serve", "--host", "0.0.0.0", "--port", str(port),
        env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        start_new_session=True)
    assert proc.stderr is not None
    err = b""
    deadline = time.monotonic() + 60
    async with httpx.AsyncClient() as client:
        while time.monotonic() < deadline and proc.returncode is None:
            try:
                err += await asyncio.wait_for(proc.stderr.read(4096), 0.2)
            except TimeoutError:
                pass
            if b"OPERATOR_KEY" in err:
                break
            try:
                if (await client.get(f"http://127.0.0.1:{port}/readyz")).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
    return proc, err.decode(errors="replace")


async def _stop(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            proc.kill()
            await proc.wait()


async def test_serve_warns_when_open_beyond_loopback_without_an_operator_key(
    migrated_url: str,
) -> None:
    base = {k: v for k, v in os.environ.items() if k != "OPERATOR_KEY"}
    base.update(DATABASE_URL=migrated_url, SWEEP_INTERVAL="0", LOG_LEVEL="warning")
    proc, err = await _serve(base, free_port())
    await _stop(proc)
    assert "WARNING" in err and "OPERATOR_KEY" in err and "0.0.0.0" in err, err

    proc, err = await _serve({**base, "OPERATOR_KEY": KEY}, free_port())
    await _stop(proc)
    assert "OPERATOR_KEY" not in err, err


@pytest.mark.parametrize(("host", "open_"), [
    ("127.0.0.1", False), ("localhost", False), ("::1", False), ("127.0.0.2", False),
    ("0.0.0.0", True), ("::", True), ("192.168.1.20", True), ("203.0.113.7", True),
])
def test_which_hosts_listen_beyond_loopback(host: str, open_: bool) -> None:
    from service.cli import beyond_loopback

    assert beyond_loopback(host) is open_
