"""Air-to-air combat and AA fire of an air reorganization mission, decided by the
scenario's tables (11.18.1 steps 5 and 6; docs/scenario.md "Combat: the tables"), with
the table engine (`service.rules.combat`) unchanged.

Air-to-air (step 5): over each target hex, each enemy side with fighters there (on
patrol or intercepting) fights the mission's aircraft there (ATRs, escorts, the flying
side's interceptors): the sum of the enemy fighters' air-to-air factors against the sum
of the mission's, on the `combat.air` table (inputs: `interceptors` and
`mission_aircraft`, the aircraft on each side); its results: `interceptor_lost`,
`mission_lost`, `mission_aborted`. AA (step 6): the AA factors firing over the hex
(`service.rules.airspace.aa_over`) on the `combat.aa` table (its columns read the
strength; input `units`), one roll per surviving ATR; results `aborted`, `eliminated`.
Dice are rolled with purpose `combat`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from service.rules.combat import Effect, Outcome, fmt, odds, read
from service.rules.flow import Flow
from service.rules.scenario import ATR, air_to_air
from service.rules.state import State


def _count(effects: Sequence[Effect], kind: str) -> int:
    return sum(e.value or 1 for e in effects if e.kind == kind)


def _meaning(outcome: Outcome) -> str:
    if not outcome.effects:
        return "no result"
    return ", ".join(e.kind.replace("_", " ") + (f" {e.value}" if e.value is not None else "")
                     for e in outcome.effects)


def _shown(outcome: Outcome) -> dict[str, Any]:
    o = outcome.odds
    return {"column": o.label, "text": o.words(), "dice": o.table.dice.text,
            "values": list(outcome.values), "total": outcome.total,
            "row": o.table.rows[outcome.row].label, "code": outcome.code,
            "effects": [{"kind": e.kind, "value": e.value} for e in outcome.effects]}


@dataclass(frozen=True, slots=True)
class Dogfight:
    """An air-to-air combat's result: aircraft the interceptors lose, and those of the
    mission lost and aborted."""

    interceptors_lost: int
    mission_lost: int
    mission_aborted: int
    data: dict[str, Any]
    text: str


def strength(state: State, units: Sequence[str]) -> int:
    sc = state.setup.scenario
    return sum(air_to_air(sc.unit(u)) for u in units)


def dogfight(f: Flow, hex_id: str, against: str, interceptors: Sequence[str],
             mission: Sequence[str], actor: str) -> Dogfight:
    """Roll and read the air-to-air table for `interceptors` (side `against`) against
    the `mission`'s aircraft over `hex_id`."""
    state = f.state
    table = state.setup.scenario.combat.air
    assert table is not None
    attack, defence = strength(state, interceptors), strength(state, mission)
    o = odds(table, Fraction(attack), Fraction(defence),
             inputs={"interceptors": len(interceptors), "mission_aircraft": len(mission)})
    label = f"air-to-air over {hex_id}"
    roll = f.roll("combat", table.dice.count, table.dice.faces,
                  text=f"{against}'s fighters against the ATR mission over {hex_id}: "
                       f"{table.dice.text}", by=actor, label=label)
    outcome = read(o, roll.values)
    text = (f"Air-to-air over {hex_id} (11.18.1 step 5): {against}'s "
            f"{', '.join(interceptors)} ({fmt(attack)}) against {', '.join(mission)} "
            f"({fmt(defence)}): {o.words()}; {outcome.words()} ({_meaning(outcome)}).")
    data = {"hex": hex_id, "against": against, "interceptors": list(interceptors),
            "mission": list(mission), "attack": attack, "defence": defence,
            **_shown(outcome)}
    return Dogfight(_count(outcome.effects, "interceptor_lost"),
                    _count(outcome.effects, "mission_lost"),
                    _count(outcome.effects, "mission_aborted"), data, text)


def flak(f: Flow, atr: str, hex_id: str, firing: Sequence[tuple[str, int]], actor: str
         ) -> tuple[str, dict[str, Any], str]:
    """AA fire on ATR `atr` over `hex_id` from `firing` (unit, factor): the result
    ("", "aborted" or "eliminated"), the event's data and its sentence."""
    table = f.state.setup.scenario.combat.aa
    assert table is not None
    total = sum(n for _, n in firing)
    o = odds(table, Fraction(total), Fraction(0), inputs={"units": len(firing)})
    roll = f.roll("combat", table.dice.count, table.dice.faces,
                  text=f"AA fire on {atr} over {hex_id}: {table.dice.text}", by=actor,
                  label=f"AA over {hex_id}")
    outcome = read(o, roll.values)
    kinds = {e.kind for e in outcome.effects}
    result = "eliminated" if "eliminated" in kinds else "aborted" if "aborted" in kinds else ""
    fate = {"eliminated": "it is shot down", "aborted": "it aborts",
            "": "it flies on"}[result]
    text = (f"AA fire on {atr} over {hex_id} (11.18.1 step 6): "
            f"{', '.join(f'{u} {n}' for u, n in firing)}: {o.words()}; {outcome.words()} "
            f"({_meaning(outcome)}): {fate}.")
    data = {"atr": atr, "hex": hex_id, "units": [u for u, _ in firing], "strength": total,
            "result": result, **_shown(outcome)}
    return result, data, text


def loss_order(state: State, units: Sequence[str], mission: bool) -> list[str]:
    """The order an owner's aircraft take losses by default: the mission's fighters before
    its ATRs; the weakest (air-to-air) first, then by id."""
    sc = state.setup.scenario

    def key(u: str) -> tuple[int, int, str]:
        spec = sc.unit(u)
        return (int(mission and spec.type == ATR), air_to_air(spec), u)

    return sorted(units, key=key)
