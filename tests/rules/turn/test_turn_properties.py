"""Properties of the turn (hypothesis): the running total never decreases, a turn always
ends, impulse counts differ by at most one, replay equals the state."""

from __future__ import annotations

from engine import table
from hypothesis import given
from hypothesis import strategies as st

from service.rules import fold
from service.rules.codec import to_data

d10 = st.integers(min_value=1, max_value=10)


@given(
    initiative=st.lists(d10, min_size=6, max_size=6),
    weather=st.lists(d10, min_size=12, max_size=12),
    turn_end=st.lists(d10, min_size=80, max_size=80),
    passes=st.lists(st.booleans(), min_size=60, max_size=60),
)
def test_a_turn_always_ends_with_a_growing_total_and_balanced_impulses(
    initiative: list[int], weather: list[int], turn_end: list[int], passes: list[bool],
) -> None:
    """seed 002 Turn End."""
    t = table({"initiative": initiative, "weather": weather, "turn_end": turn_end})
    totals = [0]
    decisions = iter(passes * 10)
    for _ in range(400):
        if t.state.turn.number > 1 or t.state.step == "production":
            break
        entry = t.awaiting()[0]
        step, side = entry["step"], entry["side"]
        if step == "initiative.reroll":
            t.act("initiative.reroll", {"demand": next(decisions)}, side=side)
        elif step == "initiative.choose":
            first = all(s is None for s in t.state.initiative.slots)
            t.act("initiative.choose",
                  {"position": ("first" if next(decisions) else "last") if first
                   else ("before" if next(decisions) else "after")}, side=side)
        elif step == "declare":
            t.act("declare", {"actions": {p: "pass" if next(decisions) else "land"
                                          for p in entry["powers"]}}, side=side)
        else:
            t.act("done", side=side)
        totals.append(t.state.turn.turn_end_total)
    assert t.state.step == "production", "the turn did not end"
    assert totals == sorted(totals)
    taken = t.events[[e.kind for e in t.events].index("turn.ended")].data["impulses_taken"]
    assert max(taken.values()) - min(taken.values()) <= 1
    assert t.initial is not None
    assert to_data(fold(t.initial, t.events)) == to_data(t.state)
