"""Seed 000's 1944 worked example through the pure rules (the same through HTTP:
tests/api/test_reorg_api.py)."""

from __future__ import annotations

import pytest
from engine import Table, skip_initiative, table
from reorg_1944 import EXAMPLE, LIMITS

from service.rules import fold
from service.rules.errors import Refused


def _allies_reorganize() -> Table:
    t = table({"initiative": [5, 5, 5], "weather": [7]}, name="reorg-1944")
    skip_initiative(t, ("allies", "axis", "communists"))
    t.act("declare", {"actions": {"cw": "pass", "usa": "pass"}}, side="allies")
    assert t.state.step == "reorganization" and t.state.turn.step_sides == ("allies",)
    return t


def test_seed_000_1944_example_cw_spends_33_rps_11_18() -> None:
    t = _allies_reorganize()
    assert t.state.powers["cw"].rps == 36
    events = t.act("reorg", {"power": "cw", "items": [item for item, _ in EXAMPLE]},
                   side="allies")
    assert [(e.data["unit"], e.data["method"], e.data["cost"]) for e in events] == [
        (item["unit"], item["method"], cost) for item, cost in EXAMPLE]
    assert sum(e.data["cost"] for e in events) == 33
    assert t.state.powers["cw"].rps == 3  # "it probably doesn't have too many left"
    assert t.state.powers["usa"].rps == 30  # the CW paid for the American ARMdiv
    assert all(t.state.units[item["unit"]].face_up for item, _ in EXAMPLE)
    assert t.state.units["cw-hq-montgomery"].face_up is False
    assert t.state.units["cw-atr-1"].face_up is False
    assert t.initial is not None and fold(t.initial, t.events) == t.state


@pytest.mark.parametrize(("item", "rule", "why"), LIMITS,
                         ids=["third-through-rouen", "second-corps-newcastle",
                              "second-corps-edinburgh", "fourth-for-monty"])
def test_seed_000_1944_example_limits_11_18(item: dict, rule: str, why: str) -> None:
    t = _allies_reorganize()
    t.act("reorg", {"power": "cw", "items": [i for i, _ in EXAMPLE]}, side="allies")
    with pytest.raises(Refused) as refused:
        t.act("reorg", {"power": "cw", "items": [item]}, side="allies")
    assert refused.value.rule == rule
    assert refused.value.errors[0][1] == why
    assert refused.value.code == "reorg/limit_reached"
