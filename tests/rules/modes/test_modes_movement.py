"""Moves refereed on the map (issue 16): each mode's allowance (OCS 5.5-5.10b), the
terrain effects table, hexside features and the weather, enemy ZOC, stacking, the path
the referee fills in and the MP it answers; on small hand-drawn maps (map_art.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from engine import ScriptDice, Table, skip_initiative
from modes_kit import mode, refused, until
from move_kit import drawn_game, go, land, moved, moves

from service.rules import Setup, initial_state
from service.rules.board import ONE_HEX_RULE, TERRAIN_RULE, ZOC_RULE
from service.rules.errors import Refused
from service.rules.modes.movement import STACKING_RULE
from service.rules.options import resolve_options
from service.rules.scenario import load_builtin_scenario

LINE = "g g g g g g g g"  # 0101 ... 0801, Germany's, clear


# ------------------------------------------------------------------ each mode's MA


def test_5_5_combat_mode_moves_its_combat_side_ma() -> None:
    t = drawn_game(LINE, land("ger-inf-1", "0101", combat=3, move=6))
    error = refused(lambda: moves(t, go("ger-inf-1", "0501", "0201", "0301", "0401")),
                    "OCS 5.5", "ger-inf-1", "/body/moves/0/path/3")
    assert error.extra["hex"] == "0501" and error.extra["mp"] == 4
    assert "it costs 4 MP" in error.message and "3 of 3 MP left" in error.message
    moves(t, go("ger-inf-1", "0401"))
    assert (moved(t, "ger-inf-1")["mp"], moved(t, "ger-inf-1")["filled"]) == (3, True)


def test_5_6_move_mode_moves_its_move_side_ma() -> None:
    t = drawn_game(LINE, land("ger-inf-1", "0101", combat=3, move=6))
    mode(t, ("ger-inf-1", "move"))
    refused(lambda: moves(t, go("ger-inf-1", "0801")), "OCS 5.6", "ger-inf-1", "/body/moves/0/to")
    moves(t, go("ger-inf-1", "0701"))
    assert moved(t, "ger-inf-1")["mp"] == 6


def test_5_7_reserve_mode_moves_a_quarter_of_its_ma() -> None:
    t = drawn_game(LINE, land("ger-inf-1", "0101", mode="reserve", orientation="move", move=8))
    refused(lambda: moves(t, go("ger-inf-1", "0401", "0201", "0301")), "OCS 5.7", "ger-inf-1",
            "/body/moves/0/path/2")
    moves(t, go("ger-inf-1", "0301", "0201"))
    assert moved(t, "ger-inf-1")["mp"] == 2


def test_5_8_strat_mode_moves_twice_its_ma() -> None:
    t = drawn_game(LINE, land("ger-inf-1", "0101", mode="strat", orientation="move", move=2),
                   sources={"0101": ("primary", "germany")})
    refused(lambda: moves(t, go("ger-inf-1", "0601")), "OCS 5.8", "ger-inf-1")
    moves(t, go("ger-inf-1", "0501"))
    assert moved(t, "ger-inf-1")["mp"] == 4


def test_5_9_exploitation_mode_moves_half_its_ma() -> None:
    t = drawn_game(LINE, land("ger-inf-1", "0101", mode="exploit", orientation="combat",
                              combat=4))
    until(t, "exploitation")
    refused(lambda: moves(t, go("ger-inf-1", "0401")), "OCS 5.9", "ger-inf-1")
    moves(t, go("ger-inf-1", "0301"))
    assert moved(t, "ger-inf-1")["mp"] == 2


def test_5_10b_dg_mode_moves_half_its_ma() -> None:
    t = drawn_game(LINE, land("ger-inf-1", "0101", mode="dg", orientation="move", move=6))
    refused(lambda: moves(t, go("ger-inf-1", "0501")), "OCS 5.10b", "ger-inf-1")
    moves(t, go("ger-inf-1", "0401"))
    assert moved(t, "ger-inf-1")["mp"] == 3


def test_ocs_6_1c_a_unit_that_has_not_moved_may_always_move_one_hex() -> None:
    """OCS 6.1c (the Play Note of OCS 5.7): a Reserve unit with 3/4 MP still enters a
    forest hex, spending all it has; it moves no further in the step."""
    t = drawn_game(LINE, land("ger-inf-1", "0101", mode="reserve", orientation="move", move=3),
                   terrain={"0201": "forest"})
    moves(t, go("ger-inf-1", "0201"))
    data = moved(t, "ger-inf-1")
    assert (data["cost"], data["mp"]) == (2, 0.75)
    assert ONE_HEX_RULE in data["notes"][0]
    refused(lambda: moves(t, go("ger-inf-1", "0301")), "OCS 5.7", "ger-inf-1")


# ------------------------------------------------------------------ the terrain table


def test_terrain_forest_costs_a_leg_unit_2_mp_and_a_motorized_unit_3() -> None:
    t = drawn_game(LINE, land("ger-inf-1", "0101", combat=4),
                   land("ger-arm-1", "0101", type="ARM", combat=4),
                   terrain={"0201": "forest"})
    moves(t, go("ger-inf-1", "0301"), go("ger-arm-1", "0201"))
    assert moved(t, "ger-inf-1")["mp"] == 3  # forest 2 + clear 1
    assert moved(t, "ger-arm-1")["mp"] == 3  # forest 3


def test_terrain_the_scenario_table_replaces_the_default_and_may_close_a_terrain() -> None:
    swamp = {"terrain": {"swamp": {"leg": 4, "motorized": None}}}
    t = drawn_game(LINE, land("ger-inf-1", "0101", combat=4),
                   land("ger-arm-1", "0101", type="ARM", combat=4),
                   terrain={"0201": "swamp"}, movement=swamp)
    error = refused(lambda: moves(t, go("ger-arm-1", "0201")), TERRAIN_RULE, "ger-arm-1",
                    "/body/moves/0/to")
    assert error.code == "report/terrain" and error.extra["hex"] == "0201"
    moves(t, go("ger-inf-1", "0201"))
    assert moved(t, "ger-inf-1")["mp"] == 4


def test_terrain_a_river_hexside_costs_extra_to_cross() -> None:
    t = drawn_game(LINE, land("ger-inf-1", "0101", combat=4),
                   land("ger-arm-1", "0101", type="ARM", combat=4),
                   hexsides=[("0101", "0201", "river")])
    moves(t, go("ger-inf-1", "0201"), go("ger-arm-1", "0201"))
    assert moved(t, "ger-inf-1")["mp"] == 2  # clear 1 + river 1
    assert moved(t, "ger-arm-1")["mp"] == 3  # clear 1 + river 2


def test_terrain_the_weather_adds_its_cost_to_every_hex_entered() -> None:
    t = drawn_game(LINE, land("ger-inf-1", "0101", combat=4),
                   land("ger-arm-1", "0101", type="ARM", combat=6), weather="blizzard")
    moves(t, go("ger-inf-1", "0301"), go("ger-arm-1", "0301"))
    assert moved(t, "ger-inf-1")["mp"] == 4  # (clear 1 + blizzard 1) x 2
    assert moved(t, "ger-arm-1")["mp"] == 6  # (clear 1 + blizzard 2) x 2


def _dno_forest() -> Table:
    """dno-demo with ussr-inf-1 face up in 1204 (forest), the USSR in its action step."""
    base = load_builtin_scenario("dno-demo")
    units = tuple(replace(u, at="1204", face_up=True) if u.id == "ussr-inf-1" else u
                  for u in base.units)
    sc = replace(base, units=units)
    setup = Setup(game_id="g-dno", scenario=sc, dice_mode="scripted",
                  options=resolve_options(None, 3))
    state = initial_state(setup)
    t = Table(state=state, dice=ScriptDice({"weather": [7] * 5}), initial=state)
    for side in sc.side_ids:
        t.act("seat.take", {"side": side, "powers": None, "name": side,
                            "player_id": f"p-{side}"}, side=side)
    skip_initiative(t, ("communists", "allies", "axis"))
    t.act("declare", {"actions": {"ussr": "land", "communist_china": "pass"}},
          side="communists")
    assert t.state.step == "action"
    return t


def test_terrain_the_forest_move_of_issue_16_is_refused_with_its_cost() -> None:
    """Three forest hexes (1204 -> 1303 -> 1302 -> 1402) reported as 1 MP: an INF corps in
    Combat Mode (MA 3) pays 2 MP a forest hex, 6 MP in all; its MP run out in 1302."""
    t = _dno_forest()
    before = t.state
    error = refused(lambda: moves(t, go("ussr-inf-1", "1402", "1303", "1302", mp=1),
                                  side="communists"),
                    "OCS 5.5", "ussr-inf-1", "/body/moves/0/path/1")
    assert error.extra["hex"] == "1302" and error.extra["mp"] == 6
    assert "it costs 6 MP (forest 2, forest 2, forest 2)" in error.message
    assert t.state is before
    cheapest = refused(lambda: moves(t, go("ussr-inf-1", "1402"), side="communists"),
                       "OCS 5.5", "ussr-inf-1")
    assert cheapest.extra["mp"] == 5  # 1303 forest, 1403 clear, 1402 forest


def test_a_reported_mp_that_is_not_the_cost_is_refused() -> None:
    t = drawn_game(LINE, land("ger-inf-1", "0101", combat=4), terrain={"0201": "forest"})
    error = refused(lambda: moves(t, go("ger-inf-1", "0201", mp=1)), TERRAIN_RULE, "ger-inf-1",
                    "/body/moves/0/mp")
    assert error.code == "report/mp_claim" and error.extra["mp"] == 2
    moves(t, go("ger-inf-1", "0201", mp=2))
    assert moved(t, "ger-inf-1")["mp"] == 2


# ------------------------------------------------------------------ paths

OPEN = """
g g g g
 g g g g
  g g g g
