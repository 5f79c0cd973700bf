"""Small hand-drawn maps for the map engine's tests.

A map is drawn one row of hexes per line, one character per hex, each row shifted
half a hex right of the one above (axial coordinates: the hex in column q of row r
is (q, r); its neighbours are left, right, up-left, up-right, down-left,
down-right). Hex ids are ``f"{q + 1:02d}{r + 1:02d}"``: the top-left hex is 0101.

    .  territory of cw (allies)       =  cw rail           ^  cw mountain
    %  cw forest                      g  Germany (axis)    G  German rail
    h  Hungary (minor of Germany)     s  Spain (neutral, axis side)
    r  USSR (communists, at war with Germany only)
    u  USA (allies, neutral)          -  nobody's          #  no hex

Sources, ports, seas and units are given as keyword arguments.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from service.rules.board import Board, Path, PathResult
from service.rules.scenario import AIR_TYPES, NAVAL_TYPES, Scenario, parse_scenario
from service.rules.state import UnitState

POWERS: list[dict[str, Any]] = [
    {"id": "germany", "side": "axis", "at_war_with": ["cw", "ussr"]},
    {"id": "italy", "side": "axis", "at_war_with": ["cw"]},
    {"id": "spain", "side": "axis", "neutral": True},
    {"id": "cw", "side": "allies", "at_war_with": ["germany", "italy"]},
    {"id": "usa", "side": "allies", "neutral": True},
    {"id": "ussr", "side": "communists", "at_war_with": ["germany"]},
]
MINORS = [{"id": "hungary", "controller": "germany"}, {"id": "greece", "controller": "cw"}]
CELLS: dict[str, tuple[str | None, str, bool]] = {
    ".": ("cw", "clear", False),
    "=": ("cw", "clear", True),
    "^": ("cw", "mountain", False),
    "%": ("cw", "forest", False),
    "g": ("germany", "clear", False),
    "G": ("germany", "clear", True),
    "h": ("hungary", "clear", False),
    "s": ("spain", "clear", False),
    "r": ("ussr", "clear", False),
    "u": ("usa", "clear", False),
    "-": (None, "clear", False),
}

KINDS = {"TRANSPORT": "transport", "REPL": "repl", "HEDGEHOG": "hedgehog"}
# A unit: (id, power, type, hex or sea, mode); a type ending in "div" is a division.
# The mode is the unit's state; None means "no OCS mode" (supply units, air, naval).
Unit = tuple[str, str, str, str, str | None]


def hex_id(q: int, r: int) -> str:
    return f"{q + 1:02d}{r + 1:02d}"


def parse_art(art: str) -> list[tuple[str, int, int, str]]:
    """(id, q, r, cell) for every hex drawn."""
    out = []
    rows = [line.split() for line in art.strip("\n").splitlines() if line.strip()]
    for r, row in enumerate(rows):
        for q, token in enumerate(row):
            assert len(token) == 1, f"one character per hex, got {token!r}"
            if token != "#":
                out.append((hex_id(q, r), q, r, token))
    return out


def scenario_doc(
    art: str,
    *,
    sources: Mapping[str, tuple[str, str]] | None = None,
    ports: Mapping[str, str] | None = None,
    damaged: Iterable[str] = (),
    cities: Iterable[str] = (),
    coasts: Mapping[str, Sequence[str]] | None = None,
    seas: Mapping[str, Sequence[str]] | None = None,
    units: Iterable[Unit] = (),
    supply_path_length: int = 4,
    powers: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The scenario JSON of a drawn map. `sources`: hex -> (kind, power); `ports`:
    hex -> minor|major; `coasts`: hex -> its sea areas; `seas`: sea -> adjacent."""
    sources = sources or {}
    ports = ports or {}
    coasts = coasts or {}
    damaged = set(damaged)
    cities = set(cities)
    hexes = []
    for hid, q, r, cell in parse_art(art):
        controller, terrain, rail = CELLS[cell]
        h: dict[str, Any] = {"id": hid, "q": q, "r": r, "terrain": terrain,
                             "controller": controller, "rail": rail}
        if hid in sources:
            h["supply"], h["supply_power"] = sources[hid]
        if hid in sources or hid in cities:
            h["city"] = f"City {hid}"
        if hid in ports:
            h["port"] = ports[hid]
            h["port_damaged"] = hid in damaged
        if hid in coasts:
            h["seas"] = list(coasts[hid])
        hexes.append(h)
    sea_ids = set(seas or {}) | {s for ss in coasts.values() for s in ss}
    adjacency = {s: set((seas or {}).get(s, ())) for s in sea_ids}
    for s, adj in list(adjacency.items()):
        for t in adj:
            adjacency.setdefault(t, set()).add(s)
    unit_docs = []
    for uid, power, utype, at, _mode in units:
        cls = "air" if utype in AIR_TYPES else "naval" if utype in NAVAL_TYPES else "land"
        size = None
        if cls == "land":
            size = "division" if utype.endswith("div") else "corps"
        doc: dict[str, Any] = {
            "id": uid, "power": power, "class": cls,
            "type": utype.removesuffix("div"), "size": size, "cost": 3, "at": at,
        }
        if cls == "land" and doc["type"] != "SUPPLY":
            kind = KINDS.get(doc["type"], "combat")
            doc["ocs"] = {"kind": kind, "move": {"strength": 1, "ma": 6}}
            if kind == "combat":
                doc["ocs"].update(mode=_mode or "combat", combat={"strength": 2, "ma": 3})
            if kind == "hedgehog":
                doc["ocs"] = {"kind": kind, "combat": {"strength": 2, "ma": 0}}
        if utype == "HQ":
            doc["hq_reorg"] = 2
        unit_docs.append(doc)
    return {
        "id": "drawn",
        "sides": [{"id": "axis"}, {"id": "allies"}, {"id": "communists"}],
        "powers": powers or POWERS,
        "minors": MINORS,
        "map": {
            "supply_path_length": supply_path_length,
            "hexes": hexes,
            "seas": [{"id": s, "adjacent": sorted(adjacency[s])} for s in sorted(adjacency)],
        },
        "units": unit_docs,
    }


def unit_states(scenario: Scenario, units: Iterable[Unit]) -> dict[str, UnitState]:
    modes = {u[0]: u[4] for u in units}
    return {
        u.id: UnitState(power=u.power, at=u.at, face_up=True, shattered=False,
                        mode=modes[u.id])
        for u in scenario.units
    }


def drawn(
    art: str,
    *,
    units: Iterable[Unit] = (),
    terrain_cost: Mapping[str, int] | None = None,
    supply_unit_cities: bool = True,
    **kwargs: Any,
) -> Board:
    """The board of a drawn map (see the module docstring)."""
    units = list(units)
    scenario = parse_scenario(scenario_doc(art, units=units, **kwargs))
    return Board.build(scenario, unit_states(scenario, units), terrain_cost,
                       supply_unit_cities=supply_unit_cities)


def length(result: PathResult) -> int:
    """The length of a path that must exist."""
    assert isinstance(result, Path), result
    return result.length
