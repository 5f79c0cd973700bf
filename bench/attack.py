"""One player cannot stall every game (issue 33): an attacker hammers the heaviest
endpoints of the largest map the server accepts while other clients read and order on
another game; their latencies with and without the attack.

    .venv/bin/python bench/attack.py [--hexes 20000] [--units 2000] [--seconds 60]
                                     [--readers 6] [--orderers 2] [--attackers 4]
                                     [--before REV] [--skip-after] [--off] [--no-turns]
                                     [--stacks]

One `python -m service serve` process (default settings: rate limits, one heavy worker)
on a throwaway embedded PostgreSQL (or DATABASE_URL). Two games:

- the victims' game, the built-in `dno-demo` at the Axis's first action step: readers
  (`GET /v1/games/{id}/state` and the summary, each with a seat's token) and orderers
  (signed `roll` orders of the Axis seats), readers waiting 50 ms between requests and
  orderers 200 ms, and a probe that asks `/healthz` every 50 ms (it answers at once
  unless the loop is held);
- the attacker's game, a generated scenario of `--hexes` hexes and `--units` units (the
  defaults are the largest a server accepts, `MAX_MAP_HEXES`, `MAX_UNITS`), created
  through the API with the scenario inline, at its Axis action step, played by the
  attacker's Axis seat: `--attackers` loops with no pause, one arming and disarming a
  standing order (each a new version of the game), the others asking in turn for the
  side's legal choices, a reorganization plan of the next unit, one unit's legal
  choices and the state view;
- a second game of the same size whose turns the attacker plays as fast as the server
  answers, with all three seats, each side's final reorganization armed: the order that
  ends a turn decides the three sides' default spends (11.18, the planner for every
  face-down unit: over a second on this map). `--no-turns` leaves it out.

Every client has an address of its own (127.0.0.x: the server tells addresses apart,
as it would tell the attacker's from the victims'). Two phases of `--seconds` each:
quiet (the victims alone), then under attack. Printed and written to
bench/results/attack.json: the victims' p50/p95/p99/max by request kind and overall,
the probe's, the attacker's answers by status, and the server's own figures from
/readyz (the longest hold of its loop). `--before REV` also runs the same against the
code at git revision REV (extracted to a temporary folder; same database schema), the
figures before issue 33; `--off` this code with the protections switched off by
settings (HEAVY_WORKERS=0: heavy requests and big games' decisions on the serving
process and its threads; RATE_LIMIT_ADDRESS=0). `--stacks`: this code's server runs with
`LOOP_STACKS` on and its output is kept in bench/results/attack-server.log (the code
behind each hold of its loop past 50 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import harness as h  # noqa: E402

from service.crypto import signing  # noqa: E402
from service.rules.scenario import generate_scenario, scenario_to_json  # noqa: E402

THINK = 0.05  # a reader's pause between requests
ORDER_THINK = 0.2  # an orderer's
RESULTS = ROOT / "bench" / "results"


@dataclass
class Figures:
    """Latencies by kind, and answers by status."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    statuses: Counter[str] = field(default_factory=Counter)

    def add(self, kind: str, seconds: float, status: int) -> None:
        self.latencies.setdefault(kind, []).append(seconds)
        self.statuses[f"{kind} {status}"] += 1

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        everything = [x for xs in self.latencies.values() for x in xs]
        for kind, xs in [*sorted(self.latencies.items()), ("all", everything)]:
            if not xs:
                continue
            ordered = sorted(xs)

            def pct(p: float, ordered: list[float] = ordered) -> float:
                return round(ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]
                             * 1000, 1)

            out[kind] = {"n": len(xs), "p50": pct(50), "p95": pct(95), "p99": pct(99),
                         "max": round(ordered[-1] * 1000, 1),
                         "mean": round(statistics.fmean(xs) * 1000, 1)}
        out["statuses"] = dict(sorted(self.statuses.items()))
        return out


def client(base: str, address: str, timeout: float = 120) -> httpx.AsyncClient:
    """A client whose connections come from `address` (any 127.x.y.z is this machine)."""
    return httpx.AsyncClient(base_url=base, timeout=timeout,
                             transport=httpx.AsyncHTTPTransport(local_address=address))


async def timed(c: httpx.AsyncClient, figures: Figures, kind: str, method: str, path: str,
                **kwargs: Any) -> httpx.Response | None:
    started = time.perf_counter()
    try:
        r = await c.request(method, path, **kwargs)
    except httpx.HTTPError:
        figures.add(kind, time.perf_counter() - started, 0)
        return None
    figures.add(kind, time.perf_counter() - started, r.status_code)
    return r


