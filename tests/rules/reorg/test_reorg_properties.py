"""Properties of reorganization (hypothesis), over random orders on the dno-demo
scenario, mixing options the planner lists with arbitrary items: RPs never go
negative, no unit is reorganized twice in an impulse, a refused order changes nothing,
and replaying the events gives the state, whose snapshot round-trips."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from reorg_kit import Table, at_step

from service.rules import Actor, Command, decide, fold
from service.rules.codec import from_data, to_data
from service.rules.errors import RulesError
from service.rules.reorg import FIELDS, METHODS, Planner
from service.rules.scenario import load_builtin_scenario, scenario_to_json
from service.rules.state import State

SIDES = ("axis", "allies", "communists")
ACCEPTED: list[int] = []


@cache
def _start() -> State:
    data = scenario_to_json(load_builtin_scenario("dno-demo"))
    return at_step(data, sides=SIDES, rps={p["id"]: 12 for p in data["powers"]}).state


def _random_item(state: State, draw: Any) -> dict[str, Any]:
    sc = state.setup.scenario
    units = sorted(state.units)
    hexes = [h.id for h in sc.map.hexes if h.supply or h.port or h.city]
    method = draw(st.sampled_from(METHODS))
    item: dict[str, Any] = {"method": method}
    if method != "port_repair":
        item["unit"] = draw(st.sampled_from(units))
    required, optional = FIELDS[method]
    for key in required + tuple(k for k in optional if draw(st.booleans())):
        pool = hexes if key in ("port",) else units if key != "source" else hexes + units
        item[key] = draw(st.sampled_from(pool))
    return item


def _next_impulse(state: State) -> State:
    """The next impulse's reorganization step: fresh RPs, fresh counters."""
    powers = {p: replace(ps, rps=12) for p, ps in state.powers.items()}
    return replace(state, powers=powers, turn=replace(state.turn,
                                                      impulse=state.turn.impulse + 1))


@settings(deadline=None)
@given(st.data())
def test_reorganization_keeps_its_invariants(data: st.DataObject) -> None:
    start = _start()
    t = Table(state=start, dice=None, initial=start)  # type: ignore[arg-type]
    periods: list[tuple[State, list[Any], State]] = []
    segment_start, segment = start, []
    for _ in range(data.draw(st.integers(3, 12), label="orders")):
        state = t.state
        if data.draw(st.integers(0, 5), label="new impulse?") == 0:
            periods.append((segment_start, segment, state))
            t.state = segment_start = _next_impulse(state)
            segment = []
            continue
        items: list[dict[str, Any]] = []
        power = data.draw(st.sampled_from(sorted(state.powers)), label="payer")
        planner = Planner(state)
        for _ in range(data.draw(st.integers(1, 3), label="items")):
            down = sorted(uid for uid, u in state.units.items() if not u.face_up or u.shattered)
            if down and data.draw(st.integers(0, 3), label="planned?") > 0:
                uid = data.draw(st.sampled_from(down), label="unit")
                options = planner.plan(uid).options
                if options:
                    option = data.draw(st.sampled_from(options), label="option")
                    power = option.power or power
                    items.append(option.item)
                    continue
            items.append(_random_item(state, data.draw))
        side = state.powers[power].side
        actor = Actor(id=f"p-{side}", role="player", side=side,
                      powers=state.side_powers(side))
        before = to_data(state)
        try:
            new = decide(state, Command("reorg", {"power": power, "items": items}, actor,
                                        "2026-01-01T00:00:00+00:00"), None).events
        except RulesError:
            assert to_data(t.state) == before  # a refused order changes nothing
            continue
        t.state = fold(state, new)
        segment += new
        ACCEPTED.append(len(new))
        assert all(ps.rps >= 0 for ps in t.state.powers.values())
        done = t.state.reorg.reorganized
        assert len(done) == len(set(done))  # once per impulse
        spent = sum(e.data["cost"] for e in new)
        assert state.powers[power].rps - t.state.powers[power].rps == spent
    periods.append((segment_start, segment, t.state))
    for begin, events, end in periods:  # replay equals the state; the snapshot round-trips
        assert fold(begin, events) == end
        assert from_data(State, to_data(end), setup=end.setup) == end
