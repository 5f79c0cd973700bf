"""Combats the referee decides by the scenario's tables, on the largest map (issue 29).

    .venv/bin/python bench/combat_bench.py [--units 2000] [--hexes 20000] [--rounds 20]

A generated game (`generate_scenario(hexes, units)`, seed 0) with dno-demo's tables of our
own making, in the Axis's first combat step (every Axis power declared land). For up to
`--rounds` Axis units next to an enemy hex, each on the same state:

- `combat_preview`: the dry run of `GET /combat/odds` (the order's checks, the odds);
- `decide` of the `report` with that one combat: checks, odds, the rolls, the cell, the
  results applied, and the question a result asks, if any;
- `decide` of the `combat.choose` that answers it with its default (where one is asked).

Target: each under 50 ms (no request holds the event loop longer). Raw figures go to
bench/results/combat.json.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from options_bench import AT, _act, _Dice, axis_action_step  # noqa: E402

from service.rules import Actor, Command, State, combat_preview, decide  # noqa: E402
from service.rules.scenario import generate_scenario, load_builtin_scenario  # noqa: E402


def _to_combat(state: State, dice: _Dice) -> State:
    for _ in range(20):
        if state.step == "combat":
            return state
        waiting = [s for s in state.turn.step_sides if s not in state.turn.sides_done]
        state = _act(state, dice, "done", {}, waiting[0])
    raise AssertionError(f"no combat step: {state.step}")


def _fronts(state: State, limit: int) -> tuple[State, list[dict[str, Any]]]:
    """The generated map keeps the sides apart: up to `limit` Axis combat units are set
    down next to an enemy land unit, each attack a fight of one of them."""
    sc = state.setup.scenario
    axis = [uid for uid, u in sorted(state.units.items())
            if sc.side_of_power(u.power) == "axis" and u.face_up and u.mode == "combat"
            and sc.unit(uid).ocs is not None and sc.unit(uid).ocs.kind == "combat"]
    units = dict(state.units)
    found: list[dict[str, Any]] = []
    taken: set[str] = set()
    for uid, enemy in sorted(state.units.items()):
        if len(found) >= limit or not axis:
            break
        if sc.unit(uid).unit_class != "land" or not sc.map.is_hex(enemy.at) \
                or not sc.at_war(enemy.power, units[axis[0]].power) or enemy.at in taken:
            continue
        free = [n for n in sc.map.neighbours(enemy.at)
                if not any(x.at == n for x in units.values())]
        if not free:
            continue
        attacker = axis.pop(0)
        units[attacker] = dataclasses.replace(units[attacker], at=free[0])
        taken |= {enemy.at, free[0]}
        found.append({"by": "combat", "hex": enemy.at, "attackers": [attacker]})
    return dataclasses.replace(state, units=units), found


def _ms(samples: list[float]) -> str:
    return (f"median {statistics.median(samples) * 1000:7.2f} ms   "
            f"max {max(samples) * 1000:7.1f} ms   ({len(samples)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--units", type=int, default=2000)
    parser.add_argument("--hexes", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    sc = generate_scenario(args.hexes, args.units)
    sc = dataclasses.replace(sc, combat=load_builtin_scenario("dno-demo").combat)
    dice = _Dice()
    state, attacks = _fronts(_to_combat(axis_action_step(sc), dice), args.rounds)
    actor = Actor(id="p-axis", role="player", side="axis", powers=state.side_powers("axis"))
    preview: list[float] = []
    resolve: list[float] = []
    answer: list[float] = []
    refused = 0
    asked: dict[str, int] = {}
    for item in attacks:
        started = time.perf_counter()
        try:
            combat_preview(state, actor, item, AT)
        except Exception:  # noqa: BLE001 (a fight the rules refuse is measured too)
            refused += 1
            preview.append(time.perf_counter() - started)
            continue
        preview.append(time.perf_counter() - started)
        started = time.perf_counter()
        after = decide(state, Command("report", {"combats": [item]}, actor, AT), dice).state
        resolve.append(time.perf_counter() - started)
        res = after.modes.resolution
        if res is not None and res.question is not None:
            q = res.question
            asked[q.kind] = asked.get(q.kind, 0) + 1
            who = Actor(id=f"p-{q.side}", role="player", side=q.side,
                          powers=after.side_powers(q.side))
            body = {"hex": res.hex, q.kind: list(q.default)}
            started = time.perf_counter()
            decide(after, Command("combat.choose", body, who, AT), dice)
            answer.append(time.perf_counter() - started)
    print(f"{args.hexes} hexes, {args.units} units; {len(preview)} attacks ({refused} refused)")
    print(f"  combat_preview (GET /combat/odds)   {_ms(preview)}")
    print(f"  decide report, one combat           {_ms(resolve)}")
    if answer:
        print(f"  decide combat.choose (its default)  {_ms(answer)}   asked: {asked}")
    out = ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "combat.json").write_text(json.dumps({
        "hexes": args.hexes, "units": args.units, "preview_ms": [x * 1000 for x in preview],
        "resolve_ms": [x * 1000 for x in resolve], "answer_ms": [x * 1000 for x in answer]}))


if __name__ == "__main__":
    main()
