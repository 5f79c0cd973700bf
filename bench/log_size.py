"""An order's cost with 10 against 10,000 prior events in the game's log (issue 9,
item 1; target: within 20%).

    .venv/bin/python bench/log_size.py [--events 10000] [--seconds 5]

Two `dno-demo` games on one PostgreSQL (embedded in a temp folder, or DATABASE_URL).
The long one gets `--events` more events first, written by the referee itself in this
process (`referee.core.apply` of real `roll` commands, 500 per transaction: real
hash chain, dice and snapshots, without HTTP). Then a fresh `python -m service serve`
process (its caches cold) takes one client's signed `roll` orders on each game in
turn: the first order on the long game rebuilds its state from the newest snapshot
plus the events since (reported on its own), then the steady cost per order is
compared. Raw figures go to bench/results/log_size.json.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

import harness as h
import httpx

SERVER_ENV = {"RATE_LIMIT": "0"}
BATCH = 500


async def fill(url: str, seat: h.Seat, events: int) -> float:
    """Append `events` roll events to the seat's game through the referee; seconds taken."""
    from service.clock import rfc3339, utc_now
    from service.referee.ledger import apply
    from service.rules import Actor, Command
    from service.store.database import make_engine, make_sessionmaker
    from service.store.uow import Transactions

    engine = make_engine(url, pool_size=1)
    transactions = Transactions(make_sessionmaker(engine))
    started = time.perf_counter()
    done = 0
    try:
        while done < events:
            async with transactions() as uow:
                game = await uow.games.lock(seat.game)
                for _ in range(min(BATCH, events - done)):
                    applied = await apply(uow, game, Command(
                        kind="roll", body={"dice": "1d10", "purpose": "history"},
                        actor=Actor(id=seat.player, role="player", side=seat.side),
                        at=rfc3339(utc_now())))
                    done += len(applied.events)
    finally:
        await engine.dispose()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()),
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=5.0, help="measured seconds per run")
    parser.add_argument("--rounds", type=int, default=2, help="runs per game, alternating")
    args = parser.parse_args()
    started = time.monotonic()
    print(f"machine: {h.conditions()}", flush=True)
    rows: list[dict[str, Any]] = []
    with h.database() as db:
        h.migrate(db.url)
        with h.referee(db.url, **SERVER_ENV) as server:
            short, long = h.create_games(server.base, 2)
        took = asyncio.run(fill(db.url, long.seats[0], args.events))
        print(f"appended {args.events} events in {took:.1f} s", flush=True)
        with h.referee(db.url, **SERVER_ENV) as server:
            with httpx.Client(base_url=server.base, timeout=60) as client:
                heads = {}
                for game in (short, long):
                    seat = game.seats[1]
                    t = time.perf_counter()
                    r = client.post(f"/v1/games/{game.id}/orders", content=h.roll_order(seat),
                                    headers={**h.bearer(seat.token),
                                             "Content-Type": "application/json"})
                    r.raise_for_status()
                    heads[game.id] = r.json()["events"][-1]["seq"]
                    print(f"  first order on a cold process, log of {heads[game.id]} events:"
                          f" {(time.perf_counter() - t) * 1000:.1f} ms", flush=True)
            for _ in range(args.rounds):
                for name, game in (("short", short), ("long", long)):
                    streams = h.order_streams(game.seats, 1, 3000)
                    result = h.load(server.base, name, streams, seconds=args.seconds,
                                    max_requests=3000, cpu={"server": server.pids})
                    row = {"log": f"{heads[game.id]:,} events", **result.row(),
                           "server CPU ms/order": round(result.cpu.get("server", 0), 2)}
                    rows.append(row)
                    print(f"  log of {heads[game.id]:>6} events: {row['per_s']:>6} orders/s"
                          f"  p50 {row['p50_ms']} ms  p99 {row['p99_ms']} ms  server CPU "
                          f"{row['server CPU ms/order']:.2f} ms/order", flush=True)
    print()
    print(h.table(rows, ["log", "clients", "per_s", "p50_ms", "p95_ms", "p99_ms",
                         "server CPU ms/order"]))
    by: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by.setdefault(row["log"], []).append(row)
    (s_log, s_rows), (l_log, l_rows) = by.items()
    s_p50 = sum(r["p50_ms"] for r in s_rows) / len(s_rows)
    l_p50 = sum(r["p50_ms"] for r in l_rows) / len(l_rows)
    print(f"\np50 with {l_log}: {l_p50 / s_p50:.0%} of p50 with {s_log} (target: within 20%)")
    h.save("log_size", {"rows": rows, "args": vars(args)})
    print(f"\n({time.monotonic() - started:.0f} s; machine at the end: {h.conditions()})")


if __name__ == "__main__":
    main()
