"""A combat's, overrun's or barrage's odds as the referee computes them (seed 004), before
any die: each unit's strength from its effective values, the terrain, the inputs of
the table's modifiers, the column (`service.rules.combat`).

Strengths (`effective`): an attacker attacks with its side's strength, halved in DG Mode
(OCS 5.10b A), normal in Exploitation Mode (OCS 5.9); a barrage uses barrage ratings the
same way. A defender defends with its side's strength, halved in Reserve Mode (OCS 5.7)
and in DG Mode (OCS 5.10b A), zero in Strat Mode (OCS 5.8); a hedgehog (no modes, OCS
5.1) with its printed strength; a unit with no combat values (a supply unit) with none.
Action Ratings: the best among the attackers less the best among the defenders, each
as its mode makes it (Strat 0, OCS 5.8; DG one less, OCS 5.10b B). The defender's hex
gives the terrain; a hexside feature counts when every attacking stack attacks across it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from typing_extensions import TypedDict

from service.rules.combat import Odds, Table, fmt, odds
from service.rules.modes import vocabulary as m
from service.rules.modes.effective import effective
from service.rules.state import State

__all__ = ["OddsShown", "Reckoning", "Strength", "StrengthShown", "reckon"]
_MODE_NOTES = {
    m.RESERVE: "Reserve, half: OCS 5.7", m.STRAT: "Strat, zero: OCS 5.8",
    m.DG: "DG, half: OCS 5.10b",
}


@dataclass(frozen=True, slots=True)
class Strength:
    """A unit's part in a combat: its strength and Action Rating there, and why."""

    unit: str
    value: Fraction
    action_rating: int
    note: str

    def words(self) -> str:
        return f"{self.unit} {fmt(self.value)}" + (f" ({self.note})" if self.note else "")


class StrengthShown(TypedDict):
    unit: str
    strength: float
    action_rating: int
    note: str


class OddsShown(TypedDict):
    """The odds as the views and the log give them: each side's units and total, the
    terrain and its multiplier, the value the columns read, the column with every
    shift and die-roll modifier, and the whole in words."""

    by: str
    hex: str
    terrain: str
    attackers: list[StrengthShown]
    defenders: list[StrengthShown]
    attack: float
    defence: float
    multiplier: int
    defended: float
    columns_by: str
    column: str
    base_column: str
    shifts: list[list[str | int]]  # [why, columns]
    roll_modifiers: list[list[str | int]]  # [why, added to the roll]
    dice: str
    inputs: dict[str, int]
    text: str


@dataclass(frozen=True, slots=True)
class Reckoning:
    """The odds of one fight with the strengths and inputs behind them."""

    by: str
    hex: str
    terrain: str
    attackers: tuple[Strength, ...]
    defenders: tuple[Strength, ...]
    inputs: dict[str, int]
    odds: Odds

    @property
    def table(self) -> Table:
        return self.odds.table

    def words(self) -> str:
        """"ger-inf-4 3 + hun-inf-2 3 (6) against ussr-inf-3 4 in forest (4, x2 forest
        = 8): 6 : 8 -> 1:2"."""
        o = self.odds
        attack = " + ".join(s.words() for s in self.attackers)
        if self.by == "barrage":
            target = ", ".join(s.unit for s in self.defenders)
            return f"{attack} ({fmt(o.attack)}) barrage {target} in {self.terrain}: {o.words()}"
        defence = " + ".join(s.words() for s in self.defenders)
        times = (f", x{o.multiplier} {self.terrain} = {fmt(o.defended)}"
                 if o.multiplier != 1 else "")
        return (f"{attack} ({fmt(o.attack)}) against {defence} in {self.terrain} "
                f"({fmt(o.defence)}{times}): {o.words()}")

    def shown(self) -> OddsShown:
        o = self.odds

        def rows(parts: Sequence[Strength]) -> list[StrengthShown]:
            return [{"unit": s.unit, "strength": float(s.value),
                     "action_rating": s.action_rating, "note": s.note} for s in parts]

        return {
            "by": self.by, "hex": self.hex, "terrain": self.terrain,
            "attackers": rows(self.attackers), "defenders": rows(self.defenders),
            "attack": float(o.attack), "defence": float(o.defence),
            "multiplier": o.multiplier, "defended": float(o.defended),
            "columns_by": self.table.columns.by, "column": o.label,
            "base_column": self.table.columns.labels[o.base],
            "shifts": [[why, n] for why, n in o.shifts],
            "roll_modifiers": [[why, n] for why, n in o.drms],
            "dice": self.table.dice.text, "inputs": dict(self.inputs), "text": self.words(),
        }

    def with_odds(self, new: Odds) -> Reckoning:
        return Reckoning(self.by, self.hex, self.terrain, self.attackers, self.defenders,
                         self.inputs, new)


def _attacking(state: State, uid: str, by: str) -> Strength:
    eff = effective(state, uid)
    assert eff is not None  # attackers use modes (check_attacker)
    unit = state.units[uid]
    value = Fraction(eff["barrage"] if by == "barrage" else eff["attack"])
    note = "DG, half: OCS 5.10b" if unit.mode == m.DG else ""
    if unit.mode == m.EXPLOIT:
        note = "Exploit, full: OCS 5.9"
    return Strength(uid, value, eff["action_rating"], note)


def _defending(state: State, uid: str) -> Strength:
    spec = state.setup.scenario.unit(uid)
    eff = effective(state, uid)
    if eff is not None:
        unit = state.units[uid]
        return Strength(uid, Fraction(eff["defence"]), eff["action_rating"],
                        _MODE_NOTES.get(unit.mode or "", ""))
    if spec.ocs is not None:  # a hedgehog: no modes, its printed strength (OCS 5.1)
        return Strength(uid, Fraction(spec.ocs.combat.strength), spec.ocs.action_rating,
                        "no modes: OCS 5.1")
    return Strength(uid, Fraction(0), 0, "no combat values")


def _across(state: State, hex_id: str, attackers: Sequence[str]) -> list[str]:
    """The hexside features every attacking stack attacks across."""
    sc = state.setup.scenario
    features = [sc.map.hexside(state.units[u].at, hex_id) for u in attackers]
    first = features[0] if features else None
    return [first] if first is not None and all(x == first for x in features) else []


def reckon(state: State, by: str, hex_id: str, attackers: Sequence[str],
           defenders: Sequence[str]) -> Reckoning:
    """The odds of a fight the scenario's table decides (`CombatRules.table(by)` is
    given): the attackers already checked (`check_attacker`), `defenders` the enemy land
    units in `hex_id`."""
    sc = state.setup.scenario
    table = sc.combat.table(by)
    assert table is not None
    attacking = tuple(_attacking(state, u, by) for u in attackers)
    defending = tuple(_defending(state, u) for u in defenders)
    best = max((s.action_rating for s in attacking), default=0)
    against = max((s.action_rating for s in defending), default=0)
    stacking = sc.movement.stacking
    inputs = {"action_ratings": best - against, "attackers": len(attacking),
              "defenders": len(defending), "units": len(defending),
              "stacking_points": sum(stacking.points(sc.unit(u)) for u in defenders)}
    terrain = sc.map.hex(hex_id).terrain
    found = odds(table, sum((s.value for s in attacking), Fraction(0)),
                 sum((s.value for s in defending), Fraction(0)), inputs=inputs,
                 terrain=terrain,
                 hexsides=() if by == "barrage" else _across(state, hex_id, attackers))
    return Reckoning(by, hex_id, terrain, attacking, defending, inputs, found)

