"""A table as the engine knows it: columns, dice, modifiers, cells and a legend, and how
one is read. Nothing here knows a game: the caller brings the strengths, the named
inputs of the modifiers (an action rating difference, a hex's density...), the terrain
and hexside features that apply and the dice it rolled; the table says which column,
which row and what the cell's codes mean.

- Columns (`Columns`) are picked by the odds `ratio` of attack to defence (labels
  "1:2", "3:1": the highest column the odds reach, rounded in the defender's favour),
  by the `differential` attack minus defence (labels "-2", "0", "+3"), or by the
  attack's `strength` alone (labels "1", "3-4", "25+": a barrage). Odds below the first
  column read the first one; shifts move the column and stop at either end.
- The dice (`DiceSpec`, "2d6", "1d10", "2d10") are added up; die-roll modifiers change
  the total, and a total beyond the rows reads the first or the last row.
- Modifiers (`Modifier`) turn a named input into columns or a die-roll modifier, by a
  factor or by bands; terrain and hexside effects (`TerrainEffect`) multiply the
  defence, shift columns or modify the roll; a surprise roll (`Surprise`) may shift the
  column for the attacker or the defender before the table is read.
- A cell holds result codes separated by spaces ("AL1 DL1o1"); the legend (`Effect`)
  says what each code means as result kinds the caller defined. "-" is no result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final, Literal

ColumnsBy = Literal["ratio", "differential", "strength"]
COLUMNS_BY: Final = ("ratio", "differential", "strength")
NO_RESULT: Final = "-"


@dataclass(frozen=True, slots=True)
class DiceSpec:
    """`count` dice of `faces` faces, added up ("2d6")."""

    count: int
    faces: int

    @property
    def text(self) -> str:
        return f"{self.count}d{self.faces}"

    @property
    def lowest(self) -> int:
        return self.count

    @property
    def highest(self) -> int:
        return self.count * self.faces


@dataclass(frozen=True, slots=True)
class Columns:
    """How a value picks a column: `by` and the columns' labels with the least value
    each stands for (`floors`, increasing)."""

    by: ColumnsBy
    labels: tuple[str, ...]
    floors: tuple[Fraction, ...]

    def index(self, value: Fraction | None) -> int:
        """The column a value reads (None: odds against no defence, the last column);
        below the first column, the first."""
        if value is None:
            return len(self.labels) - 1
        found = 0
        for i, floor in enumerate(self.floors):
            if value >= floor:
                found = i
        return found

    def clamp(self, index: int) -> int:
        return max(0, min(len(self.labels) - 1, index))


@dataclass(frozen=True, slots=True)
class Band:
    """From `at_least` up (to the next band), the input is worth `value`."""

    at_least: int
    value: int


@dataclass(frozen=True, slots=True)
class Modifier:
    """A named input the caller computes, worth columns (`to` "columns", right is in the
    attacker's favour) or a die-roll modifier (`to` "roll"): `factor` times the input,
    or the value of the highest band it reaches (none reached: 0)."""

    input: str
    to: Literal["roll", "columns"]
    factor: int = 1
    bands: tuple[Band, ...] = ()

    def worth(self, value: int) -> int:
        if not self.bands:
            return self.factor * value
        found = 0
        for band in self.bands:
            if value >= band.at_least:
                found = band.value
        return found


@dataclass(frozen=True, slots=True)
class TerrainEffect:
    """What a terrain (the defender's hex) or a hexside feature (between every attacker
    and the defender) does: the defence multiplied by `defence`, `shift` columns (left
    is negative, in the defender's favour), `roll` added to the dice."""

    defence: int = 1
    shift: int = 0
    roll: int = 0


@dataclass(frozen=True, slots=True)
class SurpriseSide:
    """A surprise for one side: at or past `threshold` the column shifts by `shift`
    columns, or by a roll of `shift_dice`."""

    threshold: int
    shift: int = 0
    shift_dice: DiceSpec | None = None


@dataclass(frozen=True, slots=True)
class Surprise:
    """A roll before the combat (its total plus `modifiers`): at least the attacker's
    threshold shifts the column right, at most the defender's shifts it left."""

    dice: DiceSpec
    modifiers: tuple[Modifier, ...] = ()
    attacker: SurpriseSide | None = None
    defender: SurpriseSide | None = None

    def side(self, total: int) -> Literal["attacker", "defender"] | None:
        """Who the modified surprise total surprises, if anyone."""
        if self.attacker is not None and total >= self.attacker.threshold:
            return "attacker"
        if self.defender is not None and total <= self.defender.threshold:
            return "defender"
        return None


@dataclass(frozen=True, slots=True)
class Effect:
    """One result kind of a code and its number (steps, hexes, a rating), if it has
    one."""

    kind: str
    value: int | None = None


@dataclass(frozen=True, slots=True)
class Row:
    """The dice totals `low`-`high` and the cells of that row, one per column."""

    label: str
    low: int
    high: int
    cells: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Table:
    """Columns, dice, rows of cells, the legend of the codes in them, and what changes
    the column or the roll: modifiers, terrain, hexside features, a surprise roll."""

    columns: Columns
    dice: DiceSpec
    rows: tuple[Row, ...]
    legend: Mapping[str, tuple[Effect, ...]]
    title: str | None = None
    modifiers: tuple[Modifier, ...] = ()
    terrain: Mapping[str, TerrainEffect] = field(default_factory=dict)
    hexsides: Mapping[str, TerrainEffect] = field(default_factory=dict)
    surprise: Surprise | None = None

    def row_index(self, total: int) -> int:
        for i, row in enumerate(self.rows):
            if row.low <= total <= row.high:
                return i
        return 0 if total < self.rows[0].low else len(self.rows) - 1

    def effects(self, code_text: str) -> tuple[Effect, ...]:
        """What a cell's codes mean, in order."""
        out: list[Effect] = []
        for code in code_text.split():
            if code != NO_RESULT:
                out += self.legend[code]
        return tuple(out)


def fmt(x: Fraction | int) -> str:
    """A number as a player writes it: 4, 2.5, 1.25."""
    x = Fraction(x)
    if x.denominator == 1:
        return str(x.numerator)
    return f"{float(x):.2f}".rstrip("0").rstrip(".")


@dataclass(frozen=True, slots=True)
class Odds:
    """Strengths to column, before the dice: the attack, the defence and its terrain
    multiplier, the value the columns read, the column and every shift and die-roll
    modifier with why."""

    table: Table
    attack: Fraction
    defence: Fraction
    multiplier: int
    value: Fraction | None
    base: int
    shifts: tuple[tuple[str, int], ...]
    drms: tuple[tuple[str, int], ...]

    @property
    def defended(self) -> Fraction:
        return self.defence * self.multiplier

    @property
    def column(self) -> int:
        return self.table.columns.clamp(self.base + sum(s for _, s in self.shifts))

    @property
    def label(self) -> str:
        return self.table.columns.labels[self.column]

    @property
    def drm(self) -> int:
        return sum(d for _, d in self.drms)

    def shifted(self, why: str, columns: int) -> Odds:
        return Odds(self.table, self.attack, self.defence, self.multiplier, self.value,
                    self.base, (*self.shifts, (why, columns)), self.drms)

    def value_words(self) -> str:
        by = self.table.columns.by
        if by == "strength":
            return f"strength {fmt(self.attack)}"
        if by == "differential":
            assert self.value is not None
            return f"{fmt(self.attack)} - {fmt(self.defended)} = {fmt(self.value)}"
        if self.value is None:
            return f"{fmt(self.attack)} against 0"
        return f"{fmt(self.attack)} : {fmt(self.defended)}"

    def words(self) -> str:
        """"6 : 8 -> 1:2, -1 column river -> 1:3" (the dice come after)."""
        text = f"{self.value_words()} -> {self.table.columns.labels[self.base]}"
        for why, columns in self.shifts:
            if columns:
                text += f", {columns:+d} column{'s' if abs(columns) > 1 else ''} {why}"
        if any(c for _, c in self.shifts):
            text += f" -> {self.label}"
        return text


def odds(table: Table, attack: Fraction, defence: Fraction, *,
         inputs: Mapping[str, int] | None = None, terrain: str | None = None,
         hexsides: Sequence[str] = ()) -> Odds:
    """The column and modifiers for `attack` against `defence` (before the terrain's
    multiplier), with the caller's named `inputs`, the defender's `terrain` and the
    hexside features every attacker attacks across."""
    multiplier = 1
    shifts: list[tuple[str, int]] = []
    drms: list[tuple[str, int]] = []
    effects = [(terrain, table.terrain.get(terrain))] if terrain is not None else []
    effects += [(f"{feature} hexside", table.hexsides.get(feature)) for feature in hexsides]
    for name, effect in effects:
        if effect is None:
            continue
        multiplier *= effect.defence
        if effect.shift:
            shifts.append((str(name), effect.shift))
        if effect.roll:
            drms.append((str(name), effect.roll))
    for mod in table.modifiers:
        worth = mod.worth((inputs or {}).get(mod.input, 0))
        if worth:
            (shifts if mod.to == "columns" else drms).append((mod.input.replace("_", " "),
                                                              worth))
    defended = defence * multiplier
    by = table.columns.by
    value: Fraction | None
    if by == "ratio":
        value = None if defended == 0 else attack / defended
    elif by == "differential":
        value = attack - defended
    else:
        value = attack
    base = table.columns.index(value)
    return Odds(table, attack, defence, multiplier, value, base, tuple(shifts), tuple(drms))


@dataclass(frozen=True, slots=True)
class Outcome:
    """The table read: the odds (with any surprise shift), the dice, the modified total,
    the row, the cell's codes and what they mean."""

    odds: Odds
    values: tuple[int, ...]
    total: int
    row: int
    code: str
    effects: tuple[Effect, ...]

    def words(self) -> str:
        """"column 1:2, 2d6 = 4, -1 action ratings -> 3: AL1 DL1o1"."""
        table = self.odds.table
        text = f"column {self.odds.label}, {table.dice.text} = {sum(self.values)}"
        for why, d in self.odds.drms:
            text += f", {d:+d} {why}"
        if self.odds.drms:
            text += f" -> {self.total}"
        return f"{text}: {self.code}"


def read(o: Odds, values: Sequence[int]) -> Outcome:
    """The cell the dice `values` (plus the odds' modifiers) read in the odds' column."""
    total = sum(values) + o.drm
    row = o.table.row_index(total)
    code = o.table.rows[row].cells[o.column]
    return Outcome(o, tuple(values), total, row, code, o.table.effects(code))
