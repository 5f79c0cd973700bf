"""Refusals name the unit by id and name, not only the item (issue 16, item 5): in the
message and per item (`unit_labels`, the API's `errors[].unit`); a basket (a reorg
order's items) using one ATR or TRS twice names both items and both units."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from modes_kit import game, mode
from reorg_kit import at_step, doc, refuse

from service.rules.errors import RulesError

ROW = ". . . . . . . ."
ROOT = Path(__file__).resolve().parents[2]


def test_a_mode_refusal_names_the_unit_by_id_and_name() -> None:
    t = game()
    with pytest.raises(RulesError) as caught:
        mode(t, ("ger-inf-1", "reserve"))
    error = caught.value
    assert error.message.startswith("ger-inf-1 (germany INF corps) is in an enemy ZOC")
    assert error.unit_labels == {"/body/changes/0/mode": {"id": "ger-inf-1",
                                                           "name": "germany INF corps"}}


def test_a_reorg_refusal_names_the_unit_of_its_item_11_18() -> None:
    t = at_step(doc(ROW, sources={"0101": ("primary", "cw")},
                    units=[("cw-a", "cw", "INF", "0801", "combat")], down=["cw-a"]))
    error = refuse(t, [{"unit": "cw-a", "method": "hq", "hq": "cw-a"}])
    assert "cw-a (cw INF corps)" in error.message
    assert error.unit_labels[error.errors[0][0]] == {"id": "cw-a", "name": "cw INF corps"}


def test_one_atr_in_two_basket_items_names_both_items_11_18_1() -> None:
    t = at_step(doc(ROW, sources={"0101": ("primary", "cw")},
                    units=[("cw-atr", "cw", "ATR", "0101", None),
                           ("cw-a", "cw", "INF", "0401", "combat"),
                           ("cw-b", "cw", "INF", "0501", "combat")],
                    down=["cw-a", "cw-b"],
                    atrs={"cw-atr": {"range": 6, "large": False, "base": "0101"}}))
    error = refuse(t, [{"unit": "cw-a", "method": "atr", "atr": "cw-atr"},
                       {"unit": "cw-b", "method": "atr", "atr": "cw-atr"}])
    assert [path for path, _ in error.errors] == ["/body/items/1/atr", "/body/items/0/atr"]
    assert error.extra["items"] == [0, 1]
    assert {p: x["id"] for p, x in error.unit_labels.items()} == {
        "/body/items/0/atr": "cw-a", "/body/items/1/atr": "cw-b"}
    assert "item 0 (cw-a) of this order uses cw-atr already" in error.message


def _cited_as_rule(tree: ast.AST) -> list[int]:
    """Lines where "docs/api.md" is given as a call's argument (a refusal's rule) or as
    the value of a "rule" key."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            values = [*node.args, *(k.value for k in node.keywords)]
            lines += [v.lineno for v in values
                      if isinstance(v, ast.Constant) and v.value == "docs/api.md"]
        elif isinstance(node, ast.Dict):
            lines += [v.lineno for k, v in zip(node.keys, node.values, strict=True)
                      if isinstance(k, ast.Constant) and k.value == "rule"
                      and isinstance(v, ast.Constant) and v.value == "docs/api.md"]
    return lines


def test_no_refusal_cites_the_api_document_as_its_rule() -> None:
    """Issue 30: a refusal names the rule it enforces (11.18, OCS 5.7c, seed 002,
    RULES-NOTES 31) or, for a body's shape, the item's path alone; never "docs/api.md"."""
    found = {str(p.relative_to(ROOT)): lines for p in sorted((ROOT / "service").rglob("*.py"))
             if (lines := _cited_as_rule(ast.parse(p.read_text())))}
    assert found == {}


def test_refusals_at_the_wrong_step_cite_the_steps_rule() -> None:
    """Where an order comes at the wrong step, the step's own rule is named: an impulse's
    OCS phases (RULES-NOTES 31), the reorganization (11.18)."""
    t = game()
    with pytest.raises(RulesError) as caught:
        t.act("reorg", {"power": "germany", "items": [{"unit": "ger-inf-1",
                                                       "method": "chit"}]}, side="axis")
    assert (caught.value.code, caught.value.rule) == ("order/wrong_step", "11.18")
    with pytest.raises(RulesError) as caught:
        t.act("done", side="allies")
    assert (caught.value.code, caught.value.rule) == ("order/not_your_turn", "RULES-NOTES 31")
    with pytest.raises(RulesError) as caught:
        t.act("report", {"combats": [{"by": "combat", "hex": "h21",
                                      "attackers": ["ger-inf-2"], "dice": "2d6"}]},
              side="axis")
    assert caught.value.rule == "RULES-NOTES 31"
