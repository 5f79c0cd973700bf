"""Game options are checked before a game exists (docs/rules-options.md): every value
the referee will read is one it can use, and a refusal names the option's path."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules.errors import Malformed
from service.rules.options import DEFAULTS, resolve_options


def refused(options: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(Malformed) as caught:
        resolve_options(options, 3, ("axis", "allies", "communists"))
    assert caught.value.code == "game/invalid_options"
    return [tuple(e) for e in caught.value.errors]  # type: ignore[misc]


def test_terrain_cost_takes_every_terrain_of_the_scenario_format() -> None:
    """RULES-NOTES 26: desert or urban may cost extra too, not only the four defaults."""
    merged = resolve_options({"supply": {"terrain_cost": {"desert": 2, "urban": 0}}}, 3)
    assert merged["supply"]["terrain_cost"] == {"desert": 2, "urban": 0}
    assert DEFAULTS["supply"]["terrain_cost"]["mountain"] == 1  # the defaults untouched


def test_terrain_cost_refuses_an_unknown_terrain_or_a_cost_beyond_20() -> None:
    problems = refused({"supply": {"terrain_cost": {"lava": 1, "swamp": 99, "forest": True}}})
    paths = [p for p, _ in problems]
    assert paths == ["/options/supply/terrain_cost/lava",
                     "/options/supply/terrain_cost/swamp",
                     "/options/supply/terrain_cost/forest"]
    assert "unknown terrain 'lava'" in problems[0][1]


def test_coastal_types_are_unit_types() -> None:
    """RULES-NOTES 2: a misspelt type would silently keep a unit from tracing overseas."""
    assert resolve_options({"reorg": {"coastal_types": ["INF", "FB"]}}, 3)[
        "reorg"]["coastal_types"] == ["INF", "FB"]
    problems = refused({"reorg": {"coastal_types": ["INF", "INFANTRY"]}})
    assert problems[0][0] == "/options/reorg/coastal_types/1"
    assert "'INFANTRY'" in problems[0][1]


@pytest.mark.parametrize("value", [101, -1, "3", True])
def test_missed_deadlines_has_the_same_bounds_for_the_game_and_for_a_side(value: object
                                                                          ) -> None:
    game = refused({"dropout": {"missed_deadlines": value}})
    side = refused({"dropout": {"sides": {"axis": {"missed_deadlines": value}}}})
    assert game == [("/options/dropout/missed_deadlines", "expected an integer 0-100")]
    assert side == [("/options/dropout/sides/axis/missed_deadlines",
                     "expected an integer 0-100")]
