"""The serving process collects cyclic garbage less often than Python would
(`GC_THRESHOLD`, docs/scaling.md "The garbage collector"): a full collection walks every
cached state, and at Python's thresholds it paused the server for up to 100 ms every few
hundred orders."""

from __future__ import annotations

import gc
import json
from collections import Counter
from collections.abc import Callable
from typing import TypeVar

import pytest
from pydantic import ValidationError

from service.app import collect_less
from service.handoffs import play
from service.rules import initial_state
from service.rules.codec import to_data
from service.rules.options import resolve_options
from service.rules.scenario import generate_scenario, scenario_to_json
from service.rules.state import State, state_from_data
from service.settings import Settings
from service.store import games

T = TypeVar("T")


def test_the_thresholds_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().gc_threshold == (10_000, 2, 250)
    monkeypatch.setenv("GC_THRESHOLD", "1000,10,10")
    assert Settings().gc_threshold == (1000, 10, 10)
    monkeypatch.setenv("GC_THRESHOLD", "")
    assert Settings().gc_threshold == ()
    for bad in ("1000,10", "a,b,c", "-1,2,3"):
        monkeypatch.setenv("GC_THRESHOLD", bad)
        with pytest.raises(ValidationError, match="three whole numbers"):
            Settings()


def test_starting_sets_them_and_freezes_what_starting_made() -> None:
    before = gc.get_threshold()
    try:
        gc.unfreeze()
        collect_less((12_345, 11, 12))
        assert gc.get_threshold() == (12_345, 11, 12)
        assert gc.get_freeze_count() > 0
        collect_less(())  # empty: Python's thresholds are left as they are
        assert gc.get_threshold() == (12_345, 11, 12)
    finally:
        gc.set_threshold(*before)


async def test_the_server_starts_with_them(app: object) -> None:
    assert gc.get_threshold() == Settings().gc_threshold


def _with_cyclic_garbage(work: Callable[[], T]) -> tuple[T, Counter[str]]:
    """`work()`'s result, and the objects it left in cycles (by type), found with the
    collector off and `DEBUG_SAVEALL`."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        done = work()
        gc.collect()
        left = Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was:
            gc.enable()
    return done, left


def test_playing_leaves_the_cyclic_collector_nothing_of_the_rules() -> None:
    """Boards, their memoized grounds and networks, states and views are freed by
    reference counting when the last reference goes: none of them is left in a cycle
    for the collector (a board that its memoized `Ground` pointed back to made every
    order's garbage cyclic, and the serving process's collections of it held the loop
    67-89 ms; docs/performance.md "Memory under long play")."""
    play(turns=1, seed=3, standing=True)  # first uses fill module-level caches
    played, left = _with_cyclic_garbage(lambda: play(turns=2, seed=3, standing=True))
    assert played.turns == 2 and len(played.impulses) > 10
    ours = {kind: n for kind, n in left.items() if kind.startswith("service.")}
    assert ours == {}
    assert sum(left.values()) < 50, left.most_common(10)


def test_loading_a_big_game_leaves_the_cyclic_collector_nothing() -> None:
    """What a big game's first load in a process makes (its scenario parsed, its state
    from a snapshot) is freed by reference counting: a leftover in a cycle would wait for
    a full collection, which walks every cached game (docs/performance.md "Memory and
    the loop for an hour")."""
    text = json.dumps(scenario_to_json(generate_scenario(2000, 200, 0)))
    setup = games._parsed_setup("g", text, resolve_options(None, 3), "fair")
    snapshot = json.dumps(to_data(initial_state(setup)))

    def load() -> State:
        parsed = games._parsed_setup("g", text, resolve_options(None, 3), "fair")
        return state_from_data(json.loads(snapshot), parsed)

    state, left = _with_cyclic_garbage(lambda: [load(), load()][-1])
    parsed = state.setup
    assert len(state.units) == 200 and len(parsed.scenario.map.hexes) == 2000
    assert sum(left.values()) == 0, left.most_common(10)
