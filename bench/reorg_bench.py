"""Benchmark of reorganization planning (issue 6): `reorg_options` for every
face-down unit of a generated game.

    .venv/bin/python bench/reorg_bench.py [--hexes 20000] [--units 2000] [--seed 0]

Times the planning of every face-down (or shattered) unit of a synthetic scenario
(`service.rules.synthetic`), sharing one position's board as the planning endpoint's
planner does, and once more with a fresh board per unit for the worst case of one
request per unit (sampled). Target: all of them under 2 s. Then what the default
final-reorganization standing order spends with per side (issue 30): the cheapest way
for every face-down unit and the check of that `reorg` order. Then the port repairs'
planning (`GET /reorg/repairs`, 11.18.4) with every port of the map damaged, per side on
a fresh board (one request each; on the event loop: target under 50 ms).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path as FilePath

sys.path.insert(0, str(FilePath(__file__).resolve().parent.parent))

from dataclasses import replace  # noqa: E402

from service.rules.errors import RulesError  # noqa: E402
from service.rules.options import resolve_options  # noqa: E402
from service.rules.reorg import Planner, reorg_options
from service.rules.reorg.order import check_order
from service.rules.scenario import generate_scenario
from service.rules.standing.spend import cheapest_items
from service.rules.state import HexEdit, Setup, State, initial_state, with_map_edits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hexes", type=int, default=20_000)
    parser.add_argument("--units", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sample", type=int, default=20, help="units planned one per board")
    args = parser.parse_args()

    scenario = generate_scenario(args.hexes, args.units, args.seed)
    setup = Setup(game_id="bench", scenario=scenario,
                  options=resolve_options(None, len(scenario.sides)), dice_mode="fair")
    state = initial_state(setup)
    down = sorted(uid for uid, u in state.units.items() if not u.face_up or u.shattered)
    print(f"scenario: {len(scenario.map.hexes)} hexes, {len(scenario.units)} units, "
          f"{len(down)} face down")

    started = time.perf_counter()
    planner = Planner(state)
    built = time.perf_counter()
    per_unit: list[float] = []
    legal = Counter[str]()
    none = 0
    for uid in down:
        t0 = time.perf_counter()
        plan = planner.plan(uid)
        per_unit.append((time.perf_counter() - t0) * 1000)
        legal.update(o.method for o in plan.options)
        none += not plan.options
    total = time.perf_counter() - started
    print(f"all {len(down)} face-down units, one board: {total:.2f} s "
          f"(board and planner {1000 * (built - started):.0f} ms; per unit median "
          f"{statistics.median(per_unit):.2f} ms, max {max(per_unit):.1f} ms)")
    print(f"  legal options by method: {dict(sorted(legal.items()))}; "
          f"{none} units with none")

    sample = down[:: max(1, len(down) // args.sample)][: args.sample]
    t0 = time.perf_counter()
    for uid in sample:
        reorg_options(state, uid)
    fresh = (time.perf_counter() - t0) * 1000 / len(sample)
    print(f"one request per unit (fresh board each): {fresh:.0f} ms per unit "
          f"(sample of {len(sample)})")
    verdict = "OK" if total < 2.0 else "over"
    print(f"target: every face-down unit under 2 s: {verdict}")
    final_spend(state)
    repairs(state)


def repairs(state: State) -> None:
    """Every port of the map damaged: each side's repairs planned on a fresh board."""
    sc = state.setup.scenario
    edits = {h.id: HexEdit(h.controller, True) for h in sc.map.hexes if h.port}
    damaged = replace(state, map_edits=edits, setup=with_map_edits(state.setup, edits))
    for side in [s.id for s in sc.sides]:
        started = time.perf_counter()
        found = Planner(damaged).repairs(side)
        took = 1000 * (time.perf_counter() - started)
        ways = sum(len(r.options) for r in found)
        print(f"port repairs of {side}: {len(found)} damaged ports, {ways} ways, planned in "
              f"{took:.0f} ms (fresh board)")


def final_spend(state: State) -> None:
    """What a final-reorganization standing order spends with (issue 30): the cheapest
    way for every face-down unit of each power of a side, every power given 200 RPs,
    and the check of the `reorg` order those items make."""
    rich = replace(state, powers={p: replace(ps, rps=200) for p, ps in state.powers.items()})
    sc = rich.setup.scenario
    for side in [s.id for s in sc.sides]:
        started = time.perf_counter()
        items = 0
        for power in rich.side_powers(side):
            chosen = cheapest_items(rich, power)
            items += len(chosen)
            if chosen:
                try:
                    check_order(rich, power, chosen)
                except RulesError:
                    pass  # the standing order leaves the refused item out and checks again
        print(f"final-reorganization default of {side}: {items} items chosen and checked "
              f"in {1000 * (time.perf_counter() - started):.0f} ms")


if __name__ == "__main__":
    main()
