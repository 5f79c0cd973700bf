"""Reorganization after play (11.18): what the impulse's moves, missions and combats
leave to reorganize, and with what, on the `modes` test scenario (modes_kit.py)."""

from __future__ import annotations

from typing import Any

from engine import Table
from modes_kit import game, mode, move, next_impulse, refused, report, until

from service.rules.view import Viewer, view


def _reorg(t: Table, items: list[dict[str, Any]], power: str = "germany") -> None:
    t.act("reorg", {"power": power, "items": items}, side=t.state.powers[power].side)


def _rail_left(t: Table, power: str = "germany") -> Any:
    seen = view(t.state, Viewer(role="player", player_id="p-axis", side="axis",
                                powers=("germany",)))
    return seen["reorg"]["rail_moves"][power]["left"]["moves"]


def test_rail_moves_are_shared_by_movement_and_railway_reorganization_11_18_6() -> None:
    """11.18.6: "A major power may utilize any unused rail moves to rail RPs to units":
    rail moves reported in the impulse's movement and railway reorganization count
    against the power's rail moves for the impulse (3 here); the one too many is
    refused, and the view shows what is left."""
    t = game({"ger-inf-3": {"face_up": False}, "ger-art-1": {"face_up": False},
              "ger-inf-2": {"at": "h41"}}, powers={"germany": {"rail_moves": 3}},
             hexes={"h42": {"rail": True}, "h43": {"rail": True}})
    assert _rail_left(t) == 3
    mode(t, ("ger-arm-1", "move"), ("ger-inf-2", "move"), ("ger-hq-1", "move"))
    report(t, moves=[move("ger-arm-1", "h42", "rail"), move("ger-inf-2", "h43", "rail")])
    assert _rail_left(t) == 1
    refused(lambda: report(t, moves=[move("ger-hq-1", "h42", "rail"),
                                     move("ger-repl-1", "h42", "rail")]),
            "11.18.6", "ger-repl-1", "/body/moves/1/transport")
    assert t.state.units["ger-hq-1"].at == "h41" and _rail_left(t) == 1
    until(t, "reorganization")
    assert _rail_left(t) == 1  # movement's rail moves are spent for reorganization too
    _reorg(t, [{"unit": "ger-inf-3", "method": "rail", "source": "h41"}])
    assert _rail_left(t) == 0
    error = refused(lambda: _reorg(t, [{"unit": "ger-art-1", "method": "rail",
                                        "source": "h41"}]), "11.18.6")
    assert error.errors[0][1] == ("germany has no rail move left this impulse (3 of 3 used, "
                                  "by moves and railway reorganization)")


# A German major port on h43 with a sea area, a destroyer in it and one at sea.
NAVY: dict[str, Any] = {
    "hexes": {"h43": {"port": "major", "seas": ["east-sea"], "city": "Nordhafen"}},
    "seas": [{"id": "east-sea", "adjacent": []}],
    "extra": [{"id": "ger-dd-1", "power": "germany", "class": "naval", "type": "DD",
               "size": None, "cost": 4, "at": "h43"},
              {"id": "ger-dd-2", "power": "germany", "class": "naval", "type": "DD",
               "size": None, "cost": 4, "at": "east-sea"}],
}


def _impulse_played(**kw: Any) -> Table:
    """Germany's impulse: ger-inf-2 moves, ger-dd-1 puts to sea, ger-ftr-1 flies ground
    support, and in the combat step ger-inf-1 attacks cw-inf-1 and shatters it."""
    t = game(**NAVY, **kw)
    report(t, moves=[move("ger-inf-2", "h42"), {"unit": "ger-dd-1", "to": "east-sea",
                                                    "mp": 2}],
           missions=[{"unit": "ger-ftr-1", "to": "h31", "mission": "ground support"}])
    until(t, "combat")
    report(t, combats=[{"by": "combat", "hex": "h21", "attackers": ["ger-inf-1"],
                        "results": [{"kind": "shattered", "units": ["cw-inf-1"]}]}])
    return t


def test_units_that_moved_attacked_flew_or_were_at_sea_turn_face_down_by_the_rules_11_18(
) -> None:
    """11.18: reorganization turns face-down units up "to move and attack again", so what
    moved or attacked turns face down: at the phasing side's clean up (land and naval
    units that moved or attacked, its naval units at sea), air units as they return from
    a mission (11.18.1 step 8); no report needed. Units that did nothing stay up."""
    t = _impulse_played()
    assert not t.state.units["ger-ftr-1"].face_up  # back at base, at once
    assert t.state.units["ger-ftr-1"].at == "h41"
    assert t.state.units["ger-inf-2"].face_up  # moved: it may still attack this impulse
    until(t, "reorganization")
    turned = [e for e in t.events if e.kind == "units.turned_face_down"][-1]
    assert turned.data["units"] == ["ger-dd-1", "ger-dd-2", "ger-inf-1", "ger-inf-2"]
    up = {u for u, s in t.state.units.items() if s.face_up and s.power == "germany"}
    assert {"ger-arm-1", "ger-art-1", "ger-hq-1"} <= up
    assert not up & {"ger-dd-1", "ger-dd-2", "ger-inf-1", "ger-inf-2", "ger-ftr-1"}
    # now 11.18's costs and methods apply to them: at sea (11.18.10) at the first-round
    # cost, the fighter by HQ at its airframe's cost
    _reorg(t, [{"unit": "ger-dd-1", "method": "at_sea", "port": "h43"},
               {"unit": "ger-ftr-1", "method": "hq", "hq": "ger-hq-1"}])
    costs = [e.data["cost"] for e in t.events if e.kind == "unit.reorganized"]
    assert costs == [4, 2]
    assert t.state.units["ger-dd-1"].face_up and t.state.units["ger-ftr-1"].face_up