async def reader(base: str, n: int, game: h.GameSeats, stop: asyncio.Event,
                 figures: Figures) -> None:
    seats = [*game.seats, *game.others]
    seat = seats[n % len(seats)]
    async with client(base, f"127.0.0.{20 + n}") as c:
        while not stop.is_set():
            await timed(c, figures, "state", "GET", f"/v1/games/{game.id}/state",
                        headers=h.bearer(seat.token))
            await asyncio.sleep(THINK)
            await timed(c, figures, "summary", "GET", f"/v1/games/{game.id}",
                        headers=h.bearer(seat.token))
            await asyncio.sleep(THINK)


async def orderer(base: str, n: int, game: h.GameSeats, stop: asyncio.Event,
                  figures: Figures) -> None:
    seat = game.seats[n % len(game.seats)]
    async with client(base, f"127.0.0.{40 + n}") as c:
        while not stop.is_set():
            body = h.roll_order(seat)
            await timed(c, figures, "order", "POST", f"/v1/games/{game.id}/orders",
                        content=body, headers={**h.bearer(seat.token),
                                               "Content-Type": "application/json"})
            await asyncio.sleep(ORDER_THINK)


async def prober(base: str, stop: asyncio.Event, figures: Figures) -> None:
    async with client(base, "127.0.0.9") as c:
        while not stop.is_set():
            await timed(c, figures, "healthz", "GET", "/healthz")
            await asyncio.sleep(THINK)


async def attacker(base: str, n: int, game: h.GameSeats, units: list[str],
                   stop: asyncio.Event, figures: Figures) -> None:
    """Loop 0 bumps the version with standing orders; the others ask for heavy answers."""
    seat = game.seats[0]
    headers = h.bearer(seat.token)
    at = 0
    async with client(base, "127.0.0.66", timeout=300) as c:
        while not stop.is_set():
            at += 1
            if n == 0:
                body = h.signed_order(seat, "standing", {"step": "reaction",
                                                         "armed": at % 2 == 1})
                await timed(c, figures, "standing", "POST", f"/v1/games/{game.id}/orders",
                            content=body, headers={**headers,
                                                   "Content-Type": "application/json"})
                continue
            unit = units[(at * 7 + n * 131) % len(units)]
            kind = ("options", "plan", "unit", "state")[at % 4]
            path = {"options": f"/v1/games/{game.id}/options",
                    "plan": f"/v1/games/{game.id}/reorg/options?unit={unit}",
                    "unit": f"/v1/games/{game.id}/units/{unit}/options",
                    "state": f"/v1/games/{game.id}/state"}[kind]
            r = await timed(c, figures, kind, "GET", path, headers=headers)
            if r is not None and r.status_code in (429, 503):
                await asyncio.sleep(0.01)  # what a hammering client does: retry at once


async def turn_player(base: str, game: h.GameSeats, stop: asyncio.Event,
                      figures: Figures) -> None:
    """Plays a big game's turns with all three seats as fast as the server answers, each
    side's final reorganization armed (its default spends the cheapest way: the planner
    for every face-down unit, 11.18): every power passes its impulses, production as
    last turn, `done` elsewhere. The order that ends a turn decides the three spends."""
    seats = {s.side: s for s in (game.seats[0], *game.others)}
    gm = h.bearer(game.gm_token)
    async with client(base, "127.0.0.67", timeout=300) as c:

        async def order(seat: h.Seat, kind: str, body: dict[str, Any]) -> None:
            summary = (await c.get(f"/v1/games/{game.id}", headers=gm)).json()
            seat.seq += 1
            signed = {"game": game.id, "player": seat.player, "seq": seat.seq,
                      "prev": summary["head"]["hash"], **summary["position"], "kind": kind,
                      "body": body}
            envelope = {"order": signed, "signature": signing.sign(
                seat.key, signing.order_signing_bytes(signed))}
            started = time.perf_counter()
            r = await c.post(f"/v1/games/{game.id}/orders", json=envelope,
                             headers=h.bearer(seat.token))
            events = {e["kind"] for e in r.json().get("events", [])} if r.is_success else set()
            what = "turn-ending order" if "turn.ended" in events else "turn order"
            figures.add(what, time.perf_counter() - started, r.status_code)
            if r.status_code in (429, 503):
                await asyncio.sleep(float(r.headers.get("retry-after", "1")))

        for seat in seats.values():
            await order(seat, "standing", {"step": "final_reorganization", "armed": True})
        while not stop.is_set():
            summary = (await c.get(f"/v1/games/{game.id}", headers=gm)).json()
            if not summary["awaiting"]:
                return
            entry = summary["awaiting"][0]
            seat, step = seats[entry["side"]], entry["step"]
            if step == "initiative.reroll":
                await order(seat, step, {"demand": False})
            elif step == "initiative.choose":
                await order(seat, step, {"position": entry["choices"]["position"][0]})
            elif step == "declare":
                await order(seat, "declare", {"actions": {p: "pass" for p in entry["powers"]}})
            elif step == "production":
                state = (await c.get(f"/v1/games/{game.id}/state", headers=gm)).json()
                await order(seat, "production", {"powers": {
                    p: {"bp_spent": state["powers"][p]["bp_spent_last_turn"],
                        "bp_on_rps": state["powers"][p]["bp_on_rps"]}
                    for p in entry["powers"]}})
            else:
                await order(seat, "done", {})


