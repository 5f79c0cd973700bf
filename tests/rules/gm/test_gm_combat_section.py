"""A game without combat tables gets its combat section from its GM (docs/game-master.md
"Rules versions"): a game created under rules version 1, before combats were decided by
tables, has none, and its land combats are refused (RULES-NOTES 32) until the GM sets
one; the section is checked as the scenario format checks it, decides every combat from
then on, survives a snapshot and a hex edit, and is not changed once it has tables."""

from __future__ import annotations

import pytest
from combat_kit import attack, combat_section, one_code
from modes_kit import game, report, until

from service.rules.codec import to_data
from service.rules.errors import Malformed, Refused
from service.rules.state import state_from_data

ELIMINATED = one_code("DE", [{"kind": "defender_eliminated"}], title="the club's own")


def test_the_gm_sets_the_combat_section_of_a_game_without_tables() -> None:
    t = game(combat={})  # tables, but none given: no land combat (as a version-1 game)
    until(t, "combat")
    with pytest.raises(Refused) as refused:
        attack(t, "h21", "ger-inf-1")
    assert refused.value.code == "report/no_table"
    assert "the GM may set the game's combat section (admin.edit combat)" in \
        refused.value.message

    with pytest.raises(Malformed) as bad:
        t.act("admin.edit", {"combat": {"results": "dice"}, "reason": "typo"}, role="gm")
    assert (bad.value.code, bad.value.errors[0][0]) == ("edit/invalid", "/combat/results")
    [edited] = t.act("admin.edit", {"combat": combat_section(ELIMINATED),
                                    "reason": "our group's table"}, role="gm")
    assert edited.kind == "state.edited"
    assert edited.text == ("The GM edits the state: combat section set: land decided by "
                           "the tables. Reason: our group's table")
    assert edited.data["combat"]["land"]["title"] == "the club's own"
    assert t.state.setup.scenario.combat.how("combat") == "table"
    # A snapshot keeps it, and so does a later hex edit (both rebuild the scenario).
    again = state_from_data(to_data(t.state), t.state.setup.original())
    assert again.setup.scenario.combat == t.state.setup.scenario.combat
    t.act("admin.edit", {"hexes": {"h00": {"controller": "germany"}}, "reason": "x"},
          role="gm")
    assert t.state.setup.scenario.combat.how("combat") == "table"

    attack(t, "h21", "ger-inf-1")
    assert "cw-inf-1" in t.state.modes.eliminated
    with pytest.raises(Refused) as fixed:
        t.act("admin.edit", {"combat": {"results": "reported"}, "reason": "undo"},
              role="gm")
    assert fixed.value.code == "edit/combat_tables_set"


def test_players_reporting_results_keep_doing_so_when_the_gm_says_so() -> None:
    """The section a version-1 game played by: results reported by the players."""
    t = game(combat={})
    until(t, "combat")
    t.act("admin.edit", {"combat": {"results": "reported"}, "reason": "as before"},
          role="gm")
    assert t.state.setup.scenario.combat.how("combat") == "reported"
    report(t, combats=[{"by": "combat", "hex": "h21", "attackers": ["ger-inf-1"],
                        "dice": "2d6"}])
    assert "h21" in t.state.modes.combats  # rolled; its results are the players' report
    with pytest.raises(Refused) as waiting:
        t.act("admin.edit", {"combat": combat_section(ELIMINATED), "reason": "tables"},
              role="gm")
    assert waiting.value.code == "edit/combat_open"