"""


def test_the_referee_fills_in_the_one_cheapest_path_and_says_so() -> None:
    t = drawn_game(OPEN, land("ger-inf-1", "0101", combat=3), terrain={"0102": "forest"})
    moves(t, go("ger-inf-1", "0202"))  # via 0201 (1 + 1): through the forest costs 3
    data = moved(t, "ger-inf-1")
    assert (data["path"], data["filled"], data["mp"]) == (["0201", "0202"], True, 2)
    assert "path filled by the referee" in t.events[-1].text


def test_several_cheapest_paths_need_the_path_played() -> None:
    t = drawn_game(OPEN, land("ger-inf-1", "0101", combat=3))
    error = refused(lambda: moves(t, go("ger-inf-1", "0202")), "RULES-NOTES 31", "ger-inf-1",
                    "/body/moves/0/path")
    assert error.code == "report/path_needed"
    moves(t, go("ger-inf-1", "0202", "0102"))
    assert moved(t, "ger-inf-1")["filled"] is False


def test_neutral_territory_is_closed_to_moves() -> None:
    t = drawn_game("g s g", land("ger-inf-1", "0101"))
    error = refused(lambda: moves(t, go("ger-inf-1", "0201")),
                    "neutral territory (docs/rules-options.md)", "ger-inf-1")
    assert error.extra["hex"] == "0201"


# ------------------------------------------------------------------ enemy ZOC

ZOC_MAP = """
g g g g g
 g g g g .
