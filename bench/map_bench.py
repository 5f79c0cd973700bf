"""Benchmark of the map engine on a large synthetic map (issue 5).

    .venv/bin/python bench/map_bench.py [--hexes 20000] [--units 2000] [--seed 0]

Times `Board.build` (cold: the map's grid computed; warm: the grid cached, as for
every state version of a running game), basic-path queries (median over random
queries: source to a hex a few steps away, and between any two hexes, which the
axial-distance bound answers at once; unlimited paths), railway paths, and the full
"which land units are in supply" report on a freshly built board. Targets: a basic
path under 1 ms, the full report under 200 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path as FilePath
from typing import Any, TypeVar

sys.path.insert(0, str(FilePath(__file__).resolve().parent.parent))

from service.rules.board import Board, Path, basic_path, in_communication, rail_path, supply_report
from service.rules.scenario import generate_scenario
from service.rules.state import UnitState

T = TypeVar("T")


def _ms(f: Callable[..., object], *args: Any, **kwargs: Any) -> float:
    return _timed(f, *args, **kwargs)[0]


def _timed(f: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[float, T]:
    started = time.perf_counter()
    result = f(*args, **kwargs)
    return (time.perf_counter() - started) * 1000, result


def _median(samples: list[float]) -> str:
    return f"median {statistics.median(samples):7.3f} ms   max {max(samples):7.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hexes", type=int, default=20_000)
    parser.add_argument("--units", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    started = time.perf_counter()
    scenario = generate_scenario(args.hexes, args.units, args.seed)
    print(f"scenario: {len(scenario.map.hexes)} hexes, {len(scenario.units)} units, "
          f"{len(scenario.map.seas)} sea areas (generated in "
          f"{(time.perf_counter() - started) * 1000:.0f} ms)")
    units = {
        u.id: UnitState(u.power, u.at, u.face_up, u.shattered,
                        u.ocs.mode if u.ocs else None, u.ocs.orientation if u.ocs else None)
        for u in scenario.units
    }
    limit = scenario.map.supply_path_length

    cold = _ms(Board.build, scenario, units)
    warm = [_ms(Board.build, scenario, units) for _ in range(20)]
    print(f"Board.build        cold {cold:7.1f} ms   warm (grid cached) {_median(warm)}")

    board = Board.build(scenario, units)
    ids = [h.id for h in scenario.map.hexes]
    powers = [p.id for p in scenario.powers]
    for p in powers:
        board.stance(p)  # per-power views, computed once per board

    def walk(start: str, steps: int) -> str:
        here = start
        for _ in range(steps):
            here = rng.choice(board.neighbours(here))
        return here

    near: list[float] = []
    outcome: Counter[str] = Counter()
    for _ in range(args.queries):
        start, power = rng.choice(ids), rng.choice(powers)
        goal = walk(start, rng.randint(1, 6))
        ms, result = _timed(basic_path, board, power, start, goal, limit)
        near.append(ms)
        outcome["path" if isinstance(result, Path) else "no path"] += 1
    print(f"basic path, near   {_median(near)}   ({dict(outcome)})")

    anywhere = []
    for _ in range(args.queries):
        start, goal, power = rng.choice(ids), rng.choice(ids), rng.choice(powers)
        anywhere.append(_ms(basic_path, board, power, start, goal, limit))
    print(f"basic path, any    {_median(anywhere)}")

    unlimited = []
    for _ in range(args.queries // 4):
        start, goal, power = rng.choice(ids), rng.choice(ids), rng.choice(powers)
        unlimited.append(_ms(basic_path, board, power, start, goal, limit, unlimited=True))
    print(f"basic, unlimited   {_median(unlimited)}")

    rails: dict[str, list[str]] = {}
    for h in scenario.map.hexes:
        if h.rail and h.controller is not None:
            rails.setdefault(scenario.controller_of(h.controller), []).append(h.id)
    railway = []
    outcome = Counter()
    for _ in range(args.queries // 4):
        power = rng.choice(sorted(rails))
        start, goal = rng.choice(rails[power]), rng.choice(rails[power])
        ms, result = _timed(rail_path, board, power, start, goal)
        railway.append(ms)
        outcome["path" if isinstance(result, Path) else "no path"] += 1
    print(f"rail path, own     {_median(railway)}   ({dict(outcome)})")

    primaries = [(h.id, scenario.controller_of(h.supply_power or "")) for h in scenario.map.hexes
                 if h.supply == "primary" and h.supply_power]
    communication = [_ms(in_communication, board, p, h) for h, p in primaries]
    print(f"in communication   {_median(communication)}   ({len(primaries)} primary sources)")

    fresh = [Board.build(scenario, units) for _ in range(5)]
    reports = [_ms(supply_report, b, None, limit) for b in fresh]
    both = [_ms(lambda: supply_report(Board.build(scenario, units), None, limit))
            for _ in range(5)]
    report = supply_report(board, None, limit)
    methods = Counter(s.method or "out of supply" for s in report.values())
    print(f"supply report      {_median(reports)}   build + report {_median(both)}")
    print(f"                   {len(report)} land units: {dict(methods)}")


if __name__ == "__main__":
    main()
