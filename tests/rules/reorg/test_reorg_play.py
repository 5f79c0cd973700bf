"""Reorganization after play (11.18): what the impulse's moves, missions and combats
leave to reorganize, and with what, on the `modes` test scenario (modes_kit.py)."""

from __future__ import annotations

from typing import Any

from engine import Table
from modes_kit import game, mode, move, refused, report, until

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
    t = game({"ger-inf-3": {"face_up": False}, "ger-art-1": {"face_up": False}},
             powers={"germany": {"rail_moves": 3}})
    assert _rail_left(t) == 3
    mode(t, ("ger-arm-1", "move"), ("ger-inf-2", "move"), ("ger-hq-1", "move"))
    report(t, moves=[move("ger-arm-1", "h42", 0, "rail"), move("ger-inf-2", "h43", 0, "rail")])
    assert _rail_left(t) == 1
    refused(lambda: report(t, moves=[move("ger-hq-1", "h42", 0, "rail"),
                                     move("ger-repl-1", "h42", 0, "rail")]),
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
