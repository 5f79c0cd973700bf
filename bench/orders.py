"""Order throughput and latency of the referee against the physical and framework
ceilings (issue 9, item 1).

    .venv/bin/python bench/orders.py [--seconds 5] [--games 100] [--clients 1,8,32]
                                     [--workers 1,2,4] [--no-variants]

In one run, on one PostgreSQL (embedded PostgreSQL 18 in a temp folder with fsync
off, or DATABASE_URL):

1. pgbench, custom script: lock a game row (FOR UPDATE), insert one event, bump the
   version, on the real schema (`python -m service migrate` into a second database);
   100 game rows, 1/8/32 clients, prepared statements.
2. bench/bare_app.py under uvicorn: the same transaction behind a FastAPI +
   SQLAlchemy endpoint that receives the same signed order body.
3. The referee, `python -m service serve`: 100 active games (three seated players
   each), real signed `roll` orders (Ed25519 over RFC 8785 bytes, rules, hash chain,
   dice, events, outbox), 1/8/32 clients.
4. Variants at 32 clients, each on a fresh server loaded `--fresh-warmup` seconds
   before it is measured (a fresh process takes each seat's first order, and each
   game's, the long way): the asyncio loop and h11 parser instead of uvloop and
   httptools; Python's own GC thresholds; 2 and 4 worker processes (each on a socket
   of its own, service/serving.py).
5. SQL round trips per order, counted in-process with SQLAlchemy event hooks.

Every client is one keep-alive connection sending pre-signed orders back to back
(a closed loop); the load generator is this process, the servers are separate
processes. Each level runs `--seconds` after a 1-second warm-up and is capped at
`--max-requests` measured requests. Per-token rate limiting is off (RATE_LIMIT=0) on
the servers under test. Raw figures go to bench/results/orders.json.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import harness as h
import roundtrips

PGBENCH_SCRIPT = """\
\\set n random(1, {games})
BEGIN;
SELECT head_seq AS head FROM games WHERE id = 'g' || :n FOR UPDATE \\gset
INSERT INTO events (game_id, seq, turn, impulse, step, kind, actor, text, data, \
rules_version, hash, at) VALUES ('g' || :n, :head::bigint + 1, 1, 0, 'action', \
'dice.rolled', 'p', 'rolls 2d10', '{{"values": [3, 7]}}', 'bench', md5(:head::text), now());
UPDATE games SET version = version + 1, head_seq = :head::bigint + 1 WHERE id = 'g' || :n;
END;
"""

CEILING_DB = "bench_ceiling"
SERVER_ENV = {"RATE_LIMIT": "0"}


def prepare_ceiling(db: h.Database, games: int) -> str:
    """A second database with the real schema and `games` bare game rows g1..gN."""
    db.psql(f"DROP DATABASE IF EXISTS {CEILING_DB}")
    db.psql(f"CREATE DATABASE {CEILING_DB}")
    url = db.with_database(CEILING_DB)
    h.migrate(url)
    db.psql(
        "INSERT INTO games (id, name, status, version, scenario, options, dice, gm_token_hash,"
        " join_codes, state, head_seq, head_hash, rules_version)"
        f" SELECT 'g' || n, 'bench', 'active', 0, '{{}}', '{{}}', '{{}}', '', '{{}}', '{{}}',"
        f" 0, '', 'bench' FROM generate_series(1, {games}) AS n", database=CEILING_DB)
    return url


def pgbench(db: h.Database, clients: int, seconds: float, games: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="wif-pgbench-") as folder:
        script = Path(folder) / "order.sql"
        script.write_text(PGBENCH_SCRIPT.format(games=games))
        env = {**__import__("os").environ, **db.libpq, "PGDATABASE": CEILING_DB}
        done = subprocess.run(
            [db.bin("pgbench"), "-n", "-M", "prepared", "-c", str(clients),
             "-j", str(min(clients, 2)), "-T", str(max(1, round(seconds))), "-l",
             "-f", str(script)],
            cwd=folder, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"pgbench failed: {done.stderr}")
        latencies = []
        for log in Path(folder).glob("pgbench_log.*"):
            for line in log.read_text().splitlines():
                latencies.append(int(line.split()[2]) / 1e6)
    tps = float(re.search(r"tps = ([0-9.]+)", done.stdout).group(1))  # type: ignore[union-attr]
    result = h.Result("pgbench", clients, len(latencies), len(latencies) / tps if tps else 1,
                      latencies, {})
    row = result.row()
    row["per_s"] = round(tps, 1)
    return row


def ceiling_streams(seats: list[h.Seat], clients: int, per_client: int,
                    games: int) -> list[Any]:
    """The referee's signed bodies, sent to the bare endpoint's game rows g1..gN."""
    streams = h.order_streams(seats, clients, per_client)
    out = []
    for i, stream in enumerate(streams):
        requests = list(stream)
        for n, request in enumerate(requests):
            request.path = f"/v1/games/g{(i + n * clients) % games + 1}/orders"
        out.append(iter(requests))
    return out


def run_level(server: h.Server, db: h.Database, label: str, seats: list[h.Seat],
              clients: int, args: Any, bare_games: int = 0,
              warmup: float = 1.0) -> dict[str, Any]:
    per_client = (args.max_requests + int(warmup * 3000)) // clients + 200
    if bare_games:
        streams = ceiling_streams(seats, clients, per_client, bare_games)
    else:
        streams = h.order_streams(seats, clients, per_client)
    result = h.load(server.base, label, streams, seconds=args.seconds,
                    max_requests=args.max_requests, warmup=warmup,
                    cpu={"server": server.pids, "postgres": db.pids})
    row = result.row()
    cpu = "  ".join(f"{k} {v}" for k, v in row["cpu_ms"].items())
    print(f"  {label:<28} {clients:>3} clients: {row['per_s']:>7} /s  p50 {row['p50_ms']} ms"
          f"  p99 {row['p99_ms']} ms  errors {sum(result.errors.values())}"
          f"  CPU ms/request: {cpu}", flush=True)
    if result.errors:
        print(f"    errors: {list(result.errors.items())[:3]}")
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()),
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--seconds", type=float, default=5.0, help="measured seconds per level")
    parser.add_argument("--max-requests", type=int, default=6000, help="cap per level")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--fresh-warmup", type=float, default=3.0,
                        help="seconds of load, not measured, on each variant's fresh server "
                             "(a fresh process takes each seat's first order the long way)")
    parser.add_argument("--clients", default="1,8,32")
    parser.add_argument("--workers", default="1,2,4", help="worker counts at the top level")
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: "
                        "pgbench, bare, variants (asyncio/h11, Python's GC thresholds, worker "
                        "counts)")
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    levels = [int(c) for c in args.clients.split(",")]
    top = max(levels)
    started = time.monotonic()
    print(f"machine: {h.conditions()}", flush=True)
    rows: list[dict[str, Any]] = []
    with h.database() as db:
        h.migrate(db.url)
        ceiling_url = prepare_ceiling(db, args.games)

        print("pgbench (lock, insert event, bump version):", flush=True)
        for c in levels if "pgbench" not in skip else []:
            row = pgbench(db, c, args.seconds, args.games)
            print(f"  {'pgbench':<28} {c:>3} clients: {row['per_s']:>7} /s"
                  f"  p50 {row['p50_ms']} ms  p99 {row['p99_ms']} ms", flush=True)
            rows.append(row)

        with h.referee(db.url, **SERVER_ENV) as server:
            games = h.create_games(server.base, args.games)
            seats = [s for g in games for s in g.seats]
            print(f"referee: {len(games)} games ready ({time.monotonic() - started:.0f} s)")
            for c in levels:
                rows.append(run_level(server, db, "referee", seats, c, args))

        with h.Server([h.PYTHON, "-m", "uvicorn", "bench.bare_app:app", "--workers", "1",
                       "--log-level", "warning"], {"DATABASE_URL": ceiling_url},
                      name="bare app") as bare:
            for c in levels if "bare" not in skip else []:
                rows.append(run_level(bare, db, "bare FastAPI+SQLAlchemy", seats, c, args,
                                      bare_games=args.games))

        if "variants" not in skip:
            with h.Server([h.PYTHON, "-m", "service", "serve", "--workers", "1",
                           "--loop", "asyncio", "--http", "h11"],
                          {"DATABASE_URL": db.url, "LOG_LEVEL": "warning", **SERVER_ENV},
                          name="referee asyncio/h11") as server:
                h.warm_up(server.base, games)
                rows.append(run_level(server, db, "referee, asyncio+h11", seats, top, args,
                                      warmup=args.fresh_warmup))
            with h.referee(db.url, **SERVER_ENV, GC_THRESHOLD="700,10,10") as server:
                h.warm_up(server.base, games)
                rows.append(run_level(server, db, "referee, Python's GC thresholds", seats,
                                      top, args, warmup=args.fresh_warmup))
            for w in [int(x) for x in args.workers.split(",") if int(x) != 1]:
                with h.referee(db.url, workers=w, **SERVER_ENV) as server:
                    took = h.warm_up(server.base, games, workers=w)
                    print(f"  ({w} fresh workers warmed up on {len(games)} games in "
                          f"{took:.1f} s)", flush=True)
                    rows.append(run_level(server, db, f"referee, {w} workers", seats, top,
                                          args, warmup=args.fresh_warmup))

        counts = asyncio.run(roundtrips.measure(db.url, 30))

    print()
    print(summary(rows, levels, counts))
    h.save("orders", {"rows": rows, "roundtrips": counts, "args": vars(args)})
    print(f"\n({time.monotonic() - started:.0f} s; machine at the end: {h.conditions()})")


def summary(rows: list[dict[str, Any]], levels: list[int], counts: dict[str, Any]) -> str:
    by = {(r["label"], r["clients"]): r for r in rows}
    table = []
    for c in levels:
        ref = by.get(("referee", c))
        pg = by.get(("pgbench", c))
        bare = by.get(("bare FastAPI+SQLAlchemy", c))
        for row in (pg, bare, ref):
            if row is None:
                continue
            entry = dict(row)
            if row is ref and ref:
                entry["vs bare"] = f"{ref['per_s'] / bare['per_s']:.0%}" if bare else ""
                entry["vs pgbench"] = f"{ref['per_s'] / pg['per_s']:.0%}" if pg else ""
            table.append(entry)
    table += [r for r in rows if r["label"].startswith("referee,")]
    out = h.table(table, ["label", "clients", "per_s", "p50_ms", "p95_ms", "p99_ms",
                          "vs bare", "vs pgbench"])
    o = counts["order"]
    out += (f"\n\nSQL per order: {o['statements']} statements + {o['begin+commit']} "
            f"BEGIN/COMMIT + {o['pings']} pool pre-ping = {o['round_trips']} round trips")
    s = counts["state read"]
    out += (f"; per state read: {s['round_trips']} round trips "
            f"({counts['304 read']['round_trips']} for a 304)")
    return out


if __name__ == "__main__":
    main()
