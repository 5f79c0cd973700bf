"""Properties of the map engine on small random maps, against brute force written
straight from the rules (RULES-NOTES 26, 28; 11.18, 11.18.6): a returned path is
legal step by step and as short as the shortest; "no path" only when exhaustive
search finds none either."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import event, given
from hypothesis import strategies as st
from map_art import CELLS, MINORS, POWERS, Unit, hex_id, scenario_doc, unit_states

from service.rules.board import Board, NoPath, Path, basic_path, rail_path, supply_report
from service.rules.scenario import parse_scenario

SIDE = {p["id"]: p["side"] for p in POWERS}
WAR = {p["id"]: set(p.get("at_war_with", ())) for p in POWERS}
NEUTRAL = {p["id"] for p in POWERS if p.get("neutral")}
MAJOR = {p["id"]: p["id"] for p in POWERS} | {m["id"]: m["controller"] for m in MINORS}
NO_ZOC = {"SUPPLY", "HEDGEHOG", "TRANSPORT", "REPL"}
TRACERS = ("cw", "germany", "usa", "ussr", "greece", "hungary")
UNIT_POWERS = ("germany", "hungary", "italy", "cw", "greece", "usa", "ussr", "spain")
SOURCE = "0101"  # always a CW hex: the CW's primary source
MODES = ("combat", "exploit", "move", "strat", "reserve", "dg")


@dataclass
class World:
    """A drawn map with its rules data, for the oracle."""

    cells: dict[str, tuple[int, int, str]]
    units: list[Unit]
    terrain_cost: dict[str, int]
    board: Board

    def neighbours(self, h: str) -> Iterator[str]:
        q, r, _ = self.cells[h]
        for dq, dr in ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)):
            n = hex_id(q + dq, r + dr)
            if n in self.cells:
                yield n

    def cost(self, h: str) -> int:
        return 1 + self.terrain_cost.get(CELLS[self.cells[h][2]][1], 0)

    def friends(self, power: str) -> set[str]:
        p = MAJOR[power]
        if p in NEUTRAL:
            return {p}
        return {x for x in SIDE if SIDE[x] == SIDE[p] and x not in NEUTRAL}

    def territory_ok(self, power: str, h: str) -> bool:
        controller = CELLS[self.cells[h][2]][0]
        if controller is None:
            return True
        c, p = MAJOR[controller], MAJOR[power]
        return c in self.friends(power) or c in WAR[p]

    def land(self, h: str) -> list[Unit]:
        return [u for u in self.units if u[3] == h and u[2] not in ("FTR", "BB")]

    def forbidden(self, power: str, h: str) -> bool:
        """RULES-NOTES 28 and the territory rules, read plainly."""
        p = MAJOR[power]
        if any(MAJOR[u[1]] in WAR[p] for u in self.land(h)):
            return True
        if not self.territory_ok(power, h):
            return True
        zoc = any(
            MAJOR[u[1]] in WAR[p] and u[2] not in NO_ZOC and u[4] in (None, "combat", "exploit")
            for n in (h, *self.neighbours(h)) for u in self.land(n)
        )
        negated = any(SIDE[MAJOR[u[1]]] == SIDE[p] for u in self.land(h))
        return zoc and not negated

    def rail_ok(self, power: str, h: str) -> bool:
        controller, _, rail = CELLS[self.cells[h][2]]
        return rail and controller is not None and \
            MAJOR[controller] in self.friends(power)


ANY_LAND = ". . . = = ^ % g G h s r u - #"
RAILWAYS = "= = = = = = . G G g s r"


@st.composite
def worlds(draw: st.DrawFn, alphabet: str = ANY_LAND) -> World:
    width = draw(st.integers(2, 5))
    height = draw(st.integers(1, 4))
    chars = st.sampled_from(alphabet.split())
    rows = [[draw(chars) for _ in range(width)] for _ in range(height)]
    rows[0][0] = "."
    art = "\n".join(" ".join(row) for row in rows)
    cells = {hex_id(q, r): (q, r, c) for r, row in enumerate(rows) for q, c in enumerate(row)
             if c != "#"}
    hexes = sorted(cells)
    units: list[Unit] = []
    for k in range(draw(st.integers(0, 6))):
        power = draw(st.sampled_from(UNIT_POWERS))
        at = draw(st.sampled_from(hexes))
        if any(MAJOR[u[1]] in WAR[MAJOR[power]] for u in units if u[3] == at):
            continue  # the scenario format forbids enemies sharing a hex
        utype = draw(st.sampled_from(("INF", "INF", "ARM", "SUPPLY", "TRANSPORT", "FTR")))
        mode = None if utype in ("SUPPLY", "FTR") else \
            "move" if utype == "TRANSPORT" else draw(st.sampled_from(MODES))
        if mode == "reserve":
            mode = "combat"  # Reserve markers are limited per side (OCS 5.4a)
        units.append((f"u{k}", power, utype, at, mode))
    terrain_cost = draw(st.fixed_dictionaries({}, optional={
        "mountain": st.integers(0, 2), "forest": st.integers(0, 2)}))
    doc: dict[str, Any] = scenario_doc(art, units=units, sources={SOURCE: ("primary", "cw")})
    scenario = parse_scenario(doc)
    board = Board.build(scenario, unit_states(scenario, units), terrain_cost)
    return World(cells, units, terrain_cost, board)


def _ends(data: st.DataObject, hexes: list[str]) -> tuple[str, str]:
    """A start and a goal, different when there is a choice (mostly)."""
    start = data.draw(st.sampled_from(hexes))
    others = [h for h in hexes if h != start] or hexes
    goal = data.draw(st.sampled_from(others if data.draw(st.integers(0, 9)) else hexes))
    return start, goal


def _cheapest(world: World, power: str, start: str, goal: str, limit: int) -> int | None:
    """Exhaustive search over simple paths (every entered hex allowed, cost <= limit)."""
    best: int | None = 0 if start == goal else None
    on_path = {start}

    def walk(h: str, spent: int) -> None:
        nonlocal best
        for n in world.neighbours(h):
            if n in on_path or world.forbidden(power, n):
                continue
            c = spent + world.cost(n)
            if c > limit:
                continue
            if n == goal:
                best = c if best is None else min(best, c)
                continue
            on_path.add(n)
            walk(n, c)
            on_path.discard(n)

    walk(start, 0)
    return best


def _flood(world: World, start: str, allowed: Any) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for n in world.neighbours(todo.pop()):
            if n not in seen and allowed(n):
                seen.add(n)
                todo.append(n)
    return seen


def _assert_legal(world: World, power: str, path: Path, start: str, goal: str) -> None:
    assert path.hexes[0] == start and path.hexes[-1] == goal
    assert len(set(path.hexes)) == len(path.hexes)
    for a, b in zip(path.hexes, path.hexes[1:], strict=False):
        assert b in set(world.neighbours(a)), (a, b)
        assert not world.forbidden(power, b), b


@given(worlds(), st.data())
def test_basic_path_is_legal_shortest_and_found_whenever_one_exists_rn26_rn28(
    world: World, data: st.DataObject
) -> None:
    hexes = sorted(world.cells)
    power = data.draw(st.sampled_from(TRACERS))
    start, goal = _ends(data, hexes)
    limit = data.draw(st.integers(-1, 6))
    result = basic_path(world.board, power, start, goal, limit)
    expected = _cheapest(world, power, start, goal, max(0, limit))
    event("no path" if expected is None else "path" if expected else "start is the goal")
    if expected is None:
        assert isinstance(result, NoPath)
        assert result.reason and result.rule
        return
    assert isinstance(result, Path), result
    _assert_legal(world, power, result, start, goal)
    assert result.length == expected == sum(world.cost(h) for h in result.hexes[1:])
    assert result.length <= max(0, limit)


@given(worlds(), st.data())
def test_unlimited_path_exists_exactly_when_the_hexes_connect_11_18_5(
    world: World, data: st.DataObject
) -> None:
    hexes = sorted(world.cells)
    power = data.draw(st.sampled_from(TRACERS))
    start, goal = _ends(data, hexes)
    result = basic_path(world.board, power, start, goal, 0, unlimited=True)
    reachable = goal in _flood(world, start, lambda h: not world.forbidden(power, h))
    event("connected" if reachable else "not connected")
    assert isinstance(result, Path) is reachable, result
    if isinstance(result, Path):
        _assert_legal(world, power, result, start, goal)


@given(worlds(RAILWAYS), st.data())
def test_rail_path_is_legal_and_found_whenever_one_exists_11_18_6(
    world: World, data: st.DataObject
) -> None:
    rails = sorted(h for h, (_, _, c) in world.cells.items() if c in "=G") or sorted(world.cells)
    power = data.draw(st.sampled_from(("cw", "greece", "germany", "usa")))
    start, goal = _ends(data, rails)
    result = rail_path(world.board, power, start, goal)

    def allowed(h: str) -> bool:
        return world.rail_ok(power, h) and not world.forbidden(power, h)

    start_ok = world.rail_ok(power, start) and not any(
        MAJOR[u[1]] in WAR[MAJOR[power]] for u in world.land(start))
    reachable = start_ok and (start == goal or goal in _flood(world, start, allowed))
    event("rail path" if reachable and start != goal else "no rail path" if not reachable
          else "start is the goal")
    assert isinstance(result, Path) is reachable, result
    if isinstance(result, Path):
        _assert_legal(world, power, result, start, goal)
        assert all(world.rail_ok(power, h) for h in result.hexes)
        assert result.length == len(result.hexes) - 1


@given(worlds(), st.integers(0, 5))
def test_units_a_primary_source_reaches_are_reported_in_supply_11_18(
    world: World, limit: int
) -> None:
    report = supply_report(world.board, None, limit)
    for uid, power, utype, at, _ in world.units:
        if utype == "FTR":
            assert uid not in report
            continue
        status = report[uid]
        usable = "cw" in world.friends(power) and not any(
            MAJOR[u[1]] in WAR[MAJOR[power]] for u in world.land(SOURCE))
        if usable and _cheapest(world, power, SOURCE, at, limit) is not None:
            assert status.in_supply, (uid, status)
        if status.method == "primary":
            assert status.length == _cheapest(world, power, SOURCE, at, limit)
        if status.method == "rail":
            assert status.via is not None and status.length is not None
            assert isinstance(rail_path(world.board, power, SOURCE, status.via), Path)
            assert status.length == _cheapest(world, power, status.via, at, limit)
