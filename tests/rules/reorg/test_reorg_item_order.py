"""The order of a `reorg` order's items never changes its verdict (11.18; issue 34), a
property over random orders on the dno-demo scenario: items are chosen one after the
other among what the planner offers in the position the earlier items produce (so
chains such as an ATR reorganized and then flown, a port repaired and then used, a
supply unit expended after its city served, come up), with port repairs and now and
then an arbitrary item, under the four settings of `reorg.primary_limit` and
`reorg.rail_counts_against_source`, with or without scarce fuel (11.18 fuel); the same
items shuffled get the same verdict, and when accepted the same position."""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from reorg_kit import at_step

from service.rules import Actor, Command, decide, fold
from service.rules.errors import RulesError
from service.rules.reorg import FIELDS, METHODS, Planner
from service.rules.reorg.methods import cooperates
from service.rules.reorg.order import check_order
from service.rules.scenario import load_builtin_scenario, scenario_to_json
from service.rules.state import State

SIDES = ("axis", "allies", "communists")
AT = "2026-01-01T00:00:00+00:00"


FUEL = {"reorganize": {"ARM": 2, "MECH": 2, "MOT": 1, "HQ": 1, "FTR": 1, "LND": 1, "ATR": 1,
                       "BB": 3, "CA": 2, "TRS": 1},
        "powers": {p: {"stock": 5} for p in ("germany", "italy", "japan", "cw", "usa",
                                             "france", "nationalist_china", "ussr",
                                             "communist_china")}}


@cache
def _start(primary_limit: str, rail_counts: bool, fuel: bool = False) -> State:
    data = scenario_to_json(load_builtin_scenario("dno-demo"))
    if fuel:
        data["fuel"] = FUEL
    options = {"reorg": {"primary_limit": primary_limit,
                         "rail_counts_against_source": rail_counts}}
    return at_step(data, sides=SIDES, options=options,
                   rps={p["id"]: 40 for p in data["powers"]}).state


def _repairs(state: State, power: str) -> list[dict[str, Any]]:
    """Port repairs `power` might order: every damaged port, from every primary source."""
    sc = state.setup.scenario
    sources = [h.id for h in sc.map.hexes if h.supply == "primary"]
    return [{"method": "port_repair", "port": h.id, "source": src}
            for h in sc.map.hexes if h.port and h.port_damaged for src in sources]


def _arbitrary(state: State, draw: st.DrawFn) -> dict[str, Any]:
    sc = state.setup.scenario
    units = sorted(state.units)
    hexes = [h.id for h in sc.map.hexes if h.supply or h.port or h.city]
    method = draw(st.sampled_from(METHODS))
    item: dict[str, Any] = {"method": method}
    if method != "port_repair":
        item["unit"] = draw(st.sampled_from(units))
    required, optional = FIELDS[method]
    for key in required + tuple(k for k in optional if draw(st.booleans())):
        pool = hexes if key == "port" else units if key != "source" else hexes + units
        item[key] = draw(st.sampled_from(pool))
    return item


def _after(state: State, power: str, items: list[dict[str, Any]]) -> State | None:
    """The position `items` produce in the order given, or None when refused."""
    try:
        return check_order(state, power, items)[0].state
    except RulesError:
        return None


def _names(items: list[dict[str, Any]]) -> set[str]:
    """The units and hexes `items` reorganize or repair."""
    return {str(i.get("unit") or i.get("port")) for i in items}


def _offered(now: State, power: str) -> list[dict[str, Any]]:
    """Every item the planner offers `power` now, and the port repairs."""
    planner = Planner(now)
    down = sorted(uid for uid, u in now.units.items()
                  if (not u.face_up or u.shattered) and cooperates(now, power, u.power))
    return [o.item for uid in down for o in planner.plan(uid).options
            if o.power == power] + _repairs(now, power)


@st.composite
def _orders(draw: st.DrawFn) -> tuple[tuple[str, bool, bool], str, list[dict[str, Any]],
                                       list[dict[str, Any]]]:
    """(the options and fuel, the paying power, the items, the items shuffled)."""
    options = (draw(st.sampled_from(["factories", "two_units"])), draw(st.booleans()),
               draw(st.booleans()))
    start = _start(*options)
    power = draw(st.sampled_from(sorted(p for p, ps in start.powers.items()
                                        if not ps.neutral)))
    chain: list[dict[str, Any]] = []  # accepted in this order, each planned after the last
    now = start
    for _ in range(draw(st.integers(1, 8))):
        offered = _offered(now, power)
        names = _names(chain)
        using = [i for i in offered if names & {str(v) for k, v in i.items() if k != "unit"}]
        pool = using if using and draw(st.booleans()) else offered
        for _ in range(4 if pool else 0):
            item = draw(st.sampled_from(pool))
            after = _after(start, power, [*chain, item])
            if after is not None:
                chain.append(item)
                now = after
                break
    items = list(chain)
    if not items or draw(st.integers(0, 4)) == 0:
        items.insert(draw(st.integers(0, len(items))), _arbitrary(start, draw))
    return options, power, items, draw(st.permutations(items))


def _verdict(state: State, power: str, items: list[dict[str, Any]]) -> tuple[Any, ...]:
    """Refused, or accepted with what the order changed: units face up, shattered or
    gone, RPs, counters, ports repaired."""
    side = state.powers[power].side
    actor = Actor(id=f"p-{side}", role="player", side=side, powers=state.side_powers(side))
    try:
        events = decide(state, Command("reorg", {"power": power, "items": items}, actor, AT),
                        None).events
    except RulesError:
        return ("refused",)
    after = fold(state, events)
    r = after.reorg
    return ("accepted",
            sorted((uid, u.face_up, u.shattered) for uid, u in after.units.items()),
            sorted((p, ps.rps) for p, ps in after.powers.items()),
            sorted(r.reorganized), sorted(r.used.items()),
            sorted((k, sorted(v)) for k, v in r.dispensed.items()),
            sorted(r.isolated.items()), sorted(r.repaired_ports),
            sorted((p, ps.fuel) for p, ps in after.powers.items()))


@settings(deadline=None)
@given(_orders())
def test_the_order_of_a_reorg_orders_items_never_changes_its_verdict_11_18(
    order: tuple[tuple[str, bool, bool], str, list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    options, power, items, shuffled = order
    state = _start(*options)
    assert _verdict(state, power, items) == _verdict(state, power, shuffled), (power, items,
                                                                              shuffled)
