"""Air reorganization flown as seed 000's 11.18.1 says, step by step (RULES-NOTES 34):
1 the opponent's combat air patrol, 2 the flight of ATRs and escorts, 3 the opponent's
interception, 4 the flying side's interception, 5 air-to-air combat, 6 AA fire, 7 the
surviving ATRs' reorganization, 8 every aircraft home and face down. Positions:
air_kit.py (a CW ATR and escort at 0101, the target 0501, German fighters at 0901 and
1001, German AA next to the target)."""

from __future__ import annotations

import pytest
from air_kit import data, entry, fly, mission, texts
from reorg_kit import act, refuse, replayed

from service.rules.awaiting import awaiting
from service.rules.errors import Malformed, Refused

LOST = [{"kind": "mission_lost", "value": 1}]
ABORTED = [{"kind": "mission_aborted", "value": 1}]
SHOT = [{"kind": "interceptor_lost", "value": 1}]
FLAK_ABORT = [{"kind": "aborted"}]
FLAK_KILL = [{"kind": "eliminated"}]


def face_up(t, uid: str) -> bool | None:
    unit = t.state.units.get(uid)
    return None if unit is None else unit.face_up


# ------------------------------------------------------------------ step 1: patrol


def test_step_1_the_opponent_is_asked_first_for_its_combat_air_patrol_11_18_1() -> None:
    t = mission()
    assert "air.begin" in entry(t)["orders"]
    t.act("air.begin", {}, side="allies")
    e = entry(t)
    assert (e["side"], e["step"], e["orders"]) == ("axis", "air.patrol", ["air.patrol", "standing"])
    assert e["air"]["rule"] == "11.18.1 step 1"
    assert e["air"]["hexes"] == ["0501"]  # the potential target hexes
    assert e["air"]["fighters"] == {"ger-ftr-1": ["0501"], "ger-ftr-2": ["0501"]}
    assert e["air"]["default"] == {"patrols": []}
    with pytest.raises(Refused) as other:
        t.act("reorg", {"power": "cw", "items": [
            {"unit": "cw-a", "method": "hq", "hq": "cw-atr"}]}, side="allies")
    assert other.value.code == "air/window_open"
    t.act("air.patrol", {"patrols": [{"unit": "ger-ftr-1", "hex": "0501"}]}, side="axis")
    assert [(s.unit, s.hex, s.role) for s in t.state.air.sorties] == [("ger-ftr-1", "0501",
                                                                        "patrol")]
    assert entry(t)["step"] == "air.flight"
    assert replayed(t)


def test_step_1_patrols_only_over_potential_targets_within_range_11_18_1() -> None:
    t = mission(ranges={"ger-ftr-2": 3})
    t.act("air.begin", {}, side="allies")
    assert entry(t)["air"]["fighters"] == {"ger-ftr-1": ["0501"]}
    with pytest.raises(Refused) as far:
        t.act("air.patrol", {"patrols": [{"unit": "ger-ftr-2", "hex": "0501"}]}, side="axis")
    assert far.value.code == "air/not_a_choice" and far.value.rule == "11.18.1 step 1"
    assert "none of 0501 is within its range" in far.value.message
    with pytest.raises(Refused) as elsewhere:
        t.act("air.patrol", {"patrols": [{"unit": "ger-ftr-1", "hex": "0401"}]}, side="axis")
    assert "0401 is not a potential target hex (0501)" in elsewhere.value.errors[0][1]
    with pytest.raises(Malformed):
        t.act("air.patrol", {"patrols": [{"unit": "ger-ftr-1", "hex": "0501"},
                                         {"unit": "ger-ftr-1", "hex": "0501"}]}, side="axis")
    with pytest.raises(Refused) as not_axis:
        t.act("air.patrol", {"patrols": []}, side="allies")
    assert not_axis.value.code == "order/not_your_turn"


