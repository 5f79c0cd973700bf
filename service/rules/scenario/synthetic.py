"""Synthetic scenarios of any size, for load tests and property tests.

`generate_scenario` lays out a roughly square axial map split into one vertical
band of territory per power (so every side has fronts), with sea areas along the
north and south edges, ports on the coasts, a grid of rail lines, cities and
supply sources of every kind for every power, and units of every class spread
over the powers and minors (about a third face down). The result is a valid
scenario and depends only on the arguments: all randomness comes from one
`random.Random(seed)`.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from typing import Any, Final

from service.rules.scenario.types import (
    AIR_TYPES,
    ARM,
    ART,
    ATR,
    GAR,
    HEDGEHOG,
    HQ,
    INF,
    MAR,
    MECH,
    MOT,
    MTN,
    NAVAL_TYPES,
    PARA,
    REPL,
    SUPPLY,
    TRANSPORT,
    AtrSpec,
    HexSpec,
    MapSpec,
    MinorSpec,
    OcsSpec,
    OcsValues,
    PowerSpec,
    Scenario,
    SeaSpec,
    SideSpec,
    UnitSpec,
)

# The Drang Nach Osten sides and powers with their pass bonuses (RULES-NOTES).
_DNO: Final = (
    ("axis", (("germany", "Germany", 2), ("italy", "Italy", 1), ("japan", "Japan", 2))),
    ("allies", (("cw", "Commonwealth", 2), ("usa", "USA", 2), ("france", "France", 1),
                ("nationalist_china", "Nationalist China", 1))),
    ("communists", (("ussr", "USSR", 2), ("communist_china", "Communist China", 1))),
)
_DNO_MINORS: Final = {"axis": "hungary", "allies": "greece", "communists": "mongolia"}
_TERRAIN_WEIGHTS: Final = (
    ("clear", 55), ("forest", 15), ("mountain", 10), ("swamp", 5), ("jungle", 3),
    ("desert", 12),
)
_LAND_WEIGHTS: Final = (
    (INF, 36), (MTN, 5), (MAR, 4), (PARA, 3), (GAR, 6), (MOT, 8), (MECH, 5), (ARM, 8),
    (ART, 4), (HQ, 6), (SUPPLY, 5), (TRANSPORT, 4), (REPL, 4), (HEDGEHOG, 2),
)
_AIR: Final = tuple(sorted(AIR_TYPES))
_NAVAL: Final = tuple(sorted(NAVAL_TYPES))


# (combat strength, combat MA, move strength, move MA, action rating, barrage, RP cost)
_LAND_VALUES: Final = {
    INF: (4, 3, 2, 6, 2, 1, 3), MTN: (4, 3, 2, 5, 3, 0, 3), MAR: (2, 3, 1, 6, 3, 0, 2),
    PARA: (2, 3, 1, 6, 4, 0, 3), GAR: (3, 1, 1, 3, 1, 0, 2), MOT: (4, 6, 2, 12, 3, 0, 4),
    MECH: (5, 6, 3, 12, 4, 0, 5), ARM: (6, 6, 3, 12, 4, 0, 6), ART: (1, 3, 0, 6, 1, 6, 3),
    HQ: (1, 4, 0, 8, 3, 0, 5), TRANSPORT: (0, 0, 0, 10, 0, 0, 1), REPL: (0, 0, 1, 6, 0, 0, 1),
    HEDGEHOG: (2, 0, 0, 0, 0, 0, 0), SUPPLY: (0, 0, 0, 0, 0, 0, 2),
}
_OTHER_COST: Final = {"FTR": 3, "LND": 4, "NAV": 3, "ATR": 2, "FB": 2, "BB": 4, "CV": 5,
                      "CA": 2, "CL": 1, "DD": 1, "SUB": 2, "TRS": 2}


_OIL: Final = frozenset({MOT, MECH, ARM, TRANSPORT}) | AIR_TYPES | NAVAL_TYPES
_CORPS_ONLY: Final = frozenset({MOT, MECH, HQ, ART})
_DIVISION_ONLY: Final = frozenset({MAR, PARA, SUPPLY, TRANSPORT, REPL, HEDGEHOG})
_RESERVE_MARKERS: Final = 6


def _pick(rng: random.Random, weighted: tuple[tuple[str, int], ...]) -> str:
    return rng.choices([k for k, _ in weighted], weights=[w for _, w in weighted])[0]


def _sides(sides: int) -> list[tuple[str, list[tuple[str, str, int]]]]:
    if sides == 3:
        return [(side, list(powers)) for side, powers in _DNO]
    out: list[tuple[str, list[tuple[str, str, int]]]] = []
    for i in range(sides):
        a, b = 2 * i + 1, 2 * i + 2
        out.append((f"side{i + 1}", [(f"p{a}", f"Power {a}", 2), (f"p{b}", f"Power {b}", 1)]))
    return out


# long: a whole map drawn in order (sides, powers, terrain, cities, ports, sources).
def generate_scenario(hexes: int, units: int, seed: int = 0, sides: int = 3) -> Scenario:
    """A valid scenario with exactly `hexes` hexes and `units` units.

    `sides` = 3 uses the Drang Nach Osten sides and powers; any other count (2 or
    more) makes up sides ``side1..`` with two powers ``p1..`` each."""
    if sides < 2:
        raise ValueError("a scenario needs at least two sides")
    if units < 0:
        raise ValueError("units must not be negative")
    layout = _sides(sides)
    power_ids = [p for _, powers in layout for p, _, _ in powers]
    n_powers = len(power_ids)
    if hexes < 4 * n_powers:
        raise ValueError(f"need at least {4 * n_powers} hexes for {n_powers} powers")
    rng = random.Random(seed)

    width = max(math.ceil(math.sqrt(hexes)), n_powers)
    height = math.ceil(hexes / width)
    n_seas = max(1, min(n_powers, width // 6))
    north = [f"north-{i + 1}" for i in range(n_seas)]
    south = [f"south-{i + 1}" for i in range(n_seas)]
    sea_specs = _seas(north, south)

    first_power = {side: powers[0][0] for side, powers in layout}
    minors = [
        MinorSpec(id=_DNO_MINORS[side] if sides == 3 else f"m{i + 1}",
                  controller=first_power[side])
        for i, (side, _) in enumerate(layout)
    ]
    minor_of = {m.controller: m.id for m in minors}

    cells: list[tuple[int, int]] = [(i % width, i // width) for i in range(hexes)]
    last_row = (hexes - 1) // width
    band: dict[str, list[str]] = {p: [] for p in power_ids}
    hex_specs: list[HexSpec] = []
    for col, row in cells:
        owner = power_ids[col * n_powers // width]
        controller = owner
        if owner in minor_of and row < max(1, height // 5) and col % 3 == 0:
            controller = minor_of[owner]
        seas: tuple[str, ...] = ()
        if row == 0:
            seas = (north[col * n_seas // width],)
        elif row == last_row or (row == last_row - 1 and col > (hexes - 1) % width):
            seas = (south[col * n_seas // width],)
        hid = f"h{col}-{row}"
        band[owner].append(hid)
        hex_specs.append(HexSpec(
            id=hid, q=col, r=row - (col - (col & 1)) // 2,
            terrain=_pick(rng, _TERRAIN_WEIGHTS), controller=controller,
            rail=row % 6 == 2 or col % 8 == 3, seas=seas,
        ))
    index = {h.id: i for i, h in enumerate(hex_specs)}
    _sprinkle(rng, hex_specs, index, band, minor_of)

    ports_of = {
        p: [h for h in band[p] if hex_specs[index[h]].port is not None] for p in power_ids
    }
    powers = _powers(rng, layout)
    unit_specs = _units(rng, units, power_ids, minor_of, band, ports_of, hex_specs, index,
                        north + south, {p.id: p.side for p in powers})
    title = f"Synthetic {sides}-sided scenario: {hexes} hexes, {units} units, seed {seed}"
    return Scenario(
        id=f"synthetic-{sides}s-{hexes}h-{units}u-{seed}",
        title=title,
        sides=tuple(SideSpec(side, initiative_box=2, reserve_markers=_RESERVE_MARKERS)
                    for side, _ in layout),
        initiative_last_turn=tuple(side for side, _ in layout),
        powers=powers,
        minors=tuple(minors),
        map=MapSpec(supply_path_length=4, hexes=tuple(hex_specs), seas=sea_specs),
        units=unit_specs,
    )


def _seas(north: list[str], south: list[str]) -> tuple[SeaSpec, ...]:
    """Two chains of sea areas joined at both ends (or one pair when there is one each)."""
    adj: dict[str, list[str]] = {s: [] for s in north + south}

    def link(a: str, b: str) -> None:
        if b not in adj[a]:
            adj[a].append(b)
            adj[b].append(a)

    for chain in (north, south):
        for a, b in zip(chain, chain[1:], strict=False):
            link(a, b)
    link(north[0], south[0])
    link(north[-1], south[-1])
    return tuple(SeaSpec(s, tuple(adj[s])) for s in north + south)


def _sprinkle(
    rng: random.Random,
    hexes: list[HexSpec],
    index: dict[str, int],
    band: dict[str, list[str]],
    minor_of: dict[str, str],
) -> None:
    """Cities, ports and supply sources (every kind for every power) in place."""
    cities = 0

    def update(hid: str, **changes: Any) -> None:
        nonlocal cities
        i = index[hid]
        h = replace(hexes[i], **changes)
        if h.city is None:
            cities += 1
            terrain = "urban" if rng.random() < 0.3 else h.terrain
            h = replace(h, city=f"City {cities}", terrain=terrain)
        hexes[i] = h

    for power, ids in band.items():
        coast = [h for h in ids if hexes[index[h]].seas]
        n_ports = max(1, len(coast) // 4)
        for k, hid in enumerate(rng.sample(coast, min(n_ports, len(coast)))):
            update(hid, port="major" if k % 3 == 0 else "minor",
                   port_damaged=k % 3 == 2 and rng.random() < 0.5)
        n_sources = max(4, len(ids) // 40)
        picks = rng.sample(ids, min(n_sources, len(ids)))
        kinds = ["primary", "secondary", "limited"]
        for k, hid in enumerate(picks):
            kind = kinds[k % 3] if k < 3 else rng.choice(kinds)
            supplier = power
            if k == 3 and power in minor_of:
                kind, supplier = "secondary", minor_of[power]
            update(hid, supply=kind, supply_power=supplier,
                   factories=rng.randint(1, 4) if kind == "primary" else 0)
        for hid in rng.sample(ids, max(1, len(ids) // 50)):
            if hexes[index[hid]].city is None:
                update(hid)


def _powers(
    rng: random.Random, layout: list[tuple[str, list[tuple[str, str, int]]]]
) -> tuple[PowerSpec, ...]:
    out: list[PowerSpec] = []
    for side, powers in layout:
        enemies = tuple(p for other, ps in layout if other != side for p, _, _ in ps)
        for pid, name, bonus in powers:
            spent = rng.randint(10, 40)
            out.append(PowerSpec(
                id=pid, name=name, side=side, pass_bonus=bonus, neutral=False,
                bp_spent_last_turn=spent, bp_on_rps=rng.randint(0, min(6, spent)),
                rail_moves=rng.randint(2, 6), at_war_with=enemies, chits=rng.randint(1, 3),
                rp_gearing_cap=rng.randint(4, 12), conquered=False,
            ))
    return tuple(out)


# long: one unit of every kind the rules treat differently, placed in turn.
def _units(
    rng: random.Random,
    count: int,
    power_ids: list[str],
    minor_of: dict[str, str],
    band: dict[str, list[str]],
    ports_of: dict[str, list[str]],
    hexes: list[HexSpec],
    index: dict[str, int],
    seas: list[str],
    side_of: dict[str, str],
) -> tuple[UnitSpec, ...]:
    reserve_stacks: dict[str, set[str]] = {side: set() for side in side_of.values()}
    out: list[UnitSpec] = []
    for i in range(count):
        owner = power_ids[i % len(power_ids)]
        power = minor_of[owner] if owner in minor_of and i % 11 == 0 else owner
        roll = rng.random()
        face_up = rng.random() >= 1 / 3
        shattered = not face_up and rng.random() < 0.1
        if roll < 0.7:
            utype = _pick(rng, _LAND_WEIGHTS)
            at = rng.choice(band[owner])
            cs, cma, ms, mma, ar, barrage, cost = _LAND_VALUES[utype]
            if utype in _CORPS_ONLY:
                size = "corps"
            elif utype in _DIVISION_ONLY:
                size = "division"
            else:
                size = rng.choice(("corps", "division"))
                if size == "division":
                    cs, ms, cost = max(1, cs // 2), max(1, ms // 2), max(1, cost // 2)
            ocs = None
            if utype != SUPPLY:
                ocs = _ocs(rng, utype, (cs, cma, ms, mma, ar, barrage),
                           reserve_stacks[side_of[owner]], at)
            out.append(UnitSpec(
                id=f"{power}-{utype.lower()}-{i}", power=power, unit_class="land", type=utype,
                size=size, cost=cost, at=at, face_up=face_up, shattered=shattered,
                oil=utype in _OIL, hq_reorg=rng.randint(1, 4) if utype == HQ else None,
                ocs=ocs,
            ))
        elif roll < 0.85:
            utype = rng.choice(_AIR)
            at = rng.choice(band[owner])
            atr = None
            if utype == ATR:
                atr = AtrSpec(range=rng.randint(4, 8), large=rng.random() < 0.3, base=at)
            out.append(UnitSpec(
                id=f"{power}-{utype.lower()}-{i}", power=power, unit_class="air", type=utype,
                size=None, cost=_OTHER_COST[utype], at=at, face_up=face_up,
                shattered=shattered, oil=True, atr=atr,
            ))
        else:
            utype = rng.choice(_NAVAL)
            ports = ports_of[owner]
            at = rng.choice(ports) if ports and rng.random() < 0.5 else rng.choice(seas)
            out.append(UnitSpec(
                id=f"{power}-{utype.lower()}-{i}", power=power, unit_class="naval",
                type=utype, size=None, cost=_OTHER_COST[utype], at=at, face_up=face_up,
                shattered=shattered, oil=True,
            ))
    return tuple(out)


def _ocs(
    rng: random.Random,
    utype: str,
    values: tuple[int, int, int, int, int, int],
    reserve_stacks: set[str],
    at: str,
) -> OcsSpec:
    """OCS data with a starting mode the unit's kind allows (OCS 5); Reserve only while
    the side has markers left (OCS 5.4a)."""
    cs, cma, ms, mma, ar, barrage = values
    if utype == HEDGEHOG:
        return OcsSpec(kind="hedgehog", combat=OcsValues(cs, cma), action_rating=ar)
    if utype in (TRANSPORT, REPL):
        kind = "repl" if utype == REPL else rng.choice(("transport", "transport", "organic_truck"))
        return OcsSpec(mode="move", orientation="move", kind=kind, move=OcsValues(ms, mma))
    r = rng.random()
    if r < 0.03 and (at in reserve_stacks or len(reserve_stacks) < _RESERVE_MARKERS):
        reserve_stacks.add(at)
        mode, orientation = "reserve", rng.choice(("combat", "move"))
    elif r < 0.06:
        mode, orientation = "strat", "move"
    elif r < 0.10:
        mode, orientation = "dg", rng.choice(("combat", "move"))
    elif r < 0.25:
        mode, orientation = "move", "move"
    else:
        mode, orientation = "combat", "combat"
    return OcsSpec(
        mode=mode, orientation=orientation, kind="combat",
        engineer=utype in (MTN, INF) and rng.random() < 0.05,
        rail_repair=utype == GAR and rng.random() < 0.1,
        combat=OcsValues(cs, cma), move=OcsValues(ms, mma), action_rating=ar,
        barrage=barrage,
    )
