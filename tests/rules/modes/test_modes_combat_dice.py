"""Combat results through checked forms (issue 16, item 2): the referee rolls a combat's
dice (purpose `combat`, in the log), the combat waits for the result the table reads
from them, results apply the rules (OCS 5.7d, 5.10a) to the units of that combat only."""

from __future__ import annotations

import pytest
from engine import Table
from modes_kit import done, game, refused, report, until

from service.rules.errors import Malformed


def _rolled(t: Table) -> None:
    report(t, combats=[{"by": "combat", "hex": "h21", "attackers": ["ger-inf-1"],
                        "dice": "2d6"}])


def test_the_referee_rolls_a_combats_dice_and_the_log_shows_the_roll() -> None:
    t = game()
    until(t, "combat")
    t.dice.script["combat"] = [4, 9]
    _rolled(t)
    kinds = [e.kind for e in t.events[-3:]]
    assert kinds == ["combat.reported", "dice.rolled", "combat.rolled"]
    roll = t.events[-2].data
    assert (roll["purpose"], roll["values"], roll["faces"], roll["label"]) == (
        "combat", [4, 9], 6, "combat on h21")
    waiting = t.state.modes.combats["h21"]
    assert (waiting.attackers, waiting.defenders, waiting.values) == (("ger-inf-1",),
                                                                      ("cw-inf-1",), (4, 9))
    assert t.state.units["ger-inf-1"].attacked


def test_a_rolled_combat_waits_for_its_results_which_close_it() -> None:
    t = game()
    until(t, "combat")
    t.dice.script["combat"] = [2, 2]
    _rolled(t)
    error = refused(lambda: done(t, "axis"), "RULES-NOTES 31")
    assert error.code == "report/combat_waiting" and "2, 2" in error.message
    refused(lambda: report(t, combats=[{"by": "combat", "hex": "h21",
                                        "attackers": ["ger-inf-1"], "results": []}]),
            "RULES-NOTES 31", path="/body/combats/0")
    report(t, combats=[{"by": "combat", "hex": "h21",
                        "results": [{"kind": "retreat", "units": ["cw-inf-1"],
                                     "path": ["h11", "h01"]}]}])
    assert t.state.units["cw-inf-1"].mode == "dg"  # two hexes: DG (OCS 5.10a B)
    assert t.events[-1].kind == "combat.closed" and t.state.modes.combats == {}
    done(t, "axis")


def test_results_name_units_of_the_rolled_combat_only() -> None:
    t = game({"cw-inf-2": {"at": "h20"}})
    until(t, "combat")
    _rolled(t)
    refused(lambda: report(t, combats=[{"by": "combat", "hex": "h21",
                                        "results": [{"kind": "loss", "unit": "cw-inf-2"}]}]),
            "RULES-NOTES 31", "cw-inf-2", "/body/combats/0/results/0/unit")


@pytest.mark.parametrize(("dice", "results", "where"), [
    ("2d6", [{"kind": "dg"}], "/body/combats/0/results"),
    ("2d99", [], "/body/combats/0/dice"),
])
def test_dice_and_results_do_not_come_together(dice: str, results: list[object],
                                               where: str) -> None:
    t = game()
    until(t, "combat")
    with pytest.raises(Malformed) as caught:
        report(t, combats=[{"by": "combat", "hex": "h21", "attackers": ["ger-inf-1"],
                            "dice": dice, "results": results}])
    assert caught.value.errors[0][0] == where


def test_clean_up_drops_a_rolled_combat_left_without_results() -> None:
    t = game()
    until(t, "combat")
    _rolled(t)
    t.act("admin.force", {"reason": "the table went home"}, role="gm")
    assert t.state.modes.combats == {}


def test_a_retreat_never_enters_a_hex_twice() -> None:
    t = game()
    until(t, "combat")
    refused(lambda: report(t, combats=[{"by": "combat", "hex": "h21",
                                        "attackers": ["ger-inf-1"],
                                        "results": [{"kind": "retreat", "units": ["cw-inf-1"],
                                                     "path": ["h11", "h21"]}]}]),
            "RULES-NOTES 31", path="/body/combats/0/results/0/path/1")
