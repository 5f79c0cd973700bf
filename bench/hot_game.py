"""One hot game: 32 clients ordering on the same game, row lock against advisory lock,
for a small state and a 2,000-unit state (issue 9, item 1).

    .venv/bin/python bench/hot_game.py [--seconds 5] [--clients 32] [--units 2000]
                                       [--hexes 20000] [--locks row,advisory]

Two games on one PostgreSQL (embedded in a temp folder, or DATABASE_URL): the built-in
`dno-demo` scenario (144 units) and a generated one (`generate_scenario(hexes, units)`,
created through the API with the scenario inline). For each lock strategy
(GAME_LOCK=row: `SELECT ... FOR UPDATE`; GAME_LOCK=advisory: `pg_advisory_xact_lock`
then a plain read) a fresh `python -m service serve` process takes, per game:
1 client (an order's latency is its cost) and then `--clients` clients on the same
game, all three players signing `roll` orders (seqs split between clients). Orders on
one game serialize, so the hot figure is one game's ceiling. The server's CPU time per
order says whether an order's cost grows with the state's size. Raw figures go to
bench/results/hot_game.json.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import harness as h

SERVER_ENV = {"RATE_LIMIT": "0"}


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()),
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--seconds", type=float, default=5.0, help="measured seconds per run")
    parser.add_argument("--max-requests", type=int, default=4000, help="cap per run")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--units", type=int, default=2000)
    parser.add_argument("--hexes", type=int, default=20000)
    parser.add_argument("--locks", default="row,advisory")
    args = parser.parse_args()
    started = time.monotonic()
    print(f"machine: {h.conditions()}", flush=True)
    from service.rules.scenario import generate_scenario, scenario_to_json

    big = scenario_to_json(generate_scenario(args.hexes, args.units, 0))
    size = len(json.dumps(big)) / 1e6
    rows: list[dict[str, Any]] = []
    with h.database() as db:
        h.migrate(db.url)
        games: dict[str, h.GameSeats] = {}
        for lock in args.locks.split(","):
            with h.referee(db.url, GAME_LOCK=lock, **SERVER_ENV) as server:
                if not games:
                    games["dno-demo (144 units)"] = h.create_games(server.base, 1)[0]
                    made = time.monotonic()
                    games[f"{args.units} units, {args.hexes} hexes"] = h.create_games(
                        server.base, 1, scenario=big, concurrency=1)[0]
                    print(f"created the big game ({size:.1f} MB scenario) in "
                          f"{time.monotonic() - made:.1f} s", flush=True)
                for name, game in games.items():
                    for clients in (1, args.clients):
                        per_client = args.max_requests // clients + 100
                        streams = h.order_streams(game.seats, clients, per_client)
                        result = h.load(server.base, f"{lock} lock, {name}", streams,
                                        seconds=args.seconds, max_requests=args.max_requests,
                                        cpu={"server": server.pids, "postgres": db.pids})
                        row = {"lock": lock, "game": name, **result.row()}
                        rows.append(row)
                        print(f"  {lock:<8} {name:<28} {clients:>3} clients: "
                              f"{row['per_s']:>6} /s  p50 {row['p50_ms']} ms  "
                              f"p99 {row['p99_ms']} ms  server CPU {row['cpu_ms']['server']}"
                              f" ms/order  errors {sum(result.errors.values())}", flush=True)
                        if result.errors:
                            print(f"    {list(result.errors.items())[:2]}")
    print()
    print(h.table([{**r, "server CPU ms/order": r["cpu_ms"].get("server"),
                    "postgres CPU ms/order": r["cpu_ms"].get("postgres")} for r in rows],
                  ["lock", "game", "clients", "per_s", "p50_ms", "p95_ms", "p99_ms",
                   "server CPU ms/order", "postgres CPU ms/order"]))
    h.save("hot_game", {"rows": rows, "args": vars(args)})
    print(f"\n({time.monotonic() - started:.0f} s; machine at the end: {h.conditions()})")


if __name__ == "__main__":
    main()
