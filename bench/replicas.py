"""Reads from a streaming replica (issue 21, item 4): what a read costs the primary with
and without one, the replica's lag behind an order, and read-your-writes.

    .venv/bin/python bench/replicas.py [--seconds 5] [--games 20] [--pairs 200]

A throwaway embedded PostgreSQL (synchronous_commit on, as a real primary runs; fsync
off) and a hot standby made of it with `pg_basebackup -R`, on this machine; one
`python -m service serve` process, first on the primary alone, then with
DATABASE_REPLICA_URL naming the standby:

- reads: `GET /state` and `GET /log?limit=100` of `--games` dno-demo games by their
  players, 8 clients, with the CPU time per read of the server, the primary and the
  standby;
- lag: `--pairs` signed orders, each followed by polling the standby's copy of the
  game row until it has the order's version (how long a replica is behind an order);
- read your writes: `--pairs` orders, each followed by `GET /state` with
  `X-Min-Version` set to the order's `version` (every answer must be that version).

Raw figures go to bench/results/replicas.json.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import time
from collections.abc import Iterator
from typing import Any

import asyncpg
import harness as h
import httpx

SERVER_ENV = {"RATE_LIMIT": "0"}


def reads(games: list[h.GameSeats], clients: int) -> list[Iterator[h.Request]]:
    seats = [s for g in games for s in g.seats]

    def stream(i: int) -> Iterator[h.Request]:
        for n in itertools.count(i):
            seat = seats[n % len(seats)]
            if n % 2:
                yield h.Request("GET", f"/v1/games/{seat.game}/state", h.bearer(seat.token))
            else:
                yield h.Request("GET", f"/v1/games/{seat.game}/log?limit=100",
                                h.bearer(seat.token))

    return [stream(i) for i in range(clients)]


def _ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50_ms": round(statistics.median(ordered) * 1000, 2),
            "p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000, 2)}


async def lag_and_ryw(base: str, standby_url: str, seat: h.Seat, pairs: int
                      ) -> dict[str, Any]:
    """`pairs` orders each followed by polling the standby until its copy of the game
    has the order's version; then `pairs` orders each followed by a read with the
    order's version."""
    standby = await asyncpg.connect(standby_url.replace("postgresql+asyncpg://",
                                                        "postgresql://", 1))
    lags: list[float] = []
    reads_after: list[float] = []
    wrong = 0
    try:
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            async def order() -> tuple[int, float]:
                r = await client.post(f"/v1/games/{seat.game}/orders",
                                      content=h.roll_order(seat),
                                      headers={**h.bearer(seat.token),
                                               "content-type": "application/json"})
                r.raise_for_status()
                return int(r.json()["version"]), time.perf_counter()

            for _ in range(pairs):
                version, answered = await order()
                while (await standby.fetchval("SELECT version FROM games WHERE id = $1",
                                              seat.game) or 0) < version:
                    await asyncio.sleep(0.0002)
                lags.append(time.perf_counter() - answered)
            for _ in range(pairs):
                version, answered = await order()
                read = await client.get(f"/v1/games/{seat.game}/state", headers={
                    **h.bearer(seat.token), "X-Min-Version": str(version)})
                reads_after.append(time.perf_counter() - answered)
                wrong += read.json()["game"]["version"] < version
    finally:
        await standby.close()
    return {"replica lag after an order's answer": _ms(lags),
            "read with X-Min-Version after an order": _ms(reads_after),
            "stale answers": wrong}


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()),
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--seconds", type=float, default=5.0, help="measured seconds per run")
    parser.add_argument("--max-requests", type=int, default=20000, help="cap per run")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--pairs", type=int, default=200)
    args = parser.parse_args()
    started = time.monotonic()
    print(f"machine: {h.conditions()}", flush=True)
    rows: list[dict[str, Any]] = []
    out: dict[str, Any] = {"args": vars(args), "rows": rows}
    with h.database() as db:
        db.psql("ALTER SYSTEM SET synchronous_commit = on")
        db.psql("SELECT pg_reload_conf()")
        h.migrate(db.url)
        with h.standby(db) as replica:
            games: list[h.GameSeats] = []
            for label, env in (("primary only", {}),
                               ("with a replica", {"DATABASE_REPLICA_URL": replica.url})):
                with h.referee(db.url, **SERVER_ENV, **env) as server:
                    if not games:
                        games = h.create_games(server.base, args.games)
                    cpu = {"server": server.pids, "primary": db.pids,
                           "replica": replica.pids}
                    result = h.load(server.base, label, reads(games, 8),
                                    seconds=args.seconds, max_requests=args.max_requests,
                                    cpu=cpu)
                    row = {"server": label, **result.row()}
                    rows.append(row)
                    print(f"  {label:<16} reads, 8 clients: {row['per_s']} /s  p50 "
                          f"{row['p50_ms']} ms  p99 {row['p99_ms']} ms  CPU ms/read "
                          f"{row['cpu_ms']}  errors {sum(result.errors.values())}",
                          flush=True)
                    if env:
                        found = asyncio.run(lag_and_ryw(server.base, replica.url,
                                                        games[0].seats[0], args.pairs))
                        out["after an order"] = found
                        print(f"  after an order: {found}", flush=True)
    print()
    print(h.table([{**r, **{f"{k} CPU ms": v for k, v in r["cpu_ms"].items()}} for r in rows],
                  ["server", "clients", "per_s", "p50_ms", "p99_ms", "server CPU ms",
                   "primary CPU ms", "replica CPU ms"]))
    h.save("replicas", out)
    print(f"\n({time.monotonic() - started:.0f} s; machine at the end: {h.conditions()})")


if __name__ == "__main__":
    main()