def test_step_1_a_face_down_fighter_does_not_patrol_and_no_reach_skips_the_window() -> None:
    t = mission(ranges={"ger-ftr-1": 3, "ger-ftr-2": 3})
    t.act("air.begin", {}, side="allies")
    assert texts(t, "air.window_skipped") == [
        "No patrol window (11.18.1 step 1): no enemy fighter can reach a potential target hex."]
    assert entry(t)["step"] == "air.flight"


def test_step_1_a_standing_patrol_placed_ahead_answers_the_window_11_18_1() -> None:
    t = mission()
    t.act("standing", {"step": "air.patrol", "patrols": [
        {"unit": "ger-ftr-2", "hex": "0501"}, {"unit": "ger-ftr-1", "hex": "0801"}]},
        side="axis")
    t.act("air.begin", {}, side="allies")
    assert entry(t)["step"] == "air.flight"  # answered at once
    assert texts(t, "air.patrolled") == [
        "axis's combat air patrol (standing order): ger-ftr-2 over 0501 (11.18.1 step 1)."]
    assert replayed(t)


def test_step_1_a_standing_patrol_that_cannot_fly_as_it_says_is_disarmed() -> None:
    t = mission(ranges={"ger-ftr-2": 3})
    t.act("standing", {"step": "air.patrol", "patrols": [{"unit": "ger-ftr-2", "hex": "0501"}]},
          side="axis")
    t.act("air.begin", {}, side="allies")
    assert entry(t)["step"] == "air.patrol"
    assert data(t, "standing.disarmed")[0]["reason"] == "ger-ftr-2 cannot patrol over 0501 now"


# ------------------------------------------------------------------ step 2: the flight


def test_step_2_the_flight_offers_the_atrs_their_targets_and_the_escorts_11_18_1() -> None:
    t = mission()
    t.act("air.begin", {}, side="allies")
    t.act("air.patrol", {"patrols": []}, side="axis")
    e = entry(t)
    assert (e["side"], e["step"], e["orders"]) == ("allies", "air.flight", ["air.fly"])
    assert e["air"]["atrs"] == {"cw-atr": {"base": "0101", "range": 6, "large": False,
                                           "hexes": {"0501": ["cw-a", "cw-b"]}}}
    assert e["air"]["fighters"] == {"cw-ftr": ["0501"]}
    with pytest.raises(Refused) as two:
        t.act("air.fly", {"power": "cw", "flights": [
            {"atr": "cw-atr", "hex": "0501", "units": ["cw-a", "cw-b"]}]}, side="allies")
    assert two.value.errors[0][0] == "/body/flights/0/units/1"
    assert "only a large ATR within half its range" in two.value.errors[0][1]
    t.act("air.fly", {"power": "cw", "flights": [
        {"atr": "cw-atr", "hex": "0501", "units": ["cw-a"]}],
        "escorts": [{"unit": "cw-ftr", "hex": "0501"}]}, side="allies")
    roles = {s.unit: s.role for s in t.state.air.sorties}
    assert roles == {"cw-atr": "atr", "cw-ftr": "escort"}
    assert t.state.air.items == (("cw-a", "cw-atr"),)


def test_step_2_no_flight_ends_the_mission_and_the_patrol_returns_face_down_11_18_1() -> None:
    t = mission()
    t.act("air.begin", {}, side="allies")
    t.act("air.patrol", {"patrols": [{"unit": "ger-ftr-1", "hex": "0501"}]}, side="axis")
    t.act("air.fly", {"power": "cw", "flights": []}, side="allies")
    assert t.state.air is None
    assert face_up(t, "ger-ftr-1") is False and face_up(t, "cw-atr") is True
    with pytest.raises(Refused) as again:
        t.act("air.begin", {}, side="allies")
    assert again.value.code == "air/flown"


# ------------------------------------------------------------------ steps 3 and 4


