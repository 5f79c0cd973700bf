"""Every land unit's supply in a new position, updated from the previous position's
report (issue 21): only where what happened since can change an answer.

`supply_memo(state)` is the full computation (the reference: `state_supply` is its
report); `supply_since(previous, state)` gives the same report for `state` from the
memo of an earlier (or later) state of the same game, by comparing the two positions:

- Nothing on the board changed (no unit moved, changed mode, orientation or power,
  appeared or left; the usual order: a roll, a declaration, a `done`): the previous
  report and board stand as they are.
- The ground changed (the scenario's map, i.e. a GM's edit of hex control or port
  damage; the options; a power's neutrality; a port repaired; the weather's basic
  path): everything is computed afresh (`supply_memo`).
- Otherwise, per stance (`Board.stance`), the searches of the previous board are
  patched: the hexes whose "closed" bit changed (enemy units and ZOC, RULES-NOTES 28),
  the network hexes whose primary source or long legs changed, and the secondary
  sources that came, went or changed; each search is re-run only around them and
  copied elsewhere; a unit's status is computed again when it moved (or changed) or
  stands where a patched search may differ. A stance whose sea areas, sea groups or
  territory changed, or whose network or secondary sources came in a different order,
  is computed afresh.

Why the patch is exact: `spread` is a bucketed Dijkstra whose every step costs at
least 1, so a path of cost at most L stays within L hexes of its end. The answer at a
hex i (cost, origin, parent, with its ties broken by the order hexes are settled) is
a function of the closed bits, the steps and the starts within L of i and of the
relative order of those starts: every hex that decides i's answer (its parent, the
other candidates of equal cost and their own ancestors) lies within L of i. So a hex
farther than L from every change keeps its answer, and a hex within L of a change
gets the full search's answer from a search restricted to the hexes within 2L of the
changes (all of its own L-neighbourhood), with the starts there in their new order.
The property test `tests/rules/board/test_supply_since.py` holds this against the
full computation on random sequences of moves, mode changes, face flips, control
changes, weather and eliminations.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from service.rules.board.grid import path_length
from service.rules.board.layout import Board, Stance
from service.rules.board.paths import spread
from service.rules.board.supply import (
    SupplyStatus,
    _Network,
    _network,
    _primaries,
    _primary_reach,
    _Reach,
    _secondaries,
    _secondary_reach,
    _status,
    supply_report,
)
from service.rules.state import State, UnitState

__all__ = ["SupplyMemo", "supply_memo", "supply_since"]


@dataclass(frozen=True, slots=True, eq=False)
class SupplyMemo:
    """A position's supply report with the board (and its searches) that computed it.
    `how` says how it was reached ("full", "same": nothing on the board changed,
    "patched") and `recomputed` how many land units' statuses were computed afresh."""

    state: State
    board: Board
    limit: int
    report: Mapping[str, SupplyStatus]
    how: str = "full"
    recomputed: int = 0


def supply_memo(state: State) -> SupplyMemo:
    """Every land unit's supply in `state`, computed whole (the reference)."""
    board = Board.from_state(state)
    limit = path_length(state.setup.scenario, state.turn.weather)
    report = supply_report(board, None, limit)
    return SupplyMemo(state, board, limit, report, "full", len(report))


def _board_facts(unit: UnitState) -> tuple[str, str, str | None, str | None]:
    """What `Board.build` reads of a unit (besides its id and its counter)."""
    return unit.power, unit.at, unit.mode, unit.orientation


def _same_ground(old: State, new: State) -> bool:
    """Whether everything a board is built from, but the units, is the same."""
    return (
        old.setup.scenario is new.setup.scenario
        and old.setup.options == new.setup.options
        and old.reorg.repaired_ports == new.reorg.repaired_ports
        and {p: ps.neutral for p, ps in old.powers.items()}
        == {p: ps.neutral for p, ps in new.powers.items()}
    )


def _changed_units(old: Mapping[str, UnitState], new: Mapping[str, UnitState]) -> set[str]:
    """Units placed, gone, or changed in what a board reads of them."""
    changed = {uid for uid in old if uid not in new}
    for uid, unit in new.items():
        before = old.get(uid)
        if before is not unit and (before is None or _board_facts(before) != _board_facts(unit)):
            changed.add(uid)
    return changed


def supply_since(previous: SupplyMemo, state: State) -> SupplyMemo:
    """`supply_memo(state)`, updated from `previous` (another state of the same game)."""
    old = previous.state
    limit = path_length(state.setup.scenario, state.turn.weather)
    if limit != previous.limit or not _same_ground(old, state):
        return supply_memo(state)
    changed = _changed_units(old.units, state.units)
    if not changed:
        return SupplyMemo(state, previous.board, limit, previous.report, "same", 0)
    board = Board.from_state(state)
    by_stance: dict[Hashable, list[str]] = {}
    for uid, power in board.unit_power.items():
        by_stance.setdefault(board.stance(power).key, []).append(uid)
    fresh: dict[str, SupplyStatus] = {}
    for uids in by_stance.values():
        patch = _patch(previous.board, board, board.unit_power[uids[0]], limit)
        for uid in uids:
            if patch is None or uid in changed or uid not in previous.report \
                    or patch.touches(board, uid, limit):
                fresh[uid] = _status(board, uid, limit)
    report = {uid: fresh.get(uid) or previous.report[uid] for uid in board.unit_power}
    return SupplyMemo(state, board, limit, report, "patched", len(fresh))