def test_combat_results_shatter_units_which_need_two_reorganizations_11_18() -> None:
    """A combat result shatters cw-inf-1: face down and shattered, its first
    reorganization (in the CW's next reorganization step) leaves it face down."""
    t = _impulse_played()
    cw = t.state.units["cw-inf-1"]
    assert (cw.face_up, cw.shattered) == (False, True)
    next_impulse(t)
    t.act("declare", {"actions": {"cw": "pass"}}, side="allies")
    assert t.state.step == "reorganization"
    _reorg(t, [{"unit": "cw-inf-1", "method": "primary", "source": "h01"}], power="cw")
    cw = t.state.units["cw-inf-1"]
    assert (cw.face_up, cw.shattered) == (False, False)
    refused(lambda: _reorg(t, [{"unit": "cw-inf-1", "method": "primary", "source": "h01"}],
                           power="cw"), "11.18")


def test_the_naval_chit_reorganizes_naval_units_turned_face_down_at_sea_11_18_11() -> None:
    t = game(**NAVY, declare={"germany": "naval"},
             chits={"germany": {"kind": "naval", "hq": "ger-hq-1"}})
    until(t, "reorganization")
    assert not t.state.units["ger-dd-2"].face_up  # at sea at clean up
    _reorg(t, [{"unit": "ger-dd-2", "method": "chit"}])
    assert t.state.units["ger-dd-2"].face_up and t.state.powers["germany"].rps == 35


def test_face_down_option_report_leaves_flips_to_the_players_rn18() -> None:
    """Option `reorg.face_down` "report": nothing turns face down at clean up; the report's
    face_down list does it (air units still land face down)."""
    t = _impulse_played(options={"reorg": {"face_down": "report"}})
    report(t, face_down=["ger-inf-1"])
    until(t, "reorganization")
    units = t.state.units
    assert not units["ger-inf-1"].face_up and not units["ger-ftr-1"].face_up
    assert units["ger-inf-2"].face_up and units["ger-dd-1"].face_up


def test_naval_combat_and_air_mission_results_shatter_units_11_18() -> None:
    """Naval combat (in the action or combat step) and air missions report their results
    from the table: shattered units need two reorganizations (11.18), eliminated ones
    leave the map; face-down units neither fight nor fly (RULES-NOTES 27)."""
    cw_dd = {"id": "cw-dd-1", "power": "cw", "class": "naval", "type": "DD", "size": None,
             "cost": 4, "at": "east-sea"}
    lnd = {"id": "ger-lnd-1", "power": "germany", "class": "air", "type": "LND",
           "size": None, "cost": 3, "at": "h41"}
    t = game(**{**NAVY, "extra": [*NAVY["extra"], cw_dd, lnd]})
    report(t, combats=[{"by": "naval", "hex": "east-sea", "attackers": ["ger-dd-2"],
                        "results": [{"kind": "shattered", "units": ["cw-dd-1", "ger-dd-2"]}]}],
           missions=[{"unit": "ger-ftr-1", "to": "east-sea", "result": "shattered"},
                     {"unit": "ger-lnd-1", "to": "h21", "result": "eliminated"}])
    units = t.state.units
    for uid in ("cw-dd-1", "ger-dd-2", "ger-ftr-1"):
        assert (units[uid].face_up, units[uid].shattered) == (False, True), uid
    assert "ger-lnd-1" not in units and t.state.modes.eliminated["ger-lnd-1"] == "h41"
    refused(lambda: report(t, missions=[{"unit": "ger-ftr-1", "to": "h31"}]),
            "RULES-NOTES 27", "ger-ftr-1", "/body/missions/0")
    refused(lambda: report(t, combats=[{"by": "naval", "hex": "east-sea",
                                        "attackers": ["ger-dd-2"]}]),
            "RULES-NOTES 27", "ger-dd-2", "/body/combats/0/attackers/0")
    refused(lambda: report(t, combats=[{"by": "naval", "hex": "east-sea",
                                        "attackers": ["ger-dd-1"]}]),
            "RULES-NOTES 31", "ger-dd-1", "/body/combats/0/attackers/0")  # in port, not at sea