def test_step_3_the_opponent_intercepts_over_the_target_hexes_only_11_18_1() -> None:
    t = mission()
    fly(t)
    e = entry(t)
    assert (e["side"], e["step"], e["air"]["rule"]) == ("axis", "air.intercept",
                                                        "11.18.1 step 3")
    assert e["air"]["fighters"] == {"ger-ftr-1": ["0501"], "ger-ftr-2": ["0501"]}
    t.act("air.intercept", {"interceptors": [{"unit": "ger-ftr-1", "hex": "0501"}]},
          side="axis")
    assert [(s.unit, s.role) for s in t.state.air.sorties if s.side == "axis"] == [
        ("ger-ftr-1", "intercept")]
    assert entry(t)["step"] == "air.counter"


def test_step_4_the_flying_side_intercepts_where_enemy_fighters_are_11_18_1() -> None:
    t = mission()
    fly(t)  # no escort: cw-ftr stays on the ground
    t.act("air.intercept", {"interceptors": [{"unit": "ger-ftr-1", "hex": "0501"}]},
          side="axis")
    e = entry(t)
    assert (e["side"], e["step"], e["orders"]) == ("allies", "air.counter", ["air.intercept"])
    assert e["air"]["rule"] == "11.18.1 step 4" and e["air"]["fighters"] == {"cw-ftr": ["0501"]}
    t.act("air.intercept", {"interceptors": [{"unit": "cw-ftr", "hex": "0501"}]}, side="allies")
    assert t.state.air is None  # fought, fired, reorganized, home
    assert "cw-ftr" in data(t, "air.combat_resolved")[0]["mission"]


def test_steps_3_and_4_are_skipped_when_nobody_could_fly_them() -> None:
    t = mission()
    fly(t)
    t.act("air.intercept", {"interceptors": []}, side="axis")
    assert texts(t, "air.window_skipped") == [
        "No counter window (11.18.1 step 4): no enemy fighter is over a target hex."]
    assert data(t, "air.combat_resolved") == []  # nobody to fight
    assert face_up(t, "cw-a") is True


# ------------------------------------------------------------------ step 5: air-to-air


def test_step_5_the_air_table_decides_and_the_owner_names_the_aircraft_lost_11_18_1() -> None:
    t = mission("M1", LOST)
    t.dice.script["combat"] = [6, 1]
    fly(t, escorts=[("cw-ftr", "0501")])
    t.act("air.intercept", {"interceptors": [{"unit": "ger-ftr-1", "hex": "0501"}]},
          side="axis")
    fought = data(t, "air.combat_resolved")[0]
    assert (fought["attack"], fought["defence"], fought["column"], fought["values"],
            fought["code"]) == (3, 3, "0", [6], "M1")
    e = entry(t)
    assert (e["side"], e["step"]) == ("allies", "air.choice")
    assert e["air"]["question"]["units"] == ["cw-ftr", "cw-atr"]  # fighters before ATRs
    assert e["air"]["default"] == {"hex": "0501", "lost": ["cw-ftr"], "aborted": []}
    with pytest.raises(Refused):
        t.act("air.choose", {"hex": "0501", "lost": ["ger-ftr-1"], "aborted": []},
              side="allies")
    t.act("air.choose", {"hex": "0501", "lost": ["cw-atr"], "aborted": []}, side="allies")
    assert "cw-atr" not in t.state.units and "cw-atr" in t.state.modes.eliminated
    assert face_up(t, "cw-a") is False  # the ATR is lost: no reorganization
    assert face_up(t, "cw-ftr") is False and face_up(t, "ger-ftr-1") is False
    assert replayed(t)


def test_step_5_an_interceptor_lost_by_the_result_needs_no_question_11_18_1() -> None:
    t = mission("I1", SHOT)
    fly(t)
    t.act("air.intercept", {"interceptors": [{"unit": "ger-ftr-2", "hex": "0501"}]},
          side="axis")
    t.act("air.intercept", {"interceptors": []}, side="allies")
    assert "ger-ftr-2" not in t.state.units
    assert texts(t, "air.losses_taken") == ["axis over 0501 (by the result): ger-ftr-2 lost."]
    assert face_up(t, "cw-a") is True


