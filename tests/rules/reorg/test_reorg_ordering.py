"""Properties of the `reorg` order (hypothesis): the verdict on a set of reorganizations
does not depend on the order of its items, nor on how they are split into orders
(11.18.2: an HQ reorganized this impulse does not flip to reorganize others, and one
that flipped is not reorganized; checked item by item against the state the earlier
items produce)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from reorg_kit import at_step, doc

from service.rules.errors import RulesError

PRIMARY = {"0101": ("primary", "cw"), "0301": ("secondary", "cw")}

# The HQs: cw-hq-1 (face up, value 2) and cw-hq-3 (face up, value 1) may reorganize
# cw-hq-2 (face down, value 2), which could then flip to reorganize cw-x; cw-hq-3 may
# flip first and then be reorganized. Divisions, so no primary source's corps limit.
UNITS = [("cw-hq-1", "cw", "HQ", "0201", "combat"), ("cw-hq-2", "cw", "HQ", "0201", "combat"),
         ("cw-hq-3", "cw", "HQ", "0301", "combat"),
         ("cw-x", "cw", "INFdiv", "0301", "combat"), ("cw-y", "cw", "INFdiv", "0301", "combat"),
         ("cw-z", "cw", "INFdiv", "0401", "combat")]
DOWN = ["cw-hq-2", "cw-x", "cw-y", "cw-z"]


def _position() -> Any:
    data = doc(". . . . . .", sources=PRIMARY, units=UNITS, down=DOWN,
               hq_values={"cw-hq-1": 2, "cw-hq-2": 2, "cw-hq-3": 1})
    return at_step(data, rps={"cw": 100})


HQ2_BY = {  # ways to reorganize cw-hq-2 (each alone is fine)
    "hq": {"unit": "cw-hq-2", "method": "hq", "hq": "cw-hq-1"},
    "primary": {"unit": "cw-hq-2", "method": "primary", "source": "0101"},
    "secondary": {"unit": "cw-hq-2", "method": "secondary", "source": "0301"},
}
HQ2_FLIPS = {"unit": "cw-x", "method": "hq", "hq": "cw-hq-2"}  # needs a face-up cw-hq-2
HQ3_FLIPS = {"unit": "cw-y", "method": "hq", "hq": "cw-hq-3"}
HQ3_REORGANIZED = {"unit": "cw-hq-3", "method": "primary", "source": "0101"}  # once down
OTHERS = [{"unit": "cw-z", "method": "hq", "hq": "cw-hq-1"}]


def _verdict(orders: list[list[dict[str, Any]]]) -> tuple[str, ...]:
    """Accepted ("ok", and what is face up after), or refused with its rule."""
    t = _position()
    for items in orders:
        try:
            t.act("reorg", {"power": "cw", "items": items}, side="allies")
        except RulesError as e:
            return ("refused", str(e.rule))
    return ("ok", *sorted(u for u, s in t.state.units.items() if s.face_up))


@st.composite
def _plays(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[list[dict[str, Any]]]]:
    """A set of items and one way of sending them: shuffled, cut into orders."""
    items: list[dict[str, Any]] = []
    by = draw(st.sampled_from([None, *HQ2_BY]))
    if by is not None:
        items.append(HQ2_BY[by])
    if draw(st.booleans()):
        items.append(HQ2_FLIPS)
    if draw(st.booleans()):
        items += [HQ3_FLIPS, HQ3_REORGANIZED]
    items += [o for o in OTHERS if draw(st.booleans())]
    if not items:
        items = list(OTHERS)
    shuffled = draw(st.permutations(items))
    cuts = sorted(draw(st.sets(st.integers(1, len(items) - 1), max_size=len(items) - 1))
                  if len(items) > 1 else [])
    bounds = [0, *cuts, len(items)]
    return items, [list(shuffled[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]


def _first_refusal(sequence: list[dict[str, Any]]) -> str | None:
    """The rule of the first item refused in `sequence`, or None. cw-hq-2 flips only
    face up, and is face up only once reorganized, which forbids the flip (11.18.2; face
    down, HQ reorganization's own rule, 11.18.2 too); cw-hq-3 that flipped is not
    reorganized (11.18.2), while before it flips it is face up, with nothing to
    reorganize (11.18)."""
    for k, item in enumerate(sequence):
        if item == HQ2_FLIPS:
            return "11.18.2"
        if item == HQ3_REORGANIZED:
            return "11.18.2" if HQ3_FLIPS in sequence[:k] else "11.18"
    return None


@given(_plays())
def test_any_order_of_the_same_items_gives_the_same_verdict_11_18_2(
    play: tuple[list[dict[str, Any]], list[list[dict[str, Any]]]],
) -> None:
    """The items in one order as listed, and shuffled and split into several orders,
    get one verdict: refused when they chain HQs (under 11.18.2, unless an item is
    refused on its own first), else accepted with the same units face up."""
    items, orders = play
    listed = _verdict([items])
    sent = _verdict(orders)
    chained = HQ2_FLIPS in items or HQ3_REORGANIZED in items
    assert listed[0] == sent[0] == ("refused" if chained else "ok"), (orders, listed, sent)
    if chained:
        assert listed[1] == _first_refusal(items), (items, listed)
        assert sent[1] == _first_refusal([i for o in orders for i in o]), (orders, sent)
    else:
        assert listed == sent, (orders, listed, sent)
