"""Refusals name the unit by id and name, not only the item (issue 16, item 5): in the
message and per item (`unit_labels`, the API's `errors[].unit`); a basket (a reorg
order's items) using one ATR or TRS twice names both items and both units."""

from __future__ import annotations

import pytest
from modes_kit import game, mode
from reorg_kit import at_step, doc, refuse

from service.rules.errors import RulesError

ROW = ". . . . . . . ."


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
