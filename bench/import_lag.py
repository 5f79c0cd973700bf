"""How long an import holds the event loop (issue 28): a loop-lag probe beside
`POST /v1/games/import` of a big game's export.

    .venv/bin/python bench/import_lag.py [--hexes 20000] [--units 2000] [--orders 300]

A game of the generated scenario (`generate_scenario(hexes, units)`) is played on a
`python -m service serve` process: its three seats joined and `--orders` signed `roll`
orders by the Axis (each decided again, with its dice, by the import's verification),
then exported as the GM. The export must fit the request body limit (MAX_BODY_BYTES,
8 MiB): the largest import the server accepts.

Then, in this process, the verification alone in a worker thread (as the import runs
it), and the whole import, on an app of its own on another database of the same server
(its lifespan, its event loop, OPERATOR_KEY set), each while a probe task on the same loop
sleeps 5 ms again and again and records how late it wakes: the loop's lag, which every
other request on the process would wait. Also timed: the verification (`service.verify`)
in this process's main thread. Target: no lag over 50 ms. Raw figures go to
bench/results/import_lag.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

import harness as h
import httpx

OPERATOR = "bench-operator-key-0123456789"
TICK = 0.005


async def _play(base: str, scenario: dict[str, Any], orders: int) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base, timeout=300) as client:
        game = await h.new_game(client, scenario)
        seat = game.seats[0]
        for _ in range(orders):
            r = await client.post(f"/v1/games/{game.id}/orders", content=h.roll_order(seat),
                                  headers={**h.bearer(seat.token),
                                           "content-type": "application/json"})
            r.raise_for_status()
        r = await client.get(f"/v1/games/{game.id}/export", headers=h.bearer(game.gm_token))
        r.raise_for_status()
        export: dict[str, Any] = r.json()
        return export


class Probe:
    """Sleeps `TICK` again and again on the loop; `lags` are how late each wake-up was."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self.running = True

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while self.running:
            asked = loop.time()
            await asyncio.sleep(TICK)
            self.lags.append((loop.time() - asked - TICK) * 1000)

    def figures(self) -> dict[str, float]:
        lags = sorted(self.lags)
        return {"wake_ups": len(lags), "max_ms": round(lags[-1], 1),
                "p99_ms": round(lags[int(0.99 * (len(lags) - 1))], 1),
                "median_ms": round(statistics.median(lags), 2),
                "over_50_ms": sum(1 for x in lags if x > 50)}


async def _probed(work: Any) -> dict[str, float]:
    """The loop's lag while `work()` (a coroutine) runs."""
    probe = Probe()
    task = asyncio.create_task(probe.run())
    started = time.perf_counter()
    await work()
    took = time.perf_counter() - started
    probe.running = False
    await task
    return {"s": round(took, 2), **probe.figures()}


async def _import(url: str, body: bytes) -> dict[str, Any]:
    from service.app import create_app
    from service.referee import imports
    from service.settings import Settings

    export = json.loads(body)

    app = create_app(Settings(database_url=url, operator_key=OPERATOR, rate_limit=0),
                     database_url=url)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench",
                                     timeout=600) as client:
            idle = Probe()
            task = asyncio.create_task(idle.run())
            await asyncio.sleep(2)
            idle.running = False
            await task
            thread = await _probed(lambda: asyncio.to_thread(imports.verify, export))
            probe = Probe()
            task = asyncio.create_task(probe.run())
            started = time.perf_counter()
            r = await client.post("/v1/games/import", content=body,
                                  headers={**h.bearer(OPERATOR),
                                           "content-type": "application/json"})
            took = time.perf_counter() - started
            probe.running = False
            await task
    if r.status_code != 201:
        raise SystemExit(f"the import was refused: {r.status_code} {r.text[:2000]}")
    return {"import_s": round(took, 2), "idle": idle.figures(), "during": probe.figures(),
            "verify_in_thread": thread}


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()),
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--hexes", type=int, default=20_000)
    parser.add_argument("--units", type=int, default=2_000)
    parser.add_argument("--orders", type=int, default=300)
    args = parser.parse_args()
    print(f"machine: {h.conditions()}", flush=True)
    from service.rules.scenario import generate_scenario, scenario_to_json
    from service.verify import verify_export

    scenario = scenario_to_json(generate_scenario(args.hexes, args.units, 0))
    with h.database() as db:
        h.migrate(db.url)
        with h.referee(db.url, RATE_LIMIT="0") as server:
            made = time.monotonic()
            export = asyncio.run(_play(server.base, scenario, args.orders))
            print(f"played {args.orders} orders and exported in "
                  f"{time.monotonic() - made:.1f} s", flush=True)
        body = json.dumps(export, separators=(",", ":")).encode()
        size = {"export_mb": round(len(body) / 2**20, 2), "events": len(export["events"]),
                "commands": len(export["commands"])}
        print(f"export: {size}", flush=True)
        started = time.perf_counter()
        report = verify_export(export)
        alone = round(time.perf_counter() - started, 2)
        assert report.ok and not report.unchecked, report.text()
        print(f"verification alone, main thread: {alone} s", flush=True)
        db.psql("CREATE DATABASE imported")
        target = db.with_database("imported")
        h.migrate(target)
        found = asyncio.run(_import(target, body))
    print(f"import: {found['import_s']} s; the loop's lag while it ran: {found['during']}")
    print(f"the verification alone in a worker thread: {found['verify_in_thread']}")
    print(f"idle loop, for comparison: {found['idle']}")
    verdict = "OK" if found["during"]["over_50_ms"] == 0 else "over"
    print(f"target: no lag over 50 ms: {verdict} (max {found['during']['max_ms']} ms)")
    h.save("import_lag", {"args": vars(args), **size, "verify_alone_s": alone, **found,
                          "machine": h.conditions()})


if __name__ == "__main__":
    main()
