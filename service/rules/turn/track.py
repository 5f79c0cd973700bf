"""seed 002 Turn End (the Impulse Track): the passing bonus per turn-end die."""

from __future__ import annotations

from service.rules.state import State


def passing_bonus(state: State, side: str) -> int:
    """Per-die turn-end bonus: the pass bonus of each passing power of `side` that is
    neither neutral nor conquered (seed 002 Effects of Passing; RULES-NOTES 21, 22)."""
    total = 0
    for power_id in state.side_powers(side):
        power = state.powers[power_id]
        if power.declared == "pass" and not power.neutral and not power.conquered:
            total += state.setup.scenario.power(power_id).pass_bonus
    return total