def test_step_5_an_aborted_atr_reorganizes_nothing_and_comes_home_face_down() -> None:
    t = mission("A", ABORTED)
    fly(t)
    t.act("air.intercept", {"interceptors": [{"unit": "ger-ftr-2", "hex": "0501"}]},
          side="axis")
    t.act("air.intercept", {"interceptors": []}, side="allies")
    assert data(t, "air.aa_fired") == []  # only ATRs still flying suffer AA fire
    assert face_up(t, "cw-a") is False and face_up(t, "cw-atr") is False
    assert data(t, "air.mission_ended")[0]["note"] == "not reorganized: cw-a (cw-atr aborted)"


def test_step_5_the_default_answer_when_the_gm_forces_it() -> None:
    t = mission("M1", LOST)
    fly(t, escorts=[("cw-ftr", "0501")])
    t.act("air.intercept", {"interceptors": [{"unit": "ger-ftr-1", "hex": "0501"}]},
          side="axis")
    t.act("admin.force", {}, role="gm")
    assert "cw-ftr" not in t.state.units and face_up(t, "cw-a") is True


# ------------------------------------------------------------------ step 6: AA


def test_step_6_aa_fire_aborts_or_destroys_the_surviving_atr_11_18_1() -> None:
    t = mission(aa_code="A", aa_effects=FLAK_ABORT)
    fly(t)
    t.act("air.intercept", {"interceptors": []}, side="axis")
    fired = data(t, "air.aa_fired")[0]
    assert (fired["units"], fired["strength"], fired["column"], fired["result"]) == (
        ["ger-flak"], 2, "1", "aborted")
    assert face_up(t, "cw-a") is False and face_up(t, "cw-atr") is False
    t2 = mission(aa_code="X", aa_effects=FLAK_KILL)
    fly(t2)
    t2.act("air.intercept", {"interceptors": []}, side="axis")
    assert "cw-atr" not in t2.state.units and face_up(t2, "cw-a") is False


def test_step_6_no_aa_unit_no_fire() -> None:
    t = mission(aa_code="X", aa_effects=FLAK_KILL, flak=0)
    t.act("air.begin", {}, side="allies")
    t.act("air.patrol", {"patrols": []}, side="axis")
    t.act("air.fly", {"power": "cw", "flights": [{"atr": "cw-atr", "hex": "0501",
                                                  "units": ["cw-a"]}]}, side="allies")
    t.act("air.intercept", {"interceptors": []}, side="axis")
    assert data(t, "air.aa_fired") == [] and face_up(t, "cw-a") is True


# ------------------------------------------------------------------ steps 7 and 8


def test_step_7_a_surviving_atr_reorganizes_as_the_atr_method_says_11_18_1() -> None:
    t = mission()
    fly(t)
    t.act("air.intercept", {"interceptors": []}, side="axis")
    done = data(t, "unit.reorganized")[0]
    assert (done["unit"], done["method"], done["cost"], done["path"]["length"]) == (
        "cw-a", "atr", 3, 4)
    assert t.state.powers["cw"].rps == 27 and face_up(t, "cw-a") is True
    assert face_up(t, "cw-atr") is False  # RULES-NOTES 11


def test_step_7_a_large_atr_within_half_range_reorganizes_two_option_36() -> None:
    t = mission(large=True)  # the target is 4 hexes away: beyond half of range 6
    t.act("air.begin", {}, side="allies")
    t.act("air.patrol", {"patrols": []}, side="axis")
    with pytest.raises(Refused):
        t.act("air.fly", {"power": "cw", "flights": [
            {"atr": "cw-atr", "hex": "0501", "units": ["cw-a", "cw-b"]}]}, side="allies")
    t2 = mission(large=True, atr_range=8)
    fly(t2, units=("cw-a", "cw-b"))
    t2.act("air.intercept", {"interceptors": []}, side="axis")
    assert [p["unit"] for p in data(t2, "unit.reorganized")] == ["cw-a", "cw-b"]
    assert face_up(t2, "cw-a") and face_up(t2, "cw-b") and not face_up(t2, "cw-atr")