"""  # cw-inf-1 in 0502 exerts a ZOC into 0402 and 0501 (not 0401 or 0302)


def test_zoc_entering_an_enemy_zoc_ends_the_move() -> None:
    t = drawn_game(ZOC_MAP, land("ger-inf-1", "0102", combat=6),
                   land("cw-inf-1", "0502", power="cw"))
    refused(lambda: moves(t, go("ger-inf-1", "0501", "0202", "0302", "0402")), ZOC_RULE,
            "ger-inf-1", "/body/moves/0/path/3")
    moves(t, go("ger-inf-1", "0402", "0202", "0302"))
    data = moved(t, "ger-inf-1")
    assert (data["cost"], data["mp"]) == (3, 6)  # the rest of its MP are spent
    refused(lambda: moves(t, go("ger-inf-1", "0401")), "OCS 5.5", "ger-inf-1")


def test_zoc_leaving_an_enemy_zoc_is_free_unless_the_option_prices_it() -> None:
    t = drawn_game(ZOC_MAP, land("ger-inf-1", "0402", combat=3),
                   land("cw-inf-1", "0502", power="cw"))
    moves(t, go("ger-inf-1", "0102", "0302", "0202"))
    assert moved(t, "ger-inf-1")["mp"] == 3
    t = drawn_game(ZOC_MAP, land("ger-inf-1", "0402", combat=3),
                   land("cw-inf-1", "0502", power="cw"),
                   options={"movement": {"zoc_exit_cost": 1}})
    refused(lambda: moves(t, go("ger-inf-1", "0102", "0302", "0202")), "OCS 5.5", "ger-inf-1")
    moves(t, go("ger-inf-1", "0202", "0302"))
    assert moved(t, "ger-inf-1")["mp"] == 3  # leaving the ZOC 1 + clear 1 + clear 1


def test_zoc_option_free_lets_units_move_through_an_enemy_zoc() -> None:
    t = drawn_game(ZOC_MAP, land("ger-inf-1", "0302", combat=3),
                   land("cw-inf-1", "0502", power="cw"), options={"movement": {"zoc": "free"}})
    moves(t, go("ger-inf-1", "0501", "0402"))  # both in the ZOC
    assert moved(t, "ger-inf-1")["mp"] == 2


def test_zoc_friendly_units_do_not_negate_an_enemy_zoc_for_movement() -> None:
    t = drawn_game(ZOC_MAP, land("ger-inf-1", "0302", combat=3),
                   land("ger-inf-2", "0402", combat=3), land("cw-inf-1", "0502", power="cw"))
    refused(lambda: moves(t, go("ger-inf-1", "0501", "0402")), ZOC_RULE, "ger-inf-1",
            "/body/moves/0/path/1")


def test_5_7c_reserve_units_enter_and_leave_an_enemy_zoc_normally() -> None:
    """OCS 5.7c: "Units already in Reserve Mode can enter/exit ZOC normally": the same
    rule as any unit (entering stops them, leaving is free)."""
    t = drawn_game(ZOC_MAP, land("ger-inf-1", "0302", mode="reserve", orientation="move",
                                 move=8), land("cw-inf-1", "0502", power="cw"))
    moves(t, go("ger-inf-1", "0402"))
    assert moved(t, "ger-inf-1")["mp"] == 2  # entered the ZOC: its 2 MP are spent


def test_5_8a_strat_units_go_round_an_enemy_zoc() -> None:
    t = drawn_game(ZOC_MAP, land("ger-inf-1", "0302", mode="strat", orientation="move",
                                 move=3), land("cw-inf-1", "0502", power="cw"),
                   sources={"0101": ("primary", "germany")})
    refused(lambda: moves(t, go("ger-inf-1", "0402")), "OCS 5.8a", "ger-inf-1",
            "/body/moves/0/to")
    moves(t, go("ger-inf-1", "0401"))
    assert moved(t, "ger-inf-1")["path"] == ["0401"]


# ------------------------------------------------------------------ stacking


def test_stacking_limit_refuses_a_move_that_overstacks_a_hex() -> None:
    units = [land(f"ger-inf-{i}", "0201") for i in (1, 2, 3)]
    t = drawn_game(LINE, *units, land("ger-inf-4", "0101"))
    error = refused(lambda: moves(t, go("ger-inf-4", "0201")), STACKING_RULE, "ger-inf-4",
                    "/body/moves/0/to")
    assert error.extra["hex"] == "0201" and "limit is 3" in error.message


def test_stacking_counts_where_the_reports_moves_end() -> None:
    """Units may pass through a full hex, and one may leave it in the same report as
    another enters."""
    units = [land(f"ger-inf-{i}", "0201") for i in (1, 2, 3)]
    t = drawn_game(LINE, *units, land("ger-inf-4", "0101"))
    moves(t, go("ger-inf-4", "0301", "0201"), go("ger-inf-1", "0301"))
    refused(lambda: moves(t, go("ger-inf-2", "0301"), go("ger-inf-3", "0301")), STACKING_RULE,
            "ger-inf-3", "/body/moves/1/to")
    moves(t, go("ger-inf-2", "0301"), go("ger-inf-3", "0301"), go("ger-inf-1", "0401"))
    assert t.state.units["ger-inf-3"].at == "0301"


def test_stacking_the_scenario_sets_the_limit_and_what_counts() -> None:
    """A division counts 1 and a corps 2 of 4 points here; hedgehogs, supply units and
    transport points count nothing (the default exemptions)."""
    stacking = {"stacking": {"limit": 4, "corps": 2, "division": 1}}
    t = drawn_game(LINE, land("ger-inf-1", "0201"), land("ger-inf-2", "0201", size="division"),
                   land("ger-tp-1", "0201", type="TRANSPORT", kind="transport",
                        mode="move", size="division"),
                   land("ger-inf-3", "0101", size="division"), land("ger-inf-4", "0101"),
                   movement=stacking)
    moves(t, go("ger-inf-3", "0201"))
    refused(lambda: moves(t, go("ger-inf-4", "0201")), STACKING_RULE, "ger-inf-4")


# ------------------------------------------------------------------ refusals change nothing


@pytest.mark.parametrize("item", [
    {"unit": "ger-inf-1", "to": "0501"},
    {"unit": "ger-inf-1", "to": "0301", "path": ["0201", "0301"], "mp": 5},
])
def test_a_refused_move_changes_nothing(item: dict[str, object]) -> None:
    t = drawn_game(LINE, land("ger-inf-1", "0101"))
    before, events = t.state, list(t.events)
    with pytest.raises(Refused):
        moves(t, item)
    assert t.state is before and t.events == events