@dataclass(frozen=True, slots=True)
class _Patch:
    """Where a stance's searches were patched: the hexes whose answers may differ, and
    whether units supplied from the sea (or out of supply) must be asked again (the
    network changed, so a port's source or legs may have)."""

    hexes: frozenset[int]
    coastal: bool

    def touches(self, board: Board, uid: str, limit: int) -> bool:
        i = board.unit_hex[uid]
        if i in self.hexes:
            return True
        if not self.coastal:
            return False
        st = board.stance(board.unit_power[uid])
        first = board.known(("primary_reach", st.key, limit))
        second = board.known(("secondary_reach", st.key, limit))
        return bool(first.cost[i] < 0 and second[0].cost[i] < 0)


def _patch(old: Board, new: Board, power: str, limit: int) -> _Patch | None:
    """Seed `new`'s memo with the searches of `power`'s stance patched from `old`'s; the
    hexes where they may differ, or None when the stance must be computed afresh."""
    st0, st1 = old.stance(power), new.stance(power)
    if st0.key != st1.key or st0.territory != st1.territory \
            or st0.sea_group != st1.sea_group:
        return None
    # What the old board has not searched yet (no unit needed it) is searched now, once.
    net0 = _network(old, st0)
    first0 = _primary_reach(old, st0, limit)
    second0 = _secondary_reach(old, st0, limit)
    closed = _differences(st0.closed, st1.closed)
    if (st0.rail_open == st1.rail_open and st0.ports == st1.ports
            and st0.receiving == st1.receiving
            and _primaries(old, st0) == _primaries(new, st1)):
        net1, origins = net0, set()
        new.cached(("network", st1.key), lambda: net0)
    else:
        net1 = _network(new, st1)
        if net1.groups != net0.groups:
            return None
        moved_origins = _changed_starts(net0.order, net1.order, _origin_facts(net0),
                                        _origin_facts(net1))
        if moved_origins is None:
            return None
        origins = moved_origins
    first_region = closed | origins
    first1 = _patched(new, st1, first0, net1.order, first_region, limit)
    new.cached(("primary_reach", st1.key, limit), lambda: first1)
    heads0 = second0[1]
    heads1 = {i: sid for i, sid in _secondaries(new, st1).items() if first1.cost[i] >= 0}
    moved_heads = _changed_starts(tuple(heads0), tuple(heads1), heads0, heads1)
    if moved_heads is None:
        return None
    second_region = closed | moved_heads
    second1 = _patched(new, st1, second0[0], tuple(heads1), second_region, limit)
    new.cached(("secondary_reach", st1.key, limit), lambda: (second1, heads1))
    g = new.grid
    touched = _ball(g.nbrs, first_region, limit) | _ball(g.nbrs, second_region, limit)
    return _Patch(frozenset(touched), bool(origins))


def _origin_facts(net: _Network) -> dict[int, tuple[int, tuple[str, ...], bool]]:
    """Per network hex what a status reads of it: its primary source, its long legs and
    whether it was reached overseas."""
    return {i: (net.root[i], net.route[i], i in net.jumped) for i in net.order}


def _changed_starts(order0: Sequence[int], order1: Sequence[int],
                    facts0: Mapping[int, object], facts1: Mapping[int, object]
                    ) -> set[int] | None:
    """The starts of a search that came, went or changed what they carry; None when
    the others are not in the same relative order any more (ties would break
    differently anywhere)."""
    changed = {i for i in order0 if facts1.get(i, _GONE) != facts0[i]}
    changed.update(i for i in order1 if i not in facts0)
    position = {i: k for k, i in enumerate(order0)}
    last = -1
    for i in order1:
        if i in changed:
            continue
        if position[i] < last:
            return None
        last = position[i]
    return changed


_GONE = object()


def _differences(a: bytes, b: bytes, chunk: int = 512) -> set[int]:
    """The positions where two equal-length byte strings differ (compared in chunks)."""
    out: set[int] = set()
    if a == b:
        return out
    for start in range(0, len(a), chunk):
        end = start + chunk
        if a[start:end] != b[start:end]:
            out.update(i for i in range(start, min(end, len(a))) if a[i] != b[i])
    return out


def _ball(nbrs: Sequence[Sequence[int]], centre: Iterable[int], radius: int) -> set[int]:
    """The hexes within `radius` steps of any of `centre` (closed or not)."""
    seen = set(centre)
    ring = list(seen)
    for _ in range(radius):
        nxt = []
        for u in ring:
            for v in nbrs[u]:
                if v not in seen:
                    seen.add(v)
                    nxt.append(v)
        ring = nxt
    return seen


def _patched(board: Board, st: Stance, old: _Reach, starts: Sequence[int],
             region: set[int], limit: int) -> _Reach:
    """`old` with the answers within `limit` of `region` replaced by those of a search
    restricted to the hexes within 2 x `limit` of it (see the module's docstring)."""
    if not region:
        return old
    g = board.grid
    inner = _ball(g.nbrs, region, limit)
    outer = _ball(g.nbrs, inner, limit)
    closed = bytearray(b"\x01") * len(g.nbrs)
    for i in outer:
        closed[i] = st.closed[i]
    cost, parent, origin = spread(g.nbrs, board.step, bytes(closed),
                                  [s for s in starts if s in outer], limit)
    new_cost, new_parent, new_origin = list(old.cost), list(old.parent), list(old.origin)
    for i in inner:
        new_cost[i], new_parent[i], new_origin[i] = cost[i], parent[i], origin[i]
    return _Reach(new_cost, new_parent, new_origin)
