"""A scenario back to JSON: the inverse of `parse_scenario`."""

from __future__ import annotations

from typing import Any

from service.rules.scenario.fuel import fuel_to_json
from service.rules.scenario.tables import combat_to_json
from service.rules.scenario.types import Costs, MovementSpec, OcsValues, Scenario, UnitSpec


def _values_json(v: OcsValues) -> dict[str, Any]:
    return {"strength": v.strength, "ma": v.ma}


def _unit_json(u: UnitSpec) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": u.id, "power": u.power, "class": u.unit_class, "type": u.type, "size": u.size,
        "cost": u.cost, "at": u.at, "face_up": u.face_up, "shattered": u.shattered,
        "oil": u.oil, "hq_reorg": u.hq_reorg, "name": u.name,
        "atr": None if u.atr is None else {
            "range": u.atr.range, "large": u.atr.large, "base": u.atr.base,
        },
    }
    if u.air is not None:
        out["air"] = {"range": u.air.range, "air_to_air": u.air.air_to_air}
    if u.aa:
        out["aa"] = u.aa
    if u.ocs is not None:
        o = u.ocs
        out["ocs"] = {
            "mode": o.mode, "orientation": o.orientation, "kind": o.kind,
            "engineer": o.engineer, "rail_repair": o.rail_repair,
            "combat": _values_json(o.combat), "move": _values_json(o.move),
            "action_rating": o.action_rating, "barrage": o.barrage, "steps": o.steps,
        }
    return out


def _costs(table: tuple[tuple[str, Costs], ...]) -> dict[str, Any]:
    return {k: {"leg": c.leg, "motorized": c.motorized} for k, c in table}


def movement_to_json(m: MovementSpec) -> dict[str, Any]:
    """The terrain effects table as the scenario's `movement` section."""
    return {
        "terrain": _costs(m.terrain), "hexsides": _costs(m.hexsides),
        "weather": _costs(m.weather), "motorized": list(m.motorized),
        "stacking": {"limit": m.stacking.limit, "corps": m.stacking.corps,
                     "division": m.stacking.division, "exempt": list(m.stacking.exempt)},
    }


def scenario_to_json(s: Scenario) -> dict[str, Any]:
    """The JSON form of `s` (every field written out, but `build_points` and `fuel`,
    written when given: a scenario without them writes back as before);
    `parse_scenario` reads it back."""
    out: dict[str, Any] = {
        "id": s.id,
        "title": s.title,
        "sides": [
            {"id": x.id, "initiative_box": x.initiative_box,
             "reserve_markers": x.reserve_markers}
            for x in s.sides
        ],
        "initiative_last_turn": list(s.initiative_last_turn),
        "powers": [
            {"id": p.id, "name": p.name, "side": p.side, "pass_bonus": p.pass_bonus,
             "neutral": p.neutral, "bp_spent_last_turn": p.bp_spent_last_turn,
             "bp_on_rps": p.bp_on_rps, "rail_moves": p.rail_moves,
             "at_war_with": list(p.at_war_with), "chits": p.chits,
             "rp_gearing_cap": p.rp_gearing_cap, "conquered": p.conquered,
             **({} if p.build_points is None else {"build_points": p.build_points})}
            for p in s.powers
        ],
        "minors": [{"id": m.id, "controller": m.controller} for m in s.minors],
        "map": {
            "supply_path_length": s.map.supply_path_length,
            "hexes": [
                {"id": h.id, "q": h.q, "r": h.r, "terrain": h.terrain,
                 "controller": h.controller, "rail": h.rail, "city": h.city, "port": h.port,
                 "port_damaged": h.port_damaged, "factories": h.factories,
                 "supply": h.supply, "supply_power": h.supply_power, "seas": list(h.seas)}
                for h in s.map.hexes
            ],
            "seas": [{"id": x.id, "adjacent": list(x.adjacent)} for x in s.map.seas],
            "hexsides": [{"hexes": [x.a, x.b], "feature": x.feature} for x in s.map.hexsides],
        },
        "units": [_unit_json(u) for u in s.units],
        "movement": movement_to_json(s.movement),
        "combat": combat_to_json(s.combat),
    }
    if s.fuel is not None:
        out["fuel"] = fuel_to_json(s.fuel)
    return out
