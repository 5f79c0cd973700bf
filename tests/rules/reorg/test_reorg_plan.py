"""Planning reorganization (issue 6: `reorg_options`): every legal method with its
source, path, cost and capacity, why each other is illegal, and every listed option
accepted as an order."""

from __future__ import annotations

import json

from engine import skip_initiative, table
from reorg_1944 import EXAMPLE, LIMITS, ROUEN
from reorg_kit import act, at_step, decide_as, doc

from service.rules.reorg import NEAREST, Planner, reorg_options
from service.rules.scenario import load_builtin_scenario, scenario_to_json
from service.rules.state import State


def _accepted_everywhere(state: State) -> int:
    """Order every listed option alone; all must be accepted. Returns how many."""
    from reorg_kit import Table

    t = Table(state=state, dice=None)  # type: ignore[arg-type]
    planner = Planner(state)
    count = 0
    for uid, u in sorted(state.units.items()):
        if u.face_up and not u.shattered:
            continue
        plan = planner.plan(uid)
        for option in plan.options:
            assert option.power is not None
            side = state.powers[option.power].side
            if side not in state.turn.step_sides or not option.affordable:
                continue
            decide_as(t, side, state.side_powers(side),
                      {"power": option.power, "items": [option.item]})
            count += 1
        for option in plan.illegal:
            assert not option.legal and option.reason and option.rule
    return count


def test_every_listed_option_is_accepted_as_an_order_1944() -> None:
    t = table({"initiative": [5, 5, 5], "weather": [7]}, name="reorg-1944")
    skip_initiative(t, ("allies", "axis", "communists"))
    t.act("declare", {"actions": {"cw": "pass", "usa": "pass"}}, side="allies")
    assert _accepted_everywhere(t.state) > 20
    t.act("reorg", {"power": "cw", "items": [i for i, _ in EXAMPLE]}, side="allies")
    assert _accepted_everywhere(t.state) > 5


def test_every_listed_option_is_accepted_as_an_order_dno_demo() -> None:
    data = scenario_to_json(load_builtin_scenario("dno-demo"))
    t = at_step(data, sides=("axis", "allies", "communists"),
                rps={p["id"]: 40 for p in data["powers"]})
    assert _accepted_everywhere(t.state) > 50


def test_the_plan_names_method_source_path_cost_and_capacity() -> None:
    t = table({"initiative": [5, 5, 5], "weather": [7]}, name="reorg-1944")
    skip_initiative(t, ("allies", "axis", "communists"))
    t.act("declare", {"actions": {"cw": "pass", "usa": "pass"}}, side="allies")
    t.act("reorg", {"power": "cw", "items": [i for i, _ in EXAMPLE]}, side="allies")
    plan = reorg_options(t.state, "cw-inf-51")
    assert plan.power == "cw" and plan.rps == 3 and plan.step_open
    coast = [o for o in plan.options if o.item == {"method": "overseas", "unit": "cw-inf-51",
                                                   "source": "1231"}]
    assert coast and coast[0].cost == 2 and coast[0].path is not None
    assert coast[0].path.seas == ("channel", "north-sea")  # an INF division, off the coast
    rouen = [o for o in plan.options if o.item.get("port") == ROUEN]
    assert rouen == []  # Rouen is full
    illegal = {o.method: o for o in plan.illegal}
    assert illegal["atr"].reason == "ATR cw-atr-1 already reorganized 1 unit this impulse " \
                                    "(only a large ATR within half its range reorganizes 2 " \
                                    "(Option 36))"
    assert illegal["hq"].reason == LIMITS[3][2]
    assert illegal["hq"].field == "hq" and illegal["hq"].code == "reorg/limit_reached"
    data = plan.as_data()
    json.dumps(data)
    assert data["illegal"][0]["legal"] is False


def test_a_face_up_unit_needs_no_plan() -> None:
    t = at_step(doc(". .", units=[("cw-a", "cw", "INF", "0101", "combat")]))
    plan = reorg_options(t.state, "cw-a")
    assert plan.reason == "cw-a is face up: there is nothing to reorganize"
    assert plan.options == () and plan.illegal == ()


