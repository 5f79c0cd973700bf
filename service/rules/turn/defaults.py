"""Default answers when a deadline passes, the GM forces them or a side is in civil
disorder: declare pass; reroll no; choose first / before; done; last turn's production;
a combat's question its default (docs/api.md "Combat choices"); an ATR mission's window
no patrol, no flight, no interception, the default losses (11.18.1)."""

from __future__ import annotations

from service.rules import air
from service.rules import state as st
from service.rules.flow import Flow
from service.rules.modes import answer_by_default
from service.rules.turn.orders import (
    after_declaring,
    after_producing,
    answer_reroll,
    declare_power,
    side_done,
    submit_production,
)
from service.rules.turn.sequence import choose


def apply_defaults(f: Flow, by: str, sides: frozenset[str] | None = None) -> int:
    """The default action for everyone the game awaits (deadline passed or GM forced),
    or only for `sides` (civil disorder): declare: pass; reroll: no; choose: first /
    before; done-steps: done; production: last turn's figures. Returns how many
    answers were given."""
    s = f.state
    step = s.step
    if s.modes.resolution is not None and s.modes.resolution.question is not None:
        return answer_by_default(f, by, sides)  # a combat's question, not the step
    if s.air is not None and s.air.window:
        return air.answer_by_default(f, by, sides)  # an ATR mission's window (11.18.1)

    def chosen(side: str | None) -> bool:
        return side is not None and (sides is None or side in sides)

    given = 0
    if step == st.DECLARE:
        side = s.turn.phasing_side
        if not chosen(side):
            return 0
        for power in s.side_powers(str(side)):
            if f.state.powers[power].declared is None:
                declare_power(f, power, "pass", None, by)
                given += 1
        after_declaring(f)
    elif step == st.REROLL:
        for side in s.initiative.eligible:
            if side not in f.state.turn.sides_done and chosen(side) and f.state.step == step:
                given += 1
                answer_reroll(f, side, False, by)
    elif step == st.CHOOSE:
        chooser = s.initiative.chooser
        if not chosen(chooser):
            return 0
        first = all(x is None for x in s.initiative.slots)
        choose(f, str(chooser), "first" if first else "before", by)
        given = 1
    elif step == st.PRODUCTION:
        for power, ps in s.powers.items():
            if ps.production is None and chosen(ps.side):
                bp = s.setup.scenario.power(power).build_points
                spent = ps.bp_spent_last_turn if bp is None else min(bp, ps.bp_spent_last_turn)
                submit_production(f, power, spent, min(ps.bp_on_rps, spent), by)
                given += 1
        after_producing(f)
    elif step in st.SIDE_STEPS:
        for side in s.turn.step_sides:
            if side not in f.state.turn.sides_done and f.state.step == step and chosen(side):
                side_done(f, side, by)
                given += 1
    return given
