"""The units' views updated from another version's (`unit_views`, issue 21) are the
views computed whole, on random changes of units, steps, phasing sides and
declarations (a unit's effective values depend on all of them, OCS 5.5-5.10)."""

from __future__ import annotations

from dataclasses import replace
from typing import get_args

from hypothesis import event, given
from hypothesis import strategies as st
from position_kit import change, start

from service.rules import State, Step
from service.rules.view import Viewer, unit_views, view

STEPS: tuple[Step, ...] = get_args(Step)


def _turn_change(state: State, data: st.DataObject) -> State:
    kind = data.draw(st.sampled_from(("step", "phasing", "declared", "mp")))
    event(f"turn: {kind}")
    if kind == "step":
        return replace(state, turn=replace(state.turn, step=data.draw(st.sampled_from(STEPS))))
    if kind == "phasing":
        side = data.draw(st.sampled_from((None, *state.setup.sides)))
        return replace(state, turn=replace(state.turn, phasing_side=side))
    if kind == "declared":
        p = data.draw(st.sampled_from(sorted(state.powers)))
        declared = data.draw(st.sampled_from((None, "pass", "land", "combined")))
        return replace(state, powers={**state.powers, p: replace(state.powers[p],
                                                                 declared=declared)})
    uid = data.draw(st.sampled_from(sorted(state.units)))
    unit = replace(state.units[uid], mp_used=data.draw(st.sampled_from((0.0, 1.0, 2.5))),
                   mp_step=state.turn.step, moved=True)
    return replace(state, units={**state.units, uid: unit})


@given(data=st.data())
def test_unit_views_updated_from_another_version_are_the_views_computed_whole(
    data: st.DataObject,
) -> None:
    state = start(0)
    views = [unit_views(state)]
    for _ in range(data.draw(st.integers(1, 6))):
        if data.draw(st.booleans()):
            state = _turn_change(state, data)
        else:
            state = change(state, data)
        updated = unit_views(state, data.draw(st.sampled_from(views[-2:])))
        whole = unit_views(state)
        assert list(updated.views.items()) == list(whole.views.items())
        assert view(state, Viewer("gm"), updated) == view(state, Viewer("gm"))
        views.append(updated)


def test_a_unit_that_did_not_change_keeps_its_view_and_a_new_step_renews_them_all() -> None:
    state = start(1)
    first = unit_views(state)
    uid = sorted(state.units)[0]
    moved = replace(state, units={**state.units, uid: replace(state.units[uid], moved=True)})
    second = unit_views(moved, first)
    assert second.recomputed == 1
    assert all(second.views[u] is first.views[u] for u in state.units if u != uid)
    stepped = replace(moved, turn=replace(moved.turn, step="combat"))
    assert unit_views(stepped, second).recomputed == len(state.units)
