"""Count the SQL round trips of one request, with SQLAlchemy event hooks.

    .venv/bin/python bench/roundtrips.py [--orders 50]

Runs the real app in this process (httpx over ASGI, no server), on the embedded
PostgreSQL (or DATABASE_URL), and counts per request: statements sent
(`before_cursor_execute`), BEGIN and COMMIT, and pool pre-pings. Prints each distinct
statement of an order once, so a change in the order path shows up here first.
`bench/orders.py` reports the same counts next to its throughput figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from collections import Counter
from typing import Any

import harness as h
import httpx
from sqlalchemy import event


class Counts:
    def __init__(self) -> None:
        self.statements: Counter[str] = Counter()
        self.begins = self.commits = self.pings = 0

    @property
    def round_trips(self) -> int:
        return sum(self.statements.values()) + self.begins + self.commits + self.pings

    def reset(self) -> None:
        self.__init__()  # type: ignore[misc]


def instrument(engine: Any) -> Counts:
    counts = Counts()
    sync = engine.sync_engine

    @event.listens_for(sync, "before_cursor_execute")
    def _statement(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        counts.statements[" ".join(statement.split())[:110]] += 1

    @event.listens_for(sync, "begin")
    def _begin(conn: Any) -> None:
        counts.begins += 1

    @event.listens_for(sync, "commit")
    def _commit(conn: Any) -> None:
        counts.commits += 1

    dialect = sync.dialect
    original = dialect.do_ping

    def counted_ping(dbapi_connection: Any) -> bool:
        counts.pings += 1
        result: bool = original(dbapi_connection)
        return result

    dialect.do_ping = counted_ping
    return counts


async def measure(url: str, orders: int = 50) -> dict[str, Any]:
    """Per-request counts for an order, a state read and a 304 read, in-process."""
    os.environ["DATABASE_URL"] = url
    from service.app import create_app
    from service.settings import Settings

    app = create_app(Settings(database_url=url, sweep_interval=0, rate_limit=0),
                     database_url=url)
    out: dict[str, Any] = {}
    async with app.router.lifespan_context(app):
        counts = instrument(app.state.engine)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            seats = await _game(client)
            seat = seats[0]
            for _ in range(3):  # warm caches
                r = await client.post(f"/v1/games/{seat.game}/orders",
                                      content=h.roll_order(seat), headers=_json(seat.token))
                r.raise_for_status()
            counts.reset()
            for _ in range(orders):
                r = await client.post(f"/v1/games/{seat.game}/orders",
                                      content=h.roll_order(seat), headers=_json(seat.token))
                assert r.status_code == 201, r.text
            out["order"] = _summary(counts, orders)
            counts.reset()
            r = await client.get(f"/v1/games/{seat.game}/state", headers=h.bearer(seat.token))
            out["state read"] = _summary(counts, 1)
            etag = r.headers["etag"]
            counts.reset()
            r = await client.get(f"/v1/games/{seat.game}/state",
                                 headers={**h.bearer(seat.token), "If-None-Match": etag})
            assert r.status_code == 304
            out["304 read"] = _summary(counts, 1)
    return out


def _json(token: str) -> dict[str, str]:
    return {**h.bearer(token), "Content-Type": "application/json"}


def _summary(counts: Counts, n: int) -> dict[str, Any]:
    return {
        "statements": round(sum(counts.statements.values()) / n, 2),
        "begin+commit": round((counts.begins + counts.commits) / n, 2),
        "pings": round(counts.pings / n, 2),
        "round_trips": round(counts.round_trips / n, 2),
        "distinct": {k: round(v / n, 2) for k, v in counts.statements.most_common()},
    }


async def _game(client: httpx.AsyncClient) -> list[h.Seat]:
    return (await h.new_game(client)).seats


def report(counts: dict[str, Any]) -> str:
    lines = [h.table([{"request": k, **{c: v[c] for c in ("statements", "begin+commit",
                                                          "pings", "round_trips")}}
                      for k, v in counts.items()],
                     ["request", "statements", "begin+commit", "pings", "round_trips"])]
    lines.append("\nstatements of one order:")
    lines += [f"  {n:>4} x {s}" for s, n in counts["order"]["distinct"].items()]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--orders", type=int, default=50, help="orders to average over")
    args = parser.parse_args()
    with h.database() as db:
        h.migrate(db.url)
        print(report(asyncio.run(measure(db.url, args.orders))))


if __name__ == "__main__":
    main()
