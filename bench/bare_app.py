"""The framework's ceiling: a bare FastAPI + SQLAlchemy endpoint doing only the order's
transaction (lock the game row, insert one event, bump the version), on the real schema.

    DATABASE_URL=postgresql+asyncpg://... python -m uvicorn bench.bare_app:app --port 8001

Same engine settings as the service (`service.store.database.make_engine`), same
server (uvicorn), one transaction per request; no signature, rules, hash chain or
snapshot. `bench/orders.py` starts it and loads it exactly like the referee.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI, Request
from sqlalchemy import text

from service.store.database import make_engine, make_sessionmaker

LOCK = text("SELECT head_seq FROM games WHERE id = :g FOR UPDATE")
INSERT = text(
    "INSERT INTO events (game_id, seq, turn, impulse, step, kind, actor, text, data,"
    " rules_version, hash, at) VALUES (:g, :seq, 1, 0, 'action', 'dice.rolled', :actor,"
    " 'rolls 2d10', CAST(:data AS jsonb), 'bench', :hash, :at)"
)
BUMP = text("UPDATE games SET version = version + 1, head_seq = :seq WHERE id = :g")


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    engine = make_engine(os.environ["DATABASE_URL"], pool_size=10)
    app.state.sessionmaker = make_sessionmaker(engine)
    try:
        yield
    finally:
        await engine.dispose()


app = FastAPI(lifespan=lifespan)


@app.get("/readyz")
async def ready() -> dict[str, str]:
    return {"status": "ready"}


@app.post("/v1/games/{game_id}/orders", status_code=201)
async def order(game_id: str, body: dict[str, Any], request: Request) -> dict[str, Any]:
    async with request.app.state.sessionmaker() as session, session.begin():
        head = (await session.execute(LOCK, {"g": game_id})).scalar_one()
        seq = head + 1
        await session.execute(INSERT, {"g": game_id, "seq": seq,
                                       "actor": body.get("order", {}).get("player", "p"),
                                       "data": '{"values": [3, 7]}', "hash": f"{seq:064x}",
                                       "at": datetime.now(UTC)})
        await session.execute(BUMP, {"g": game_id, "seq": seq})
    return {"accepted": True, "seq": seq}
