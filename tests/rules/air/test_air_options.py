"""What the options endpoints and the reorganization planner show of ATR missions
(11.18.1 steps 1-6): which missions could be intercepted, and by what; where a fighter
may fly in the window its side is awaited in. Positions: air_kit.py."""

from __future__ import annotations

from air_kit import fly, mission

from service.rules.modes import unit_options
from service.rules.reorg import reorg_options


def test_the_planner_names_who_could_meet_an_atr_mission_11_18_1() -> None:
    t = mission()
    plan = reorg_options(t.state, "cw-a").as_data()
    atr = [o for o in plan["illegal"] if o["method"] == "atr"][0]
    assert atr["code"] == "reorg/atr_opposed"
    assert atr["interception"] == {
        "hex": "0501", "opposed": True,
        "fighters": [{"unit": "ger-ftr-1", "side": "axis", "at": "0901", "distance": 4,
                      "range": 4},
                     {"unit": "ger-ftr-2", "side": "axis", "at": "1001", "distance": 5,
                      "range": 5}],
        "aa": [{"unit": "ger-flak", "factor": 2}]}
    free = mission(ranges={"ger-ftr-1": 3, "ger-ftr-2": 3}, flak=0)
    legal = [o for o in reorg_options(free.state, "cw-a").as_data()["options"]
             if o["method"] == "atr"][0]
    assert legal["interception"]["opposed"] is False and legal["cost"] == 3


def test_an_atrs_options_list_its_missions_and_who_could_meet_each_11_18_1() -> None:
    t = mission()
    air = unit_options(t.state, "cw-atr")["air"]
    assert (air["range"], air["interception"]) == (6, True)
    assert [(m["hex"], m["units"], m["opposition"]["opposed"]) for m in air["missions"]] == [
        ("0501", ["cw-a", "cw-b"], True)]
    assert [f["unit"] for f in air["missions"][0]["opposition"]["fighters"]] == [
        "ger-ftr-1", "ger-ftr-2"]


def test_a_fighters_options_say_where_it_may_fly_in_the_open_window_11_18_1() -> None:
    t = mission(ranges={"ger-ftr-2": 3})
    assert unit_options(t.state, "ger-ftr-1")["air"]["why"] == \
        "no window of an ATR mission awaits its side now"
    fly(t)
    one = unit_options(t.state, "ger-ftr-1")["air"]
    assert (one["window"], one["hexes"], one["why"]) == ("air.intercept", ["0501"], None)
    two = unit_options(t.state, "ger-ftr-2")["air"]
    assert two["hexes"] == [] and "within its range" in str(two["why"])
    assert unit_options(t.state, "cw-ftr")["air"]["window"] is None  # not its side's window
