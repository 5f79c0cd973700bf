"""Legal choices of every unit of a side in a 2,000-unit game (issue 16, item 3).

    .venv/bin/python bench/options_bench.py [--units 2000] [--hexes 20000] [--rounds 5]
                                            [--skip-http]

A generated game (`generate_scenario(hexes, units)`, seed 0) in the Axis's first action
step (every Axis power declared land, so its units may move, change mode and overrun).

- rules: `service.rules.modes.side_options` for the Axis, the board built afresh each
  round (what the first request after an order costs the server in the rules), and
  `unit_options` for Axis units that may move, one at a time on one board;
- http (unless --skip-http): one `python -m service serve` process on a throwaway
  embedded PostgreSQL (or DATABASE_URL), the game created through the API with the
  scenario inline; `GET /v1/games/{id}/options` by the Axis player: the first request of
  a game version (computed and rendered) after each of `--rounds` orders, then cached
  requests of one version (rendered once, kept per game version).

Target (issue 16): all of a side's units answered in under 1 s. Raw figures go to
bench/results/options.json.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import harness as h  # noqa: E402

from service.crypto import identity, signing  # noqa: E402
from service.rules import Actor, Command, Setup, State, decide, initial_state  # noqa: E402
from service.rules.board import Board  # noqa: E402
from service.rules.dice import Roll  # noqa: E402
from service.rules.modes import side_options, unit_options  # noqa: E402
from service.rules.options import resolve_options  # noqa: E402
from service.rules.scenario import Scenario, generate_scenario, scenario_to_json  # noqa: E402

AT = "2026-01-01T00:00:00+00:00"
INITIATIVE = [10, 1, 1]  # the Axis wins the initiative and moves first


class _Dice:
    """Scripted dice for the in-process game: the initiative above, then 7s."""

    def __init__(self) -> None:
        self.initiative = list(INITIATIVE)

    def commit(self, chain: int, from_turn: int) -> tuple[str, int]:
        return "0" * 64, 1000

    def reveal(self, turn: int) -> str:
        return "0" * 64

    def roll(self, *, turn: int, index: int, purpose: str, count: int, faces: int,
             script_position: int, trigger: str) -> Roll:
        values = [self.initiative.pop(0) if purpose == "initiative" and self.initiative else 7
                  for _ in range(count)]
        return Roll(turn, index, purpose, faces, tuple(values), "scripted", trigger)


def _act(state: State, dice: _Dice, kind: str, body: dict[str, Any], side: str) -> State:
    actor = Actor(id=f"p-{side}", role="player", side=side, powers=state.side_powers(side))
    return decide(state, Command(kind, body, actor, AT), dice).state


def axis_action_step(sc: Scenario) -> State:
    """The game in memory at the Axis's first action step."""
    setup = Setup(game_id="bench", scenario=sc, dice_mode="scripted",
                  options=resolve_options(None, len(sc.sides)))
    state, dice = initial_state(setup), _Dice()
    for side in sc.side_ids:
        state = _act(state, dice, "seat.take", {"side": side, "powers": None, "name": side,
                                                "player_id": f"p-{side}"}, side)
    while state.step in ("initiative.reroll", "initiative.choose"):
        if state.step == "initiative.reroll":
            side = next(s for s in state.initiative.eligible if s not in state.turn.sides_done)
            state = _act(state, dice, "initiative.reroll", {"demand": False}, side)
        else:
            first = all(x is None for x in state.initiative.slots)
            side = str(state.initiative.chooser)
            state = _act(state, dice, "initiative.choose",
                         {"position": "first" if first else "before"}, side)
    assert state.turn.phasing_side == "axis", state.turn.phasing_side
    return _act(state, dice, "declare", {"actions": {p: "land" for p in
                                                     state.side_powers("axis")}}, "axis")


def _ms(samples: list[float]) -> str:
    return (f"median {statistics.median(samples) * 1000:7.2f} ms   "
            f"max {max(samples) * 1000:7.1f} ms")


def rules_figures(state: State, rounds: int) -> dict[str, Any]:
    side: list[float] = []
    out: dict[str, Any] = {}
    for _ in range(rounds):
        started = time.perf_counter()
        out = side_options(state, "axis")
        side.append(time.perf_counter() - started)
    entries = sum(len(u["moves"]["hexes"]) for u in out.values())
    movers = sum(1 for u in out.values() if u["moves"]["may"])
    board = Board.from_state(state)
    single: list[float] = []
    for uid in [u for u, x in out.items() if x["moves"]["may"]][:200]:
        started = time.perf_counter()
        unit_options(state, uid, board)
        single.append(time.perf_counter() - started)
    print(f"  axis: {len(out)} units, {movers} may move, {entries} hexes listed")
    print(f"  side_options (board included)  {_ms(side)}")
    print(f"  unit_options, one unit that moves {_ms(single)}")
    return {"units": len(out), "movers": movers, "hexes": entries,
            "side_ms": [round(x * 1000, 1) for x in side],
            "unit_ms_median": round(statistics.median(single) * 1000, 2)}


