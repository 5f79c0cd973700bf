"""Memory under long play (issue 33): many games played through the API with legal
orders, one of them on a generated big map, while the server's memory is sampled; with
the per-game caches bounded (`CACHE_MB`, `CACHE_IDLE_SECONDS`) it stays flat after
warm-up.

    .venv/bin/python bench/soak.py [--minutes 20] [--games 6] [--big-hexes 20000]
                                   [--big-units 2000] [--cache-mb 64] [--idle 120]
                                   [--turns 2] [--every 15] [--stacks]

One `python -m service serve` process (and its heavy worker) on a throwaway embedded
PostgreSQL (or DATABASE_URL), rate limits off. `--games` games of the built-in
`dno-demo` are played at once, each by its three players, with the policy of
`python -m service simulate --handoffs` (service/handoffs.py), through the API: the
initiative not rerolled, the winner first; every power declares a land action; in its
action step the phasing side moves one unit to a hex its legal choices list
(`GET .../options`, a unit and a hex drawn at random), then `done`; production as last
turn; `done` everywhere else. Each player reads the state before it orders. A game
ends after `--turns` turns (the GM ends it) and a new one begins, so games keep coming
and going as on a server in use. Beside them, one game on a generated map of
`--big-hexes` hexes and `--big-units` units is played the same way, and its players
also ask for reorganization plans.

Every `--every` seconds: the resident memory (VmRSS) of the serving process and of its
workers, and /readyz's figures of the caches. Printed, and written to
bench/results/soak.json, with the mean resident memory per quarter of the run and the
slope of the second half (MB per minute). Beside the memory, the loop's holds: the
longest since the last sample, those past 50 ms, and the cyclic collector's longest
collection and its generation; and where the serving process's memory is (Python's
blocks, the C heap in use and free). With `--stacks` the server runs with `LOOP_STACKS` on
and its output is kept in bench/results/soak-server.log: the stack of the code behind
each hold past 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import harness as h  # noqa: E402

from service.crypto import identity, signing  # noqa: E402
from service.rules.scenario import generate_scenario, scenario_to_json  # noqa: E402

RESULTS = ROOT / "bench" / "results"


@dataclass
class Player:
    side: str
    id: str
    token: str
    key: Any
    seq: int = 0


@dataclass
class Played:
    orders: int = 0
    games: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    reads: int = 0
    heavy: int = 0


async def _join(c: httpx.AsyncClient, game: str, side: str, code: str) -> Player:
    key = signing.new_private_key()
    public = signing.public_key_text(key)
    signed = identity.join_object(game, side, side, public, None)
    r = await c.post(f"/v1/games/{game}/seats/{side}", json={
        "join_code": code, "name": side, "public_key": public, "powers": None,
        "signature": signing.sign(key, identity.signing_bytes(signed))})
    r.raise_for_status()
    return Player(side, r.json()["player_id"], r.json()["token"], key)


async def _order(c: httpx.AsyncClient, game: str, p: Player, summary: dict[str, Any],
                 kind: str, body: dict[str, Any], played: Played) -> None:
    p.seq += 1
    order = {"game": game, "player": p.id, "seq": p.seq, "prev": summary["head"]["hash"],
             **summary["position"], "kind": kind, "body": body}
    r = await c.post(f"/v1/games/{game}/orders", headers=h.bearer(p.token), json={
        "order": order, "signature": signing.sign(p.key, signing.order_signing_bytes(order))})
    played.orders += 1
    if r.status_code != 201:
        code = r.json().get("code", str(r.status_code))
        played.refused[code] = played.refused.get(code, 0) + 1


async def _a_move(c: httpx.AsyncClient, game: str, p: Player, rng: random.Random,
                  played: Played) -> list[dict[str, Any]]:
    """One legal move of the player's side, drawn at random from a page of its choices."""
    r = await c.get(f"/v1/games/{game}/options", headers=h.bearer(p.token),
                    params={"limit": 100})
    played.heavy += 1
    if r.status_code != 200:
        return []
    movable = [(uid, x["moves"]["hexes"]) for uid, x in r.json()["units"].items()
               if x["moves"]["may"] and x["moves"]["hexes"]]
    if not movable:
        return []
    uid, hexes = movable[rng.randrange(len(movable))]
    to = hexes[rng.randrange(len(hexes))]
    return [{"unit": uid, "to": to["to"], "path": list(to["path"])}]


