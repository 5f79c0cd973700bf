"""The board: a map with the units' positions and modes, indexed once, and each
power's stance on it (friends, enemies, ZOC, open hexes, ports, sources)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from service.rules.board.grid import (
    _FLIP,
    _T,
    DEFAULT_COASTAL_TYPES,
    DEFAULT_TERRAIN_COST,
    ENEMY,
    FRIENDLY,
    NEUTRAL,
    OPEN,
    Grid,
    NoPath,
    exerts_zoc,
    grid_of,
    throws_supply,
)
from service.rules.scenario import (
    HQ,
    SUPPLY,
    Scenario,
)
from service.rules.state import State, UnitState


@dataclass(frozen=True, slots=True, eq=False)
class Stance:
    """The map as one power sees it (shared by the powers of a side with the same
    enemies and neutrality). Hex sets hold grid positions.

    `territory` is FRIENDLY, OPEN, ENEMY or NEUTRAL per hex; `closed` is 1 where a
    path may not enter; `rail_open` is 1 on open rail hexes a friend controls;
    `sea_group` numbers the connected groups of passable sea areas."""

    key: tuple[str, frozenset[str], str | None]
    side: str
    neutral: bool
    enemies: frozenset[str]
    friends: frozenset[str]
    side_powers: frozenset[str]
    zoc: frozenset[int]
    friendly_land: frozenset[int]
    enemy_land: frozenset[int]
    territory: bytes
    closed: bytes
    rail_open: bytes
    passable: frozenset[str]
    sea_group: Mapping[str, int]
    ports: frozenset[int]
    hq_coast: frozenset[int]
    receiving: frozenset[int]


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Board:
    """A scenario's map with the units on it, indexed for path queries.

    Built once per position (`build`, `from_state`); the per-power views and supply
    networks it computes on demand are memoized inside it and never change."""

    scenario: Scenario
    grid: Grid
    step: bytes
    units_at: Mapping[str, tuple[str, ...]]
    neutral: frozenset[str]
    coastal_types: frozenset[str]
    supply_unit_cities: bool
    majors: Mapping[str, str]
    land_of: Mapping[str, frozenset[int]]
    zoc_of: Mapping[str, frozenset[int]]
    navy_of: Mapping[str, frozenset[str]]
    hqs_of: Mapping[str, tuple[tuple[int, str], ...]]
    supply_units_of: Mapping[str, frozenset[int]]
    unit_hex: Mapping[str, int]
    unit_power: Mapping[str, str]
    strat_hqs: frozenset[str] = frozenset()
    repaired: frozenset[int] = frozenset()
    _stances: dict[tuple[str, frozenset[str], str | None], Stance] = field(
        default_factory=dict, repr=False
    )
    _keys: dict[str, tuple[str, frozenset[str], str | None]] = field(
        default_factory=dict, repr=False
    )
    _memo: dict[Any, Any] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        return (f"Board({self.scenario.id!r}: {len(self.grid.ids)} hexes, "
                f"{len(self.unit_hex)} land units on the map)")

    # long: one pass over the map and the units fills every index of the frozen board.
    @classmethod
    def build(
        cls,
        scenario: Scenario,
        units: Mapping[str, UnitState],
        terrain_cost: Mapping[str, int] | None = None,
        *,
        neutral: Iterable[str] | None = None,
        coastal_types: Iterable[str] | None = None,
        supply_unit_cities: bool = True,
        repaired_ports: Iterable[str] = (),
    ) -> Board:
        """Index `scenario`'s map with `units` (every id a scenario unit) in place.

        `terrain_cost` is the extra cost per terrain (None: RULES-NOTES 26's default);
        `neutral` the neutral powers (None: the scenario's); `coastal_types` the
        types that trace overseas from a coast (RULES-NOTES 2); `supply_unit_cities`
        whether a supply unit in a city makes it a secondary source (RULES-NOTES 5);
        `repaired_ports` the damaged ports repaired with RPs since (RULES-NOTES 23)."""
        grid = grid_of(scenario.map)
        costs = DEFAULT_TERRAIN_COST if terrain_cost is None else terrain_cost
        table = bytes(min(255, 1 + max(0, int(costs.get(t, 0)))) for t in grid.terrains)
        step = grid.terrain_code.translate(table.ljust(256, b"\x01"))
        majors = {p.id: p.id for p in scenario.powers}
        majors.update((m.id, m.controller) for m in scenario.minors)
        index = grid.index
        at: dict[str, list[str]] = {}
        land: dict[str, set[int]] = {}
        zoc: dict[str, set[int]] = {}
        navy: dict[str, set[str]] = {}
        hqs: dict[str, list[tuple[int, str]]] = {}
        sups: dict[str, set[int]] = {}
        unit_hex: dict[str, int] = {}
        unit_power: dict[str, str] = {}
        strat_hqs: set[str] = set()
        is_sea = scenario.map.is_sea
        for uid, u in units.items():
            spec = scenario.unit(uid)
            major = majors[u.power]
            i = index.get(u.at)
            if i is None:
                if is_sea(u.at):
                    at.setdefault(u.at, []).append(uid)
                    if spec.unit_class == "naval":
                        navy.setdefault(major, set()).add(u.at)
                continue
            at.setdefault(u.at, []).append(uid)
            if spec.unit_class != "land":
                continue
            unit_hex[uid] = i
            unit_power[uid] = u.power
            land.setdefault(major, set()).add(i)
            if exerts_zoc(spec, u.mode, u.orientation):
                zoc.setdefault(major, set()).add(i)
            if throws_supply(spec, u.mode):
                hqs.setdefault(major, []).append((i, uid))
            elif spec.type == HQ:
                strat_hqs.add(uid)
            elif spec.type == SUPPLY and i in grid.cities:
                sups.setdefault(major, set()).add(i)
        if neutral is None:
            neutral = (p.id for p in scenario.powers if p.neutral)
        return cls(
            scenario=scenario,
            grid=grid,
            step=step,
            units_at={k: tuple(v) for k, v in at.items()},
            neutral=frozenset(neutral),
            coastal_types=frozenset(
                DEFAULT_COASTAL_TYPES if coastal_types is None else coastal_types
            ),
            supply_unit_cities=supply_unit_cities,
            majors=majors,
            land_of={k: frozenset(v) for k, v in land.items()},
            zoc_of={k: frozenset(v) for k, v in zoc.items()},
            navy_of={k: frozenset(v) for k, v in navy.items()},
            hqs_of={k: tuple(v) for k, v in hqs.items()},
            supply_units_of={k: frozenset(v) for k, v in sups.items()},
            unit_hex=unit_hex,
            unit_power=unit_power,
            strat_hqs=frozenset(strat_hqs),
            repaired=frozenset(index[h] for h in repaired_ports if h in index),
        )

    @classmethod
    def from_state(cls, state: State) -> Board:
        """The board of a game state, with its options (RULES-NOTES 2, 5, 26) and the
        ports repaired with RPs (RULES-NOTES 23)."""
        options = state.setup.options
        supply = options.get("supply", {})
        reorg = options.get("reorg", {})
        return cls.build(
            state.setup.scenario,
            state.units,
            supply.get("terrain_cost"),
            neutral=[p for p, ps in state.powers.items() if ps.neutral],
            coastal_types=reorg.get("coastal_types"),
            supply_unit_cities=bool(reorg.get("supply_unit_city_source", True)),
            repaired_ports=state.reorg.repaired_ports,
        )

    # ----------------------------------------------------------------- lookups

    def at(self, hex_id: str) -> int:
        """Grid position of hex `hex_id` (KeyError if it is not on the map)."""
        try:
            return self.grid.index[hex_id]
        except KeyError:
            raise KeyError(f"hex {hex_id!r} is not on the map") from None

    def neighbours(self, hex_id: str) -> tuple[str, ...]:
        """The axial neighbours of `hex_id` that are on the map."""
        ids = self.grid.ids
        return tuple(ids[j] for j in self.grid.nbrs[self.at(hex_id)])

    def units_in(self, place: str) -> tuple[str, ...]:
        """Ids of the units in hex or sea area `place`."""
        return self.units_at.get(place, ())

    def major(self, power: str) -> str:
        """The major power commanding `power` (a minor's controller)."""
        return self.majors[power]

    def enemies_of(self, power: str) -> frozenset[str]:
        """The major powers at war with `power`."""
        return self.stance(power).enemies

    def enemy_zoc(self, hex_id: str, power: str) -> bool:
        """Whether `hex_id` is in the ZOC of a land unit at war with `power` (OCS 5.7c,
        OCS 5.8a use this; negation does not apply there)."""
        return self.at(hex_id) in self.stance(power).zoc

    def zoc_negated(self, hex_id: str, power: str) -> bool:
        """A friendly (same-side) land unit in `hex_id` negates enemy ZOC for supply
        (RULES-NOTES 28)."""
        return self.at(hex_id) in self.stance(power).friendly_land

    def hq_source_problem(self, hq: str) -> NoPath | None:
        """Why HQ `hq` is no supply source now, or None (`throws_supply`, OCS 5.8b: an HQ in
        Strat Mode throws no supply). The supply view and every HQ method of
        reorganization ask this one question."""
        if hq in self.strat_hqs:
            return NoPath(f"HQ {hq} is in Strat Mode and throws no supply", "OCS 5.8b", hq)
        return None

    def port_damaged(self, hex_id: str) -> bool:
        """Whether the port in `hex_id` is damaged and not repaired since (RULES-NOTES 23);
        False for a hex without a port."""
        i = self.at(hex_id)
        port = self.grid.ports.get(i)
        return port is not None and port[1] and i not in self.repaired

    def enemy_occupied(self, hex_id: str, power: str) -> bool:
        return self.at(hex_id) in self.stance(power).enemy_land

    def is_open(self, hex_id: str, power: str) -> bool:
        """Whether a supply path of `power` may enter `hex_id`."""
        return not self.stance(power).closed[self.at(hex_id)]

    def why_closed(self, hex_id: str, power: str) -> NoPath | None:
        """Why a supply path of `power` may not enter `hex_id` (None if it may)."""
        return _why_closed(self, self.stance(power), self.at(hex_id))

    def cached(self, key: Hashable, make: Callable[[], _T]) -> _T:
        """`make()`, computed once per board for `key`: views derived from this
        position (supply networks) are memoized with it."""
        if key not in self._memo:
            self._memo[key] = make()
        return cast(_T, self._memo[key])

    def known(self, key: Hashable) -> Any:
        """What `cached` holds for `key`, or None when nothing was computed for it."""
        return self._memo.get(key)

    # ----------------------------------------------------------------- stances

    def stance(self, power: str) -> Stance:
        """The map as `power` (or a minor's controller) sees it; memoized."""
        major = self.majors[power]
        key = self._keys.get(major)
        if key is None:
            p = self.scenario.power(major)
            key = (p.side, frozenset(p.at_war_with), major if major in self.neutral else None)
            self._keys[major] = key
        found = self._stances.get(key)
        if found is None:
            found = self._stances[key] = _make_stance(self, key, major)
        return found


# long: a power's stance is a set of bitmaps filled in one loop over the hexes.
def _make_stance(
    board: Board, key: tuple[str, frozenset[str], str | None], major: str
) -> Stance:
    sc, g = board.scenario, board.grid
    side, enemies, own = key
    side_powers = frozenset(sc.powers_of_side(side))
    friends = frozenset({major}) if own is not None else side_powers - board.neutral
    code_territory = [OPEN]
    for c in g.controllers[1:]:
        assert c is not None
        m = board.majors[c]
        code_territory.append(
            FRIENDLY if m in friends else ENEMY if m in enemies else NEUTRAL
        )
    territory = bytes(map(code_territory.__getitem__, g.controller_code))
    closed = bytearray(territory.translate(bytes((0, 0, 0, 1)).ljust(256, b"\x00")))
    enemy_land = frozenset().union(*(board.land_of.get(e, ()) for e in enemies))
    friendly_land = frozenset().union(*(board.land_of.get(f, ()) for f in side_powers))
    zoc: set[int] = set()
    nbrs = g.nbrs
    for e in enemies:
        for i in board.zoc_of.get(e, ()):
            zoc.add(i)
            zoc.update(nbrs[i])
    for i in enemy_land:
        closed[i] = 1
    for i in zoc:
        if i not in friendly_land:
            closed[i] = 1
    friendly = territory.translate(bytes((1, 0, 0, 0)).ljust(256, b"\x00"))
    rail_open = _and(_and(g.rail, friendly), bytes(closed.translate(_FLIP)))
    enemy_navy = frozenset().union(*(board.navy_of.get(e, ()) for e in enemies))
    own_navy = frozenset().union(*(board.navy_of.get(f, ()) for f in side_powers))
    passable = frozenset(s for s in g.sea_adjacent if s not in enemy_navy or s in own_navy)
    group: dict[str, int] = {}
    for s in sorted(passable):
        if s in group:
            continue
        k = len(group)
        group[s] = k
        todo = [s]
        while todo:
            for t in g.sea_adjacent[todo.pop()]:
                if t in passable and t not in group:
                    group[t] = k
                    todo.append(t)
    ports = frozenset(
        i for i, (_, damaged) in g.ports.items()
        if (not damaged or i in board.repaired) and territory[i] == FRIENDLY
        and i not in enemy_land
    )
    hq_coast = frozenset(
        i for f in friends for i, _ in board.hqs_of.get(f, ())
        if i in g.seas_of and territory[i] != NEUTRAL
    )
    return Stance(
        key=key, side=side, neutral=own is not None, enemies=enemies, friends=friends,
        side_powers=side_powers, zoc=frozenset(zoc), friendly_land=friendly_land,
        enemy_land=enemy_land, territory=territory, closed=bytes(closed),
        rail_open=rail_open, passable=passable, sea_group=group, ports=ports,
        hq_coast=hq_coast, receiving=ports | hq_coast,
    )


def _and(a: bytes, b: bytes) -> bytes:
    """Bytewise AND of two equal-length 0/1 byte strings."""
    return (int.from_bytes(a, "big") & int.from_bytes(b, "big")).to_bytes(len(a), "big")


def _why_closed(board: Board, st: Stance, i: int) -> NoPath | None:
    hid = board.grid.ids[i]
    if i in st.enemy_land:
        return NoPath(f"hex {hid} is occupied by enemy units", "11.18", hid)
    if st.territory[i] == NEUTRAL:
        return NoPath(f"hex {hid} is neutral territory", "11.18", hid)
    if i in st.zoc and i not in st.friendly_land:
        return NoPath(f"hex {hid} is in enemy ZOC", "RULES-NOTES 28", hid)
    return None


def _why_not_rail(board: Board, st: Stance, i: int) -> NoPath | None:
    hid = board.grid.ids[i]
    if not board.grid.rail[i]:
        return NoPath(f"hex {hid} has no railway", "11.18.6", hid)
    if st.territory[i] != FRIENDLY:
        return NoPath(f"hex {hid} is not controlled by a friendly power", "11.18.6", hid)
    return _why_closed(board, st, i)