async def victims_phase(base: str, victims: h.GameSeats, args: argparse.Namespace
                        ) -> dict[str, Any]:
    """The victims' readers and orderers and the probe, for `args.seconds`."""
    stop = asyncio.Event()
    mine, probe = Figures(), Figures()
    tasks = [asyncio.create_task(reader(base, i, victims, stop, mine))
             for i in range(args.readers)]
    tasks += [asyncio.create_task(orderer(base, i, victims, stop, mine))
              for i in range(args.orderers)]
    tasks.append(asyncio.create_task(prober(base, stop, probe)))
    await asyncio.sleep(args.seconds)
    stop.set()
    await asyncio.wait(tasks, timeout=600)
    for task in tasks:
        task.cancel()
    return {"victims": mine.summary(), "probe": probe.summary()}


async def attack_loops(base: str, big: h.GameSeats, units: list[str],
                       turns: h.GameSeats | None, args: argparse.Namespace) -> Figures:
    stop = asyncio.Event()
    theirs = Figures()
    tasks = [asyncio.create_task(attacker(base, i, big, units, stop, theirs))
             for i in range(args.attackers)]
    if turns is not None:
        tasks.append(asyncio.create_task(turn_player(base, turns, stop, theirs)))
    await asyncio.sleep(args.seconds)
    stop.set()
    await asyncio.wait(tasks, timeout=600)
    for task in tasks:
        task.cancel()
    return theirs


def _attack_process(base: str, big: h.GameSeats, units: list[str],
                    turns: h.GameSeats | None, args: argparse.Namespace,
                    out: Connection) -> None:
    out.send(asyncio.run(attack_loops(base, big, units, turns, args)).summary())
    out.close()


def phase(base: str, victims: h.GameSeats, big: h.GameSeats | None, units: list[str],
          args: argparse.Namespace, turns: h.GameSeats | None = None) -> dict[str, Any]:
    """The victims measured in this process; the attacker, when there is one, in a
    process of its own (forked: it shares the seats' keys), so that its reading of big
    answers does not delay the victims' clocks."""
    if big is None:
        return {**asyncio.run(victims_phase(base, victims, args)), "attacker": None}
    ours, theirs = multiprocessing.get_context("fork").Pipe()
    process = multiprocessing.get_context("fork").Process(
        target=_attack_process, args=(base, big, units, turns, args, theirs), daemon=True)
    process.start()
    theirs.close()
    found = asyncio.run(victims_phase(base, victims, args))
    attacked = ours.recv() if ours.poll(660) else None
    process.join(10)
    if process.is_alive():
        process.kill()
    return {**found, "attacker": attacked}


async def ready(base: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base, timeout=60) as c:
        r = await c.get("/readyz")
        found: dict[str, Any] = r.json()
        return found


async def setup(base: str, doc: dict[str, Any], turns: bool
                ) -> tuple[h.GameSeats, h.GameSeats, list[str], h.GameSeats | None]:
    async with httpx.AsyncClient(base_url=base, timeout=600) as c:
        victims = await h.new_game(c, "dno-demo")
        started = time.perf_counter()
        big = await h.new_game(c, doc)
        print(f"  the big game created and brought to its action step in "
              f"{time.perf_counter() - started:.1f} s")
        state = (await c.get(f"/v1/games/{big.id}/state",
                             headers=h.bearer(big.gm_token))).json()
        axis = {p["id"] for p in doc["powers"] if p["side"] == "axis"}
        units = sorted(u for u, x in state["units"].items() if x["power"] in axis)
        played = await h.new_game(c, doc) if turns else None
    return victims, big, units, played


@contextlib.contextmanager
def checkout(rev: str) -> Iterator[Path]:
    """The code at `rev`, extracted to a temporary folder."""
    folder = Path(tempfile.mkdtemp(prefix="wif-before-"))
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    try:
        yield folder
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)


# The protections of issue 33 switched off by settings (`--off`): heavy requests and big
# games' decisions on the serving process (its threads), no per-address rate limit.
OFF = {"HEAVY_WORKERS": "0", "RATE_LIMIT_ADDRESS": "0"}