async def play_game(base: str, scenario: Any, turns: int, rng: random.Random,
                    played: Played, stop: asyncio.Event, plans: bool = False) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=300) as c:
        r = await c.post("/v1/games", json={"name": "soak", "scenario": scenario})
        r.raise_for_status()
        game, gm = r.json()["id"], h.bearer(r.json()["gm_token"])
        players = {s: await _join(c, game, s, code) for s, code in r.json()["join_codes"].items()}
        moved: set[tuple[int, int]] = set()
        while not stop.is_set():
            summary = (await c.get(f"/v1/games/{game}", headers=gm)).json()
            if summary["status"] == "finished":
                break
            if summary["position"]["turn"] > turns:
                await c.post(f"/v1/games/{game}/admin/end", headers=gm,
                             json={"reason": "the soak's turns are played"})
                break
            entry = summary["awaiting"][0]
            p = players[entry["side"]]
            state = (await c.get(f"/v1/games/{game}/state", headers=h.bearer(p.token))).json()
            played.reads += 1
            step, position = entry["step"], summary["position"]
            if step == "initiative.reroll":
                await _order(c, game, p, summary, step, {"demand": False}, played)
            elif step == "initiative.choose":
                await _order(c, game, p, summary, step,
                             {"position": entry["choices"]["position"][0]}, played)
            elif step == "declare":
                await _order(c, game, p, summary, "declare",
                             {"actions": {pw: "land" for pw in entry["powers"]}}, played)
            elif step == "action" and (position["turn"], position["impulse"]) not in moved:
                moved.add((position["turn"], position["impulse"]))
                moves = await _a_move(c, game, p, rng, played)
                if plans:
                    mine = [u for u, x in state["units"].items() if state["powers"].get(
                        x["power"], {}).get("side") == p.side][:3]
                    for uid in mine:
                        await c.get(f"/v1/games/{game}/reorg/options",
                                    params={"unit": uid}, headers=h.bearer(p.token))
                        played.heavy += 1
                if moves:
                    await _order(c, game, p, summary, "report", {"moves": moves}, played)
            elif step == "production":
                figures = {pw: {"bp_spent": state["powers"][pw]["bp_spent_last_turn"],
                                "bp_on_rps": state["powers"][pw]["bp_on_rps"]}
                           for pw in entry["powers"]}
                await _order(c, game, p, summary, "production", {"powers": figures}, played)
            else:
                await _order(c, game, p, summary, "done", {}, played)
        played.games += 1


async def player_loop(base: str, scenario: Any, turns: int, seed: int, played: Played,
                      stop: asyncio.Event, plans: bool = False) -> None:
    rng = random.Random(seed)
    while not stop.is_set():
        try:
            await play_game(base, scenario, turns, rng, played, stop, plans)
        except (httpx.HTTPError, KeyError, IndexError) as error:
            name = f"{type(error).__name__}: {error}"[:80]
            if name not in played.refused:
                traceback.print_exc()
            played.refused[name] = played.refused.get(name, 0) + 1
            await asyncio.sleep(1)


def rss_mb(pids: list[int]) -> dict[int, float]:
    out = {}
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    out[pid] = int(line.split()[1]) / 1024
        except OSError:
            continue
    return out


async def sampler(server: h.Server, every: float, stop: asyncio.Event, played: Played,
                  samples: list[dict[str, Any]]) -> None:
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=server.base, timeout=60) as c:
        while not stop.is_set():
            ready = (await c.get("/readyz")).json()
            rss = rss_mb(server.pids())
            sample = {"minute": round((time.monotonic() - started) / 60, 2),
                      "rss_mb": round(sum(rss.values()), 1),
                      "processes": {str(k): round(v, 1) for k, v in rss.items()},
                      "caches_mb": round(ready["memory"]["bytes"] / 2**20, 1),
                      "worker_caches_mb": [round(m.get("bytes", 0) / 2**20, 1)
                                           for m in ready["heavy"]["memory"]],
                      "games_cached": ready["memory"]["games"],
                      "evicted": ready["memory"]["evicted_games"],
                      "orders": played.orders, "games_played": played.games,
                      "loop_longest_ms": ready["loop"]["recent_longest_ms"],
                      "loop_over_50ms": ready["loop"]["over_50ms"],
                      "loop_computing_over_50ms": ready["loop"]["computing"]["over_50ms"],
                      "collector": ready["loop"]["collector"],
                      "python_blocks": ready["process"]["python_blocks"],
                      "heap_in_use_mb": round(ready["process"]["heap_in_use_bytes"] / 2**20, 1),
                      "heap_free_mb": round(ready["process"]["heap_free_bytes"] / 2**20, 1)}
            samples.append(sample)
            print(f"  {sample['minute']:6.2f} min  RSS {sample['rss_mb']:7.1f} MB "
                  f"{sample['processes']}  caches {sample['caches_mb']} MB "
                  f"(workers {sample['worker_caches_mb']})  games cached "
                  f"{sample['games_cached']}, forgotten {sample['evicted']}; orders "
                  f"{played.orders}, games played {played.games}; loop "
                  f"{sample['loop_longest_ms']} ms (past 50 ms: {sample['loop_over_50ms']}, "
                  f"computing {sample['loop_computing_over_50ms']} so far); longest "
                  f"collection {sample['collector']['longest_ms']} ms (CPU "
                  f"{sample['collector']['longest_cpu_ms']} ms, generation "
                  f"{sample['collector']['generation']}); Python blocks "
                  f"{sample['python_blocks']}, C heap in use {sample['heap_in_use_mb']} MB, "
                  f"free {sample['heap_free_mb']} MB", flush=True)
            try:
                await asyncio.wait_for(stop.wait(), every)
            except TimeoutError:
                pass