def test_step_8_every_aircraft_that_flew_returns_to_base_face_down_11_18_1() -> None:
    t = mission()
    t.act("air.begin", {}, side="allies")
    t.act("air.patrol", {"patrols": [{"unit": "ger-ftr-1", "hex": "0501"}]}, side="axis")
    t.act("air.fly", {"power": "cw", "flights": [{"atr": "cw-atr", "hex": "0501",
                                                  "units": ["cw-a"]}],
                      "escorts": [{"unit": "cw-ftr", "hex": "0501"}]}, side="allies")
    t.act("air.intercept", {"interceptors": [{"unit": "ger-ftr-2", "hex": "0501"}]},
          side="axis")
    ended = data(t, "air.mission_ended")[0]
    assert ended["returned"] == ["cw-ftr", "ger-ftr-1", "ger-ftr-2"]
    for uid, base in (("cw-atr", "0101"), ("cw-ftr", "0101"), ("ger-ftr-1", "0901"),
                      ("ger-ftr-2", "1001")):
        assert t.state.units[uid].at == base and not t.state.units[uid].face_up
    # face down, a fighter that flew costs RPs to reorganize like any unit (11.18)
    assert [p["unit"] for p in data(t, "unit.reorganized")] == ["cw-a"]
    act(t, [{"unit": "cw-ftr", "method": "primary", "source": "0101"}])
    assert face_up(t, "cw-ftr") is True and t.state.powers["cw"].rps == 24
    assert replayed(t)


# ------------------------------------------------------------------ the ATR item itself


def test_an_atr_item_that_nobody_could_meet_arrives_at_once() -> None:
    t = mission(ranges={"ger-ftr-1": 3, "ger-ftr-2": 3}, flak=0)
    events = act(t, [{"unit": "cw-a", "method": "atr", "atr": "cw-atr"}])
    assert events[0].data["notes"] == [
        "No enemy fighter can reach 0501 and no AA fires there: the mission meets nobody "
        "(11.18.1 steps 1-6)."]


def test_an_atr_item_enemy_fighters_could_meet_must_fly_its_mission() -> None:
    t = mission()
    error = refuse(t, [{"unit": "cw-a", "method": "atr", "atr": "cw-atr"}])
    assert error.code == "reorg/atr_opposed" and error.rule == "11.18.1"
    assert error.errors[0][1] == (
        "fighters ger-ftr-1 of axis (4 of 4 hexes from 0901), ger-ftr-2 of axis (5 of 5 hexes "
        "from 1001) can patrol or intercept there; AA ger-flak (factor 2) fires there: fly it "
        "as an air reorganization mission (order air.begin), so that they may patrol, "
        "intercept and fire (11.18.1 steps 1-6)")


def test_the_option_off_keeps_the_mission_that_simply_arrives_rn29() -> None:
    t = mission(options={"reorg": {"atr_interception": False}})
    assert "air.begin" not in entry(t)["orders"]
    events = act(t, [{"unit": "cw-a", "method": "atr", "atr": "cw-atr"}])
    assert events[0].data["notes"] == [
        "ATR interception is off in this game (option reorg.atr_interception, RULES-NOTES "
        "29): the mission arrives."]
    with pytest.raises(Refused) as off:
        t.act("air.begin", {}, side="allies")
    assert off.value.code == "air/off"


def test_a_window_waits_for_its_deadline_default_no_interception() -> None:
    t = mission()
    fly(t)
    assert awaiting(t.state)[0]["step"] == "air.intercept"
    t.act("admin.force", {}, role="gm")
    assert texts(t, "air.intercepted") == [
        "axis intercepts (default, by gm): no interception (11.18.1 step 3)."]
    assert t.state.air is None and face_up(t, "cw-a") is True
    assert replayed(t)
