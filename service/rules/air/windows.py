"""The windows of an air reorganization mission, in the seed's order (11.18.1; docs/api.md
"ATR missions"): the enemies' combat air patrol (step 1), the flight of ATRs and escorts
(step 2), the enemies' interception (step 3), the flying side's interception (step 4);
then the referee fights and fires (steps 5, 6), reorganizes (step 7) and brings every
aircraft home face down (step 8). A window in which no side could fly anything is
skipped and logged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from service.rules.airspace import enemy_over, enemy_sides, reach, target_hexes, window_hexes
from service.rules.flow import Flow
from service.rules.state import AirMission, State

PATROL: Final = "air.patrol"
FLIGHT: Final = "air.flight"
INTERCEPT: Final = "air.intercept"
COUNTER: Final = "air.counter"
CHOICE: Final = "air.choice"
RULES: Final = {PATROL: "11.18.1 step 1", FLIGHT: "11.18.1 step 2",
                INTERCEPT: "11.18.1 step 3", COUNTER: "11.18.1 step 4",
                CHOICE: "11.18.1 step 5"}
# What each window asks, in words.
ASKS: Final = {PATROL: "fly fighters on combat air patrol to potential target hexes",
               FLIGHT: "fly the selected ATRs and escorting fighters to their target hexes",
               INTERCEPT: "fly intercepting fighters to the target hexes",
               COUNTER: "fly intercepting fighters to the target hexes"}


def mission(state: State) -> AirMission:
    assert state.air is not None
    return state.air


def hexes_of(state: State, window: str) -> list[str]:
    """Where `window`'s fighters may fly (`airspace.window_hexes`)."""
    return window_hexes(mission(state), window)


def _open(f: Flow, window: str, sides: Sequence[str]) -> None:
    m = mission(f.state)
    f.emit("air.window_opened", f"{', '.join(sides)}: {ASKS[window]} ({RULES[window]}; "
           f"{m.side}'s air reorganization).",
           {"window": window, "sides": list(sides), "side": m.side, "rule": RULES[window],
            "hexes": hexes_of(f.state, window)})


def _skip(f: Flow, window: str, reason: str) -> None:
    f.emit("air.window_skipped", f"No {window.removeprefix('air.')} window ({RULES[window]}): "
           f"{reason}.", {"window": window, "side": mission(f.state).side, "reason": reason,
                          "rule": RULES[window]})


def open_patrol(f: Flow) -> None:
    """Step 1: every enemy side with a fighter that reaches a potential target hex."""
    m = mission(f.state)
    sides = [e for e in enemy_sides(f.state, m.side) if reach(f.state, e, m.targets)]
    if not sides:
        _skip(f, PATROL, "no enemy fighter can reach a potential target hex")
        open_flight(f)
        return
    _open(f, PATROL, sides)


def open_flight(f: Flow) -> None:
    _open(f, FLIGHT, [mission(f.state).side])


def open_intercept(f: Flow) -> bool:
    """Step 3: every enemy side with a fighter that reaches a target hex; False when
    none has (skipped)."""
    m = mission(f.state)
    hexes = target_hexes(m)
    sides = [e for e in enemy_sides(f.state, m.side) if reach(f.state, e, hexes)]
    if not sides:
        _skip(f, INTERCEPT, "no enemy fighter can reach a target hex")
        return False
    _open(f, INTERCEPT, sides)
    return True


def open_counter(f: Flow) -> bool:
    """Step 4: the flying side, where enemy fighters are over a target hex and one of
    its fighters reaches it; False when skipped."""
    m = mission(f.state)
    hexes = enemy_over(m, target_hexes(m))
    if not hexes:
        _skip(f, COUNTER, "no enemy fighter is over a target hex")
        return False
    if not reach(f.state, m.side, hexes):
        _skip(f, COUNTER, f"no fighter of {m.side} can reach a target hex with enemy "
                          "fighters over it")
        return False
    _open(f, COUNTER, [m.side])
    return True