async def soak(server: h.Server, args: argparse.Namespace) -> dict[str, Any]:
    stop = asyncio.Event()
    played = Played()
    samples: list[dict[str, Any]] = []
    big = scenario_to_json(generate_scenario(args.big_hexes, args.big_units))
    tasks = [asyncio.create_task(player_loop(server.base, "dno-demo", args.turns, i, played,
                                             stop)) for i in range(args.games)]
    if args.big_hexes:
        tasks.append(asyncio.create_task(player_loop(server.base, big, args.turns, 999,
                                                     played, stop, plans=True)))
    tasks.append(asyncio.create_task(sampler(server, args.every, stop, played, samples)))
    await asyncio.sleep(args.minutes * 60)
    stop.set()
    await asyncio.wait(tasks, timeout=300)
    for task in tasks:
        task.cancel()
    return {"samples": samples, "orders": played.orders, "games": played.games,
            "reads": played.reads, "heavy": played.heavy, "refused": played.refused}


def quarters(samples: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(samples)
    means = []
    for q in range(4):
        part = samples[q * n // 4:(q + 1) * n // 4] or samples[min(q * n // 4, n - 1):][:1]
        means.append(round(sum(s["rss_mb"] for s in part) / len(part), 1))
    half = samples[n // 2:]
    xs = [s["minute"] for s in half]
    ys = [s["rss_mb"] for s in half]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / max(
        1e-9, sum((x - mx) ** 2 for x in xs))
    last = samples[-1]
    return {"rss_mean_by_quarter_mb": means, "second_half_slope_mb_per_min": round(slope, 2),
            "rss_first_mb": samples[0]["rss_mb"], "rss_last_mb": last["rss_mb"],
            "rss_max_mb": max(s["rss_mb"] for s in samples),
            "second_half": {k: (half[0][k], last[k]) for k in (
                "python_blocks", "heap_in_use_mb", "heap_free_mb")},
            "loop_over_50ms": last["loop_over_50ms"],
            "loop_computing_over_50ms": last["loop_computing_over_50ms"],
            "loop_longest_ms": max(s["loop_longest_ms"] for s in samples),
            "collector": last["collector"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=20)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--big-hexes", type=int, default=20_000)
    parser.add_argument("--big-units", type=int, default=2_000)
    parser.add_argument("--cache-mb", type=int, default=64)
    parser.add_argument("--idle", type=float, default=120)
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--every", type=float, default=15)
    parser.add_argument("--stacks", action="store_true",
                        help="LOOP_STACKS on, the server's log in results/soak-server.log")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    with h.database() as db:
        h.migrate(db.url)
        RESULTS.mkdir(exist_ok=True)
        log_to = RESULTS / "soak-server.log" if args.stacks else None
        with h.referee(db.url, log_to=log_to, RATE_LIMIT="0", CACHE_MB=str(args.cache_mb),
                       CACHE_IDLE_SECONDS=str(args.idle), SWEEP_INTERVAL="1",
                       LOOP_STACKS="1" if args.stacks else "0") as server:
            found = asyncio.run(soak(server, args))
    found["summary"] = quarters(found["samples"])
    found["args"] = vars(args)
    found["load_end"] = os.getloadavg()
    print(json.dumps(found["summary"]))
    print(f"orders {found['orders']}, games {found['games']}, reads {found['reads']}, "
          f"heavy {found['heavy']}, refused {found['refused']}")
    print(f"load average at end: {os.getloadavg()}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "soak.json").write_text(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
