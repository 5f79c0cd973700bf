"""Jobs off the loop, and back on it once proven light (service/store/threads.py; issue
33: no request holds the loop over 50 ms, and a hop to a thread for a job of a fifth of
a millisecond made orders 20% dearer)."""

from __future__ import annotations

import threading
import time

import pytest

from service.rules.options import resolve_options
from service.rules.scenario import load_builtin_scenario
from service.rules.state import Setup, initial_state
from service.store.threads import COSTS, LIGHT, PROVEN, measured, size_class, state_class


def _where() -> str:
    return threading.current_thread().name


def _busy(seconds: float) -> str:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass
    return _where()


@pytest.fixture(autouse=True)
def _fresh() -> None:
    COSTS.clear()


async def test_a_kind_runs_on_a_thread_until_it_has_proven_light() -> None:
    loop_thread = _where()
    places = [await measured(("light", 1), _where) for _ in range(PROVEN + 3)]
    assert all(p != loop_thread for p in places[:PROVEN])
    assert places[PROVEN:] == [loop_thread] * 3
    assert COSTS[("light", 1)].runs == PROVEN + 3


async def test_one_long_job_sends_its_kind_back_to_the_threads_for_good() -> None:
    loop_thread = _where()
    for _ in range(PROVEN):
        await measured("bimodal", _where)
    assert await measured("bimodal", _busy, LIGHT * 3) == loop_thread  # proven, so on the loop
    assert COSTS["bimodal"].longest >= LIGHT * 3
    later = [await measured("bimodal", _where) for _ in range(PROVEN * 2)]
    assert loop_thread not in later


async def test_a_kind_never_light_never_runs_on_the_loop() -> None:
    loop_thread = _where()
    places = [await measured("heavy", _busy, LIGHT * 1.5) for _ in range(PROVEN + 5)]
    assert loop_thread not in places


async def test_kinds_are_told_apart() -> None:
    for _ in range(PROVEN):
        await measured(("order", "roll", 8), _where)
    assert COSTS[("order", "roll", 8)].light
    assert ("order", "roll", 9) not in COSTS
    assert await measured(("order", "roll", 9), _where) != _where()


async def test_a_job_that_raises_raises_on_the_loop_and_its_time_counts() -> None:
    def fails() -> None:
        _busy(LIGHT * 2)
        raise LookupError("no such unit")

    with pytest.raises(LookupError, match="no such unit"):
        await measured("fails", fails)
    assert COSTS["fails"].runs == 1
    assert COSTS["fails"].longest >= LIGHT * 2


def test_size_classes_double() -> None:
    assert size_class(164, 144) == size_class(200, 200)  # dno-demo and its like
    assert size_class(20_000, 2_000) > size_class(2_000, 200) > size_class(164, 144)
    scenario = load_builtin_scenario("dno-demo")
    state = initial_state(Setup(game_id="g", scenario=scenario, options=resolve_options(
        {}, len(scenario.sides)), dice_mode="seeded"))
    assert state_class(state) == size_class(164, 144)


def test_every_thread_is_started_when_the_process_starts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`threads.start()` (the serving process calls it as it starts, `app.settle`): a
    submission that finds no idle thread starts one, and the loop waits until it runs
    (a 59 ms hold under the soak, on a busy machine). Once started, a job starts none."""
    from service.store import threads

    monkeypatch.setattr(threads, "_pool", None)
    threads.start()
    pool = threads._executor()
    try:
        started = set(pool._threads)
        assert len(started) == threads.THREADS
        assert all(t.is_alive() for t in started)
        pool.submit(time.sleep, 0).result()
        assert set(pool._threads) == started
    finally:
        pool.shutdown()


async def test_the_server_starts_its_threads(app: object) -> None:
    from service.store import threads

    assert len(threads._executor()._threads) == threads.THREADS


def test_no_route_sends_its_dependencies_or_itself_to_a_thread(migrated_url: str) -> None:
    """FastAPI runs a plain `def` endpoint or dependency on a thread of its pool: a hop
    there and back per request, and the interpreter handed over twice, for work of
    microseconds (a `def known_version` did this for every state, log, dice, export and
    stream read). Every endpoint and dependency of the API is `async def`."""
    import inspect

    from conftest import local_settings
    from fastapi.dependencies.models import Dependant

    from service.app import create_app

    app = create_app(local_settings(migrated_url), database_url=migrated_url)
    routes = [inner for route in app.routes
              for inner in getattr(getattr(route, "original_router", None), "routes",
                                   [route])]
    threaded: list[str] = []

    def walk(dependant: Dependant, path: str) -> None:
        for dependency in dependant.dependencies:
            call = dependency.call
            method = type(call).__call__ if call is not None else None  # a class instance's
            if call is not None and not (inspect.iscoroutinefunction(call) or
                                         inspect.iscoroutinefunction(method)):
                threaded.append(f"{path}: {getattr(call, '__name__', call)}")
            walk(dependency, path)

    checked = 0
    for route in routes:
        dependant = getattr(route, "dependant", None)
        if dependant is None:
            continue
        checked += 1
        if not inspect.iscoroutinefunction(getattr(route, "endpoint", None)):
            threaded.append(f"{route.path}: the endpoint")
        walk(dependant, route.path)
    assert checked > 40  # the API's routes were found
    assert threaded == []