def test_far_sources_are_bounded_to_the_nearest_out_of_supply_11_18_5() -> None:
    sources = {f"{q:02d}01": ("primary", "cw") for q in range(2, 9)}
    t = at_step(doc(". . . . . . . . . . . . . . . .", sources=sources,
                    units=[("cw-a", "cw", "INFdiv", "1601", "combat")], down=["cw-a"]))
    plan = reorg_options(t.state, "cw-a")
    far = [o for o in plan.options if o.method == "primary"]
    assert len(far) == NEAREST
    assert [o.item["source"] for o in far] == ["0801", "0701", "0601"]
    assert all(o.cost == 6 and o.path is None for o in far)  # double cost, path not traced


def test_a_unit_at_sea_plans_at_sea_and_chits_only_11_18_10() -> None:
    data = doc(". . .", coasts={"0101": ["channel"], "0301": ["channel"]},
               ports={"0301": "major"}, sources={"0101": ("primary", "cw")},
               units=[("cw-dd", "cw", "DD", "channel", None)], down=["cw-dd"])
    plan = reorg_options(at_step(data).state, "cw-dd")
    assert [(o.method, o.item.get("port"), o.power) for o in plan.options] == [
        ("at_sea", "0301", "cw")]
    illegal = {o.method: o.reason for o in plan.illegal}
    assert illegal["hq"] == "cw-dd is in sea area channel: at sea only at-sea reorganization " \
                            "(11.18.10) and chits apply"


def test_planning_lists_each_option_once_on_the_demo_scenario() -> None:
    """A source that qualifies twice (11.18.7 city with a supply unit and a secondary
    source) is offered once."""
    import json

    from service.rules import Setup, initial_state
    from service.rules.options import resolve_options
    from service.rules.reorg import reorg_options
    from service.rules.scenario import load_builtin_scenario

    sc = load_builtin_scenario("dno-demo")
    state = initial_state(Setup("g", sc, resolve_options(None, 3), "fair"))
    for uid, unit in state.units.items():
        if unit.face_up:
            continue
        plan = reorg_options(state, uid).as_data()
        keys = [json.dumps(o["item"], sort_keys=True) for o in plan["options"] + plan["illegal"]
                if o["item"]]
        assert len(keys) == len(set(keys)), uid


def test_the_planner_lists_each_damaged_port_and_the_ways_to_repair_it_11_18_4() -> None:
    """11.18.4: "Damaged ports can receive RPs in order to repair the port only": the
    planner lists the side's damaged ports, each with the ways to repair it now (from the
    nearest primary sources, at the port's cost: RULES-NOTES 23), every one accepted as
    an order; a port an enemy unit holds says why not; another side's port is listed to
    that side only; a repaired port leaves the list."""
    data = doc(". # . . . g", coasts={"0101": ["north-sea"], "0401": ["channel"],
                                      "0501": ["channel"], "0601": ["channel"]},
               seas={"north-sea": ["channel"]},
               ports={"0101": "major", "0401": "minor", "0501": "minor", "0601": "minor"},
               damaged=["0401", "0501", "0601"], sources={"0101": ("primary", "cw")},
               units=[("ger-a", "germany", "INF", "0401", "combat")])
    t = at_step(data)
    allies = {r.port: r for r in Planner(t.state).repairs("allies")}
    assert sorted(allies) == ["0401", "0501"]
    held = allies["0401"]
    assert (held.power, held.options) == ("cw", ())
    assert [(o.code, o.reason) for o in held.illegal] == [
        ("reorg/not_cooperating", "hex 0401 is not held by a power cooperating with cw")]
    free = allies["0501"]
    assert (free.power, free.rps, free.step_open) == ("cw", 30, True)
    assert [(o.item, o.cost, o.provider) for o in free.options] == [
        ({"method": "port_repair", "port": "0501", "source": "0101"}, 2, "0101")]
    shown = free.as_data(t.state)
    assert (shown["port"], shown["kind"], shown["options"][0]["legal"]) == ("0501", "minor", True)
    axis = Planner(t.state).repairs("axis")
    assert [(r.port, r.power, r.step_open, r.illegal[0].code) for r in axis] == [
        ("0601", "germany", False, "reorg/no_candidate")]
    assert sorted(r.port for r in Planner(t.state).repairs(None)) == ["0401", "0501", "0601"]
    assert [e.kind for e in act(t, [free.options[0].item])] == ["port.repaired"]
    assert [r.port for r in Planner(t.state).repairs("allies")] == ["0401"]
