"""State reads of a 2,000-unit game: warm reads, the first read after an order, and
`304 Not Modified` (issue 9, item 1).

    .venv/bin/python bench/reads.py [--seconds 5] [--units 2000] [--hexes 20000]

A generated game (`generate_scenario(hexes, units)`, created through the API with the
scenario inline) and the built-in `dno-demo` (144 units) for scale, one
`python -m service serve` process, on the embedded PostgreSQL (or DATABASE_URL):

- warm: GET /state by the three players, 1 and 8 clients, while the game does not
  change (the rendered view is cached per game version and viewer);
- after an order: one client alternating a signed `roll` order and a state read, so
  every read is of a new version (the view and the supply report are updated from the
  previous version's: a roll changes nothing on the board);
- after a move (the generated game): the same with `report` orders, each moving one
  Axis unit along a path the unit's legal choices list (`GET /options`), to a hex no
  other move ends in: every read is of a version in which a unit moved, so the supply
  searches are patched around it;
- 304: GET /state with `If-None-Match` set to the current ETag, 8 clients.

Target (issue 9): state read p99 under 50 ms for the 2,000-unit game. Raw figures go
to bench/results/reads.json.
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Iterator
from typing import Any

import harness as h
import httpx

SERVER_ENV = {"RATE_LIMIT": "0"}


def reads(seats: list[h.Seat], clients: int, etags: dict[str, str] | None = None
          ) -> list[Iterator[h.Request]]:
    def stream(i: int) -> Iterator[h.Request]:
        seat = seats[i % len(seats)]
        headers = h.bearer(seat.token)
        expect: tuple[int, ...] = (200,)
        if etags is not None:
            headers = {**headers, "If-None-Match": etags[seat.player]}
            expect = (304,)
        request = h.Request("GET", f"/v1/games/{seat.game}/state", headers, expect=expect)
        return itertools.repeat(request)

    return [stream(i) for i in range(clients)]


def order_then_read(seats: list[h.Seat], count: int) -> Iterator[h.Request]:
    for n in range(count):
        seat = seats[n % len(seats)]
        yield h.Request("POST", f"/v1/games/{seat.game}/orders", h.bearer(seat.token),
                        h.roll_order(seat), tag="order")
        yield h.Request("GET", f"/v1/games/{seat.game}/state", h.bearer(seat.token),
                        tag="read after order")


def moves(client: httpx.Client, seat: h.Seat, count: int) -> list[dict[str, Any]]:
    """Up to `count` one-unit moves of the seat's side, each to a different hex, from
    the legal choices of the current version."""
    r = client.get(f"/v1/games/{seat.game}/options", headers=h.bearer(seat.token))
    r.raise_for_status()
    units = r.json()["units"]
    taken: set[str] = {u["at"] for u in units.values() if "at" in u}
    out = []
    for uid, choices in sorted(units.items()):
        hexes = (choices.get("moves") or {}).get("hexes") or []
        far = [x for x in hexes if x["to"] not in taken]
        if not far:
            continue
        pick = far[-1]  # the farthest listed: a real change on the map
        taken.add(pick["to"])
        out.append({"unit": uid, "to": pick["to"], "path": pick["path"]})
        if len(out) == count:
            break
    return out


def move_then_read(seat: h.Seat, planned: list[dict[str, Any]]) -> Iterator[h.Request]:
    for move in planned:
        yield h.Request("POST", f"/v1/games/{seat.game}/orders", h.bearer(seat.token),
                        h.signed_order(seat, "report", {"moves": [move]}), tag="order")
        yield h.Request("GET", f"/v1/games/{seat.game}/state", h.bearer(seat.token),
                        tag="read after move")


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()),
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--seconds", type=float, default=5.0, help="measured seconds per run")
    parser.add_argument("--max-requests", type=int, default=20000, help="cap per run")
    parser.add_argument("--units", type=int, default=2000)
    parser.add_argument("--hexes", type=int, default=20000)
    args = parser.parse_args()
    started = time.monotonic()
    print(f"machine: {h.conditions()}", flush=True)
    from service.rules.scenario import generate_scenario, scenario_to_json

    big = scenario_to_json(generate_scenario(args.hexes, args.units, 0))
    rows: list[dict[str, Any]] = []

    def record(game: str, kind: str, result: h.Result, samples: list[float] | None = None,
               per_s: float | None = None) -> None:
        stats = h.percentiles(samples if samples is not None else result.latencies)
        row = {"game": game, "read": kind, "clients": result.clients,
               "per_s": round(per_s if per_s is not None else result.rate, 1), **stats,
               "server CPU ms": round(result.cpu.get("server", 0), 2)}
        rows.append(row)
        print(f"  {game:<26} {kind:<22} {result.clients:>2} clients: {row['per_s']:>7} /s"
              f"  p50 {row['p50_ms']} ms  p99 {row['p99_ms']} ms"
              f"  errors {sum(result.errors.values())}", flush=True)
        if result.errors:
            print(f"    {list(result.errors.items())[:2]}")

    with h.database() as db:
        h.migrate(db.url)
        with h.referee(db.url, **SERVER_ENV) as server:
            games = {"dno-demo (144 units)": h.create_games(server.base, 1)[0],
                     f"{args.units} units, {args.hexes} hexes":
                     h.create_games(server.base, 1, scenario=big, concurrency=1)[0]}
            print(f"games ready ({time.monotonic() - started:.0f} s)", flush=True)
            cpu = {"server": server.pids}
            for name, game in games.items():
                seats = game.seats
                for clients in (1, 8):
                    result = h.load(server.base, "warm", reads(seats, clients),
                                    seconds=args.seconds, max_requests=args.max_requests,
                                    cpu=cpu)
                    record(name, "warm", result)
                result = h.load(server.base, "after order", [order_then_read(seats, 2000)],
                                seconds=args.seconds * 2, max_requests=args.max_requests,
                                cpu=cpu)
                pairs = len(result.tagged.get("read after order", []))
                record(name, "read after an order", result,
                       result.tagged.get("read after order", []),
                       per_s=pairs / result.seconds)
                record(name, "(the order itself)", result, result.tagged.get("order", []),
                       per_s=pairs / result.seconds)
                if name != "dno-demo (144 units)":
                    with httpx.Client(base_url=server.base, timeout=120) as client:
                        planned = moves(client, seats[0], 2000)
                    result = h.load(server.base, "after move",
                                    [move_then_read(seats[0], planned)],
                                    seconds=args.seconds * 2, max_requests=args.max_requests,
                                    cpu=cpu, warmup=0.0)
                    pairs = len(result.tagged.get("read after move", []))
                    record(name, "read after a move", result,
                           result.tagged.get("read after move", []),
                           per_s=pairs / result.seconds)
                    record(name, "(the move itself)", result, result.tagged.get("order", []),
                           per_s=pairs / result.seconds)
                with httpx.Client(base_url=server.base, timeout=60) as client:
                    etags = {s.player: client.get(f"/v1/games/{s.game}/state",
                                                  headers=h.bearer(s.token)).headers["etag"]
                             for s in seats}
                result = h.load(server.base, "304", reads(seats, 8, etags),
                                seconds=args.seconds, max_requests=args.max_requests, cpu=cpu)
                record(name, "304 Not Modified", result)
    print()
    print(h.table(rows, ["game", "read", "clients", "per_s", "p50_ms", "p95_ms", "p99_ms",
                         "server CPU ms"]))
    print("\n(server CPU ms is per request of the run; the after-order run mixes orders "
          "and reads)")
    h.save("reads", {"rows": rows, "args": vars(args)})
    print(f"\n({time.monotonic() - started:.0f} s; machine at the end: {h.conditions()})")


if __name__ == "__main__":
    main()