class _Player:
    def __init__(self, client: httpx.Client, game: str, side: str, code: str) -> None:
        self.client, self.game, self.side = client, game, side
        self.key = signing.new_private_key()
        public = signing.public_key_text(self.key)
        signed = identity.join_object(game, side, f"{side} bot", public, None)
        r = client.post(f"/v1/games/{game}/seats/{side}", json={
            "join_code": code, "name": f"{side} bot", "public_key": public, "powers": None,
            "signature": signing.sign(self.key, identity.signing_bytes(signed))})
        r.raise_for_status()
        self.id, self.token = r.json()["player_id"], r.json()["token"]
        self.headers = h.bearer(self.token)
        self.seq = 0

    def order(self, kind: str, body: dict[str, Any]) -> None:
        summary = self.client.get(f"/v1/games/{self.game}", headers=self.headers).json()
        self.seq += 1
        order = {"game": self.game, "player": self.id, "seq": self.seq,
                 "prev": summary["head"]["hash"], **summary["position"], "kind": kind,
                 "body": body}
        r = self.client.post(f"/v1/games/{self.game}/orders", headers=self.headers, json={
            "order": order, "signature": signing.sign(self.key,
                                                      signing.order_signing_bytes(order))})
        if r.status_code != 201:
            raise RuntimeError(r.text)


def _to_axis_action(client: httpx.Client, game: str, gm: str,
                    players: dict[str, _Player]) -> None:
    while True:
        waiting = client.get(f"/v1/games/{game}", headers=h.bearer(gm)).json()["awaiting"]
        step, side = waiting[0]["step"], waiting[0]["side"]
        if step == "initiative.reroll":
            players[side].order("initiative.reroll", {"demand": False})
        elif step == "initiative.choose":
            players[side].order("initiative.choose",
                                {"position": waiting[0]["choices"]["position"][0]})
        else:
            assert (step, side) == ("declare", "axis"), waiting
            players[side].order("declare", {"actions": {p: "land"
                                                        for p in waiting[0]["powers"]}})
            return


def http_figures(doc: dict[str, Any], rounds: int) -> dict[str, Any]:
    first: list[float] = []
    cached: list[float] = []
    size = 0
    with h.database() as db:
        h.migrate(db.url)
        with h.referee(db.url, RATE_LIMIT="0") as server, \
                httpx.Client(base_url=server.base, timeout=120) as client:
            r = client.post("/v1/games", json={"name": "options bench", "scenario": doc,
                                               "dice": {"mode": "scripted", "script": {
                                                   "initiative": INITIATIVE}}})
            r.raise_for_status()
            game, gm = r.json()["id"], r.json()["gm_token"]
            players = {side: _Player(client, game, side, code)
                       for side, code in r.json()["join_codes"].items()}
            _to_axis_action(client, game, gm, players)
            axis = players["axis"]
            url = f"/v1/games/{game}/options"
            for i in range(rounds):
                axis.order("roll", {"dice": "1d10", "purpose": f"a new version {i}"})
                started = time.perf_counter()
                r = client.get(url, headers=axis.headers)
                first.append(time.perf_counter() - started)
                r.raise_for_status()
                size = len(r.content)
            for _ in range(rounds * 10):
                started = time.perf_counter()
                client.get(url, headers=axis.headers).raise_for_status()
                cached.append(time.perf_counter() - started)
    print(f"  GET /options, first of a version  {_ms(first)}   ({size / 1e6:.1f} MB)")
    print(f"  GET /options, cached              {_ms(cached)}")
    return {"first_ms": [round(x * 1000, 1) for x in first],
            "cached_ms_median": round(statistics.median(cached) * 1000, 1), "bytes": size}


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()),
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--units", type=int, default=2000)
    parser.add_argument("--hexes", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-http", action="store_true", help="the rules figures only")
    args = parser.parse_args()
    print(f"machine: {h.conditions()}", flush=True)
    sc = generate_scenario(args.hexes, args.units, 0)
    state = axis_action_step(sc)
    print(f"{len(sc.map.hexes)} hexes, {len(sc.units)} units; the Axis's action step")
    figures: dict[str, Any] = {"args": vars(args), "rules": rules_figures(state, args.rounds)}
    if not args.skip_http:
        figures["http"] = http_figures(scenario_to_json(sc), args.rounds)
    h.save("options", figures)
    print(f"machine at the end: {h.conditions()}")


if __name__ == "__main__":
    main()
