"""What a game's size costs per request, piece by piece: the measurements behind the
state cache and the orjson responses (issue 9, item 1).

    .venv/bin/python bench/state_costs.py [--units 2000] [--hexes 20000] [--repeat 5]

For the built-in `dno-demo` (144 units) and a generated scenario, in this process
(medians of `--repeat` runs):

- decoding the scenario JSON, which every load of a game row used to do (twice per
  order: the membership check and the lock);
- the state: JSON decode, `from_data` (rebuild the frozen dataclasses), `to_data` and
  JSON encode, which every order used to do to read and rewrite `games.state`;
- PostgreSQL's side of rewriting the state: one transaction updating a game row with
  the state as JSONB, against the same update without it (embedded PostgreSQL in a
  temp folder, or DATABASE_URL);
- `view(state, viewer)`, and encoding the view and an order's result with FastAPI's
  default (`jsonable_encoder` + `json.dumps`) against `orjson.dumps`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import harness as h


def ms(f: Callable[[], Any], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        f()
        samples.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(samples), 4)


async def pg_write_ms(url: str, state_json: str, repeat: int) -> tuple[float, float]:
    import asyncpg

    connection = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await connection.execute(
            "INSERT INTO games (id, name, status, version, scenario, options, dice,"
            " gm_token_hash, join_codes, state, head_seq, head_hash, rules_version) VALUES"
            " ('w', 'w', 'active', 0, '{}', '{}', '{}', '', '{}', '{}', 0, '', '')"
            " ON CONFLICT (id) DO NOTHING")

        async def run(sql: str, *params: Any) -> float:
            started = time.perf_counter()
            for _ in range(repeat * 10):
                async with connection.transaction():
                    await connection.execute(sql, *params)
            return round((time.perf_counter() - started) * 1000 / (repeat * 10), 2)

        with_state = await run("UPDATE games SET state = $1::jsonb, version = version + 1"
                               " WHERE id = 'w'", state_json)
        without = await run("UPDATE games SET version = version + 1 WHERE id = 'w'")
        return with_state, without
    finally:
        await connection.close()


RESULT = {"accepted": True, "seq": 7, "version": 12, "events": [
    {"seq": 40, "turn": 1, "impulse": 0, "step": "initiative.reroll", "kind": "dice.rolled",
     "actor": "p", "text": "p rolls 2d10 for bench: 3, 7",
     "data": {"turn": 1, "index": 4, "purpose": "roll", "faces": 10, "values": [3, 7],
              "source": "fair", "chain_hash": "ab" * 32, "label": "bench"},
     "at": "2026-01-01T00:00:00Z", "rules_version": "1", "hash": "cd" * 32}],
    "position": {"turn": 1, "impulse": 0, "step": "initiative.reroll"},
    "awaiting": [{"side": "axis", "powers": ["germany"], "step": "x", "deadline": None}]}


def measure(name: str, scenario: Any, url: str, r: int) -> dict[str, Any]:
    import orjson
    from fastapi.encoders import jsonable_encoder

    from service.rules import Setup, initial_state
    from service.rules.codec import from_data, to_data
    from service.rules.options import resolve_options
    from service.rules.scenario import scenario_to_json
    from service.rules.state import State
    from service.rules.view import Viewer, view

    setup = Setup(game_id="g", scenario=scenario, options=resolve_options(None, 3),
                  dice_mode="fair")
    state = initial_state(setup)
    scenario_json = json.dumps(scenario_to_json(scenario))
    data = to_data(state)
    state_json = json.dumps(data)
    viewer = Viewer(role="gm")
    body = view(state, viewer)
    write, no_write = asyncio.run(pg_write_ms(url, state_json, r))
    return {
        "game": name,
        "scenario KB": len(scenario_json) // 1000,
        "scenario json.loads ms": ms(lambda: json.loads(scenario_json), r),
        "state KB": len(state_json) // 1000,
        "state json.loads ms": ms(lambda: json.loads(state_json), r),
        "from_data ms": ms(lambda: from_data(State, data, setup=setup), r),
        "to_data ms": ms(lambda: to_data(state), r),
        "state json.dumps ms": ms(lambda: json.dumps(data), r),
        "PG txn with state ms": write,
        "PG txn without ms": no_write,
        "view() ms": ms(lambda: view(state, viewer), r),
        "view KB": len(orjson.dumps(body)) // 1000,
        "view default encoder ms": ms(lambda: json.dumps(jsonable_encoder(body)).encode(), r),
        "view orjson ms": ms(lambda: orjson.dumps(body), r),
        "result default encoder µs": round(1000 * ms(
            lambda: json.dumps(jsonable_encoder(RESULT)).encode(), r * 100)),
        "result orjson µs": round(1000 * ms(lambda: orjson.dumps(RESULT), r * 100), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()),
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--units", type=int, default=2000)
    parser.add_argument("--hexes", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from service.rules.scenario import generate_scenario, load_builtin_scenario

    print(f"machine: {h.conditions()}", flush=True)
    scenarios = {"dno-demo (144 units)": load_builtin_scenario("dno-demo"),
                 f"{args.units} units, {args.hexes} hexes":
                 generate_scenario(args.hexes, args.units, 0)}
    with h.database() as db:
        h.migrate(db.url)
        rows = [measure(name, scenario, db.url, args.repeat)
                for name, scenario in scenarios.items()]
    print()
    print("| measure | " + " | ".join(row["game"] for row in rows) + " |")
    print("|---|" + "---|" * len(rows))
    for key in list(rows[0])[1:]:
        cells = [f"{v:.2f}" if isinstance(v, float) and key.endswith("ms") else str(v)
                 for v in (row[key] for row in rows)]
        print(f"| {key} | " + " | ".join(cells) + " |")
    h.save("state_costs", {"rows": rows, "args": vars(args)})


if __name__ == "__main__":
    main()
