"""The supply report updated from the previous position's (`supply_since`, issue 21)
equals the report computed whole (`state_supply`, the reference), on random
sequences of moves, mode and orientation changes, face flips, changes of side,
eliminations, naval moves, weather, GM control edits (11.18's sources change hands),
repaired ports and neutrality, on generated maps."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import event, given
from hypothesis import strategies as st
from position_kit import change, start

from service.rules.board import state_supply, supply_memo, supply_since
from service.rules.state import HexEdit, with_map_edits


@given(seed=st.integers(0, 2), data=st.data())
def test_the_supply_report_updated_since_an_earlier_position_is_the_report_computed_whole(
    seed: int, data: st.DataObject,
) -> None:
    state = start(seed)
    memos = [supply_memo(state)]
    for _ in range(data.draw(st.integers(1, 8))):
        state = change(state, data)
        previous = data.draw(st.sampled_from(memos[-3:]))  # the newest, or a few back
        memo = supply_since(previous, state)
        event(memo.how)
        assert list(memo.report.items()) == list(state_supply(state).items())
        memos.append(memo)


def test_a_step_patches_the_searches_around_it_and_asks_few_units_again() -> None:
    """A unit exerting a ZOC (RULES-NOTES 28) steps into the next hex: the searches are
    patched around the two hexes, and only units near them are asked again."""
    state = start(0)
    memo = supply_memo(state)
    board = memo.board
    uid = next(u for u in sorted(board.unit_hex) if state.units[u].mode in ("combat", None)
               and state.setup.scenario.unit(u).type == "INF")
    here = state.units[uid].at
    moved = replace(state, units={**state.units, uid: replace(
        state.units[uid], at=board.neighbours(here)[0])})
    after = supply_since(memo, moved)
    assert after.how == "patched"
    assert 1 <= after.recomputed < len(after.report) // 3
    assert list(after.report.items()) == list(state_supply(moved).items())
    again = supply_since(after, replace(moved, turn=replace(moved.turn, impulse=2)))
    assert again.how == "same" and again.report is after.report and again.board is after.board


def test_a_new_basic_path_length_or_a_control_edit_computes_everything_again() -> None:
    state = start(1)
    memo = supply_memo(state)
    snow = replace(state, turn=replace(state.turn, weather={"roll": 2, "supply_path": 2}))
    assert supply_since(memo, snow).how == "full"
    h = state.setup.scenario.map.hexes[0]
    edits = {h.id: HexEdit(None, False)}
    edited = replace(state, map_edits=edits, setup=with_map_edits(state.setup, edits))
    again = supply_since(memo, edited)
    assert again.how == "full"
    assert list(again.report.items()) == list(state_supply(edited).items())