def server(url: str, code: Path, env: dict[str, str], log_to: Path | None = None) -> h.Server:
    """`python -m service serve` of the code in `code` (its folder first on sys.path)."""
    return h.Server([h.PYTHON, "-m", "service", "serve"],
                    {"DATABASE_URL": url, "LOG_LEVEL": "warning", **env}, cwd=code,
                    name=f"referee ({code.name})", log_to=log_to)


def run(label: str, code: Path, doc: dict[str, Any], args: argparse.Namespace,
        env: dict[str, str] | None = None, log_to: Path | None = None) -> dict[str, Any]:
    print(f"{label}: {code} {env or ''}")
    with h.database() as db:
        h.migrate(db.url)
        with server(db.url, code, env or {}, log_to) as s:
            victims, big, units, played = asyncio.run(setup(s.base, doc, args.turns))
            out: dict[str, Any] = {}
            for name, attacking in (("quiet", False), ("attack", True)):
                before = sum(h.cpu_seconds(s.pids()).values())
                if label != "before":
                    asyncio.run(ready(s.base))  # reset the loop's recent longest hold
                out[name] = phase(s.base, victims, big if attacking else None, units, args,
                                  played if attacking else None)
                out[name]["server_cpu_s"] = round(
                    sum(h.cpu_seconds(s.pids()).values()) - before, 1)
                if label != "before":
                    out[name]["readyz"] = asyncio.run(ready(s.base))
                out[name]["load"] = os.getloadavg()
                show(name, out[name])
            return out


def show(name: str, found: dict[str, Any]) -> None:
    victims, probe = found["victims"], found["probe"]
    print(f"  {name}: victims {victims['all']['n']} requests, p50 {victims['all']['p50']} "
          f"p95 {victims['all']['p95']} p99 {victims['all']['p99']} max "
          f"{victims['all']['max']} ms; healthz p99 {probe['healthz']['p99']} max "
          f"{probe['healthz']['max']} ms; server CPU {found['server_cpu_s']} s")
    for kind in ("state", "summary", "order"):
        if kind in victims:
            print(f"    {kind:8s} p50 {victims[kind]['p50']:7.1f}  p99 {victims[kind]['p99']:7.1f}"
                  f"  max {victims[kind]['max']:7.1f} ms  (n {victims[kind]['n']})")
    if found.get("attacker"):
        print(f"    attacker answers: {found['attacker']['statuses']}")
        for kind in ("turn-ending order", "turn order"):
            if kind in found["attacker"]:
                x = found["attacker"][kind]
                print(f"    attacker's {kind}s: n {x['n']}, p50 {x['p50']} max {x['max']} ms")
    if found.get("readyz"):
        print(f"    server: loop {found['readyz'].get('loop')}; heavy "
              f"{found['readyz'].get('heavy', {}).get('served')}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hexes", type=int, default=20_000)
    parser.add_argument("--units", type=int, default=2_000)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--readers", type=int, default=6)
    parser.add_argument("--orderers", type=int, default=2)
    parser.add_argument("--attackers", type=int, default=4)
    parser.add_argument("--before", metavar="REV", help="also run the code at this git "
                        "revision (the figures before issue 33)")
    parser.add_argument("--skip-after", action="store_true",
                        help="only the --before revision")
    parser.add_argument("--off", action="store_true", help="also run this code with the "
                        "protections switched off by settings (HEAVY_WORKERS=0, "
                        "RATE_LIMIT_ADDRESS=0)")
    parser.add_argument("--no-turns", dest="turns", action="store_false",
                        help="leave out the attacker playing a second big game's turns")
    parser.add_argument("--stacks", action="store_true", help="this code's server with "
                        "LOOP_STACKS on, its log in results/attack-server.log")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    doc = scenario_to_json(generate_scenario(args.hexes, args.units))
    print(f"scenario: {args.hexes} hexes, {args.units} units, "
          f"{len(json.dumps(doc)) / 1e6:.1f} MB of JSON")
    results: dict[str, Any] = {"args": vars(args), "load_start": os.getloadavg()}
    if args.before:
        with checkout(args.before) as code:
            results["before"] = run("before", code, doc, args)
    if args.off:
        results["off"] = run("off", ROOT, doc, args, OFF)
    if not args.skip_after:
        RESULTS.mkdir(exist_ok=True)
        results["after"] = run("after", ROOT, doc, args,
                               {"LOOP_STACKS": "1"} if args.stacks else None,
                               RESULTS / "attack-server.log" if args.stacks else None)
    results["load_end"] = os.getloadavg()
    print(f"load average at end: {os.getloadavg()}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "attack.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
