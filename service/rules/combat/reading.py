"""A table from JSON (docs/scenario.md "Combat: the tables"), checked against the vocabulary
of its use: the result kinds its legend may name (and their numbers), the inputs its
modifiers may read, the terrains and hexside features it may list. Every problem is
reported with its path (``combat.land.rows.7``), as the scenario reader does.

    {"title": "...", "columns": {"by": "ratio", "labels": ["1:2", "1:1", "2:1"]},
     "dice": "2d6",
     "rows": {"2-4": ["AL1", "AL1 DL1", "DL1o1"], "5-12": ["-", "DL1o1", "DL2o1 DG"]},
     "legend": {"AL1": [{"kind": "attacker_loss", "value": 1}], ...},
     "modifiers": [{"input": "action_ratings", "to": "roll"}],
     "terrain": {"forest": {"defence": 2}}, "hexsides": {"river": {"shift": -1}},
     "surprise": null}
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final, cast

from service.rules.combat.table import (
    COLUMNS_BY,
    NO_RESULT,
    Band,
    Columns,
    ColumnsBy,
    DiceSpec,
    Effect,
    Modifier,
    Row,
    Surprise,
    SurpriseSide,
    Table,
    TerrainEffect,
)

Problems = list[tuple[str, str]]
_DICE: Final = re.compile(r"^([1-9])d([1-9][0-9]?)$")
_RATIO: Final = re.compile(r"^([1-9][0-9]{0,2}):([1-9][0-9]{0,2})$")
_DIFFERENTIAL: Final = re.compile(r"^([+-]?[0-9]{1,3})$")
_STRENGTH: Final = re.compile(r"^([0-9]{1,4})(?:-([0-9]{1,4})|(\+))?$")
_ROLL: Final = re.compile(r"^(-?[0-9]{1,3})(?:-(-?[0-9]{1,3}))?$")
_CODE: Final = re.compile(r"^[A-Za-z0-9/*+.:=!#]{1,16}$")
_INPUT: Final = re.compile(r"^[a-z][a-z_]{0,39}$")
_TABLE_FIELDS: Final = ("title", "columns", "dice", "rows", "legend", "modifiers", "terrain",
                        "hexsides", "surprise")
_COLUMNS_FIELDS: Final = ("by", "labels")
_MODIFIER_FIELDS: Final = ("input", "to", "factor", "bands")
_EFFECT_FIELDS: Final = ("defence", "shift", "roll")
_SURPRISE_FIELDS: Final = ("dice", "modifiers", "attacker", "defender")


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """What a table of one use may say: result `kinds` with the range of their number
    (None: the kind has none), the `inputs` its modifiers may read, the `terrains` and
    `hexsides` it may list, and the most columns, rows and codes."""

    kinds: Mapping[str, tuple[int, int] | None]
    inputs: tuple[str, ...] = ()
    terrains: tuple[str, ...] = ()
    hexsides: tuple[str, ...] = ()
    max_columns: int = 30
    max_rows: int = 100
    max_codes: int = 200


@dataclass(slots=True)
class _Reader:
    problems: Problems
    bad: bool = field(default=False)

    def fail(self, path: str, message: str) -> None:
        self.bad = True
        self.problems.append((path, message))

    def obj(self, value: object, path: str, known: tuple[str, ...]) -> Mapping[str, Any] | None:
        if not isinstance(value, Mapping):
            self.fail(path, f"expected an object, got {_what(value)}")
            return None
        for key in value:
            if key not in known:
                self.fail(f"{path}.{key}", "unknown field")
        return cast(Mapping[str, Any], value)

    def integer(self, value: object, path: str, lo: int, hi: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(path, f"expected an integer, got {_what(value)}")
            return lo
        if not lo <= value <= hi:
            self.fail(path, f"must be between {lo} and {hi}, got {value}")
            return lo
        return value


def _what(v: object) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int | float):
        return "a number"
    if isinstance(v, str):
        return f"the string {v!r}"
    if isinstance(v, list):
        return "an array"
    return "an object" if isinstance(v, Mapping) else type(v).__name__


def read_dice(r: _Reader, value: object, path: str) -> DiceSpec:
    match = _DICE.match(value) if isinstance(value, str) else None
    if match is None or not 2 <= int(match.group(2)) <= 20:
        r.fail(path, f"dice are NdM with N 1-9 and M 2-20 (\"2d6\", \"1d10\"), got "
                     f"{_what(value)}")
        return DiceSpec(1, 6)
    return DiceSpec(int(match.group(1)), int(match.group(2)))


def threshold(by: ColumnsBy, label: object) -> Fraction | None:
    """The least value a column label (or an overrun threshold) stands for, or None if
    it is not a label of columns `by`."""
    if not isinstance(label, str):
        return None
    if by == "ratio":
        m = _RATIO.match(label)
        return Fraction(int(m.group(1)), int(m.group(2))) if m else None
    if by == "differential":
        m = _DIFFERENTIAL.match(label)
        return Fraction(int(m.group(1))) if m else None
    m = _STRENGTH.match(label)
    return Fraction(int(m.group(1))) if m else None


_LABEL_HINT: Final[Mapping[str, str]] = {
    "ratio": "odds like \"1:2\" or \"3:1\"",
    "differential": "a whole number like \"-2\", \"0\" or \"+3\"",
    "strength": "a strength like \"1\", \"3-4\" or \"25+\"",
}


def _columns(r: _Reader, value: object, path: str, most: int) -> Columns | None:
    m = r.obj(value, path, _COLUMNS_FIELDS)
    if m is None:
        return None
    by = m.get("by")
    if by not in COLUMNS_BY:
        r.fail(f"{path}.by", f"expected one of {', '.join(COLUMNS_BY)}, got {_what(by)}")
        return None
    labels = m.get("labels")
    if not isinstance(labels, list) or not 1 <= len(labels) <= most:
        r.fail(f"{path}.labels", f"expected an array of 1-{most} column labels")
        return None
    floors: list[Fraction] = []
    texts: list[str] = []
    for i, label in enumerate(labels):
        floor = threshold(cast(ColumnsBy, by), label)
        if floor is None:
            r.fail(f"{path}.labels.{i}", f"expected {_LABEL_HINT[by]}, got {_what(label)}")
            return None
        if floors and floor <= floors[-1]:
            r.fail(f"{path}.labels.{i}", f"columns go from the least to the most: {label} "
                                        f"does not come after {texts[-1]}")
            return None
        floors.append(floor)
        texts.append(str(label))
    return Columns(cast(ColumnsBy, by), tuple(texts), tuple(floors))


def _rows(r: _Reader, value: object, path: str, width: int, dice: DiceSpec,
          most: int) -> tuple[Row, ...]:
    if not isinstance(value, Mapping) or not 1 <= len(value) <= most:
        r.fail(path, f"expected an object of 1-{most} rows: dice totals (\"2\", \"3-4\") "
                     "to a cell per column")
        return ()
    rows: list[Row] = []
    for label, cells in value.items():
        where = f"{path}.{label}"
        m = _ROLL.match(label) if isinstance(label, str) else None
        low = int(m.group(1)) if m else 0
        high = int(m.group(2)) if m and m.group(2) is not None else low
        if m is None or high < low:
            r.fail(where, "a row is a dice total (\"7\") or a range of them (\"3-4\")")
            continue
        if not isinstance(cells, list) or len(cells) != width:
            r.fail(where, f"expected {width} cells, one per column")
            continue
        if not all(isinstance(c, str) and c.strip() for c in cells):
            r.fail(where, "each cell is a string of result codes (\"-\" for none)")
            continue
        rows.append(Row(str(label), low, high, tuple(" ".join(c.split()) for c in cells)))
    rows.sort(key=lambda x: x.low)
    for before, after in zip(rows, rows[1:], strict=False):
        if after.low != before.high + 1:
            r.fail(f"{path}.{after.label}", f"rows cover the totals without gap or overlap: "
                                            f"{before.label} then {after.label}")
    if rows and not (rows[0].low <= dice.lowest and rows[-1].high >= dice.highest):
        r.fail(path, f"the rows cover every total of {dice.text} ({dice.lowest}-"
                     f"{dice.highest}); lower and higher modified totals read the first "
                     "and the last row")
    return tuple(rows)


def _legend(r: _Reader, value: object, path: str, vocabulary: Vocabulary
            ) -> dict[str, tuple[Effect, ...]]:
    if not isinstance(value, Mapping) or len(value) > vocabulary.max_codes:
        r.fail(path, f"expected an object of at most {vocabulary.max_codes} codes, each "
                     "with its results")
        return {}
    kinds = vocabulary.kinds
    out: dict[str, tuple[Effect, ...]] = {}
    for code, effects in value.items():
        where = f"{path}.{code}"
        if not isinstance(code, str) or not _CODE.match(code) or code == NO_RESULT:
            r.fail(where, "a code is 1-16 letters, digits or / * + . : = ! # (\"-\" is no "
                          "result and needs no entry)")
            continue
        if not isinstance(effects, list) or len(effects) > 12:
            r.fail(where, "expected an array of at most 12 results")
            continue
        read: list[Effect] = []
        for j, item in enumerate(effects):
            m = r.obj(item, f"{where}.{j}", ("kind", "value"))
            if m is None:
                continue
            kind = m.get("kind")
            if kind not in kinds:
                r.fail(f"{where}.{j}.kind", f"expected one of {', '.join(kinds)}, got "
                                            f"{_what(kind)}")
                continue
            span = kinds[str(kind)]
            if span is None:
                if m.get("value") is not None:
                    r.fail(f"{where}.{j}.value", f"{kind} takes no value")
                read.append(Effect(str(kind)))
                continue
            read.append(Effect(str(kind), r.integer(m.get("value"), f"{where}.{j}.value",
                                                    *span)))
        out[code] = tuple(read)
    return out


def _modifiers(r: _Reader, value: object, path: str, inputs: tuple[str, ...],
               roll_only: bool = False) -> tuple[Modifier, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > 10:
        r.fail(path, "expected an array of at most 10 modifiers")
        return ()
    out: list[Modifier] = []
    for i, item in enumerate(value):
        where = f"{path}.{i}"
        m = r.obj(item, where, _MODIFIER_FIELDS)
        if m is None:
            continue
        name = m.get("input")
        if not isinstance(name, str) or not _INPUT.match(name) or name not in inputs:
            r.fail(f"{where}.input", f"expected one of {', '.join(inputs) or '(none here)'}, "
                                     f"got {_what(name)}")
            continue
        to = m.get("to", "roll")
        if to not in (("roll",) if roll_only else ("roll", "columns")):
            r.fail(f"{where}.to", "expected roll" + ("" if roll_only else " or columns"))
            continue
        factor = r.integer(m.get("factor", 1), f"{where}.factor", -10, 10)
        bands: list[Band] = []
        raw = m.get("bands")
        if raw is not None:
            if not isinstance(raw, list) or not 1 <= len(raw) <= 20:
                r.fail(f"{where}.bands", "expected an array of 1-20 bands")
                continue
            for k, band in enumerate(raw):
                b = r.obj(band, f"{where}.bands.{k}", ("at_least", "value"))
                if b is None:
                    continue
                at_least = r.integer(b.get("at_least"), f"{where}.bands.{k}.at_least",
                                     -100, 1000)
                if bands and at_least <= bands[-1].at_least:
                    r.fail(f"{where}.bands.{k}.at_least", "bands go up")
                bands.append(Band(at_least, r.integer(b.get("value"),
                                                      f"{where}.bands.{k}.value", -20, 20)))
            if m.get("factor") is not None:
                r.fail(f"{where}.factor", "a modifier has a factor or bands, not both")
        out.append(Modifier(name, "columns" if to == "columns" else "roll", factor,
                            tuple(bands)))
    return tuple(out)


def _effects(r: _Reader, value: object, path: str, names: tuple[str, ...], what: str
             ) -> dict[str, TerrainEffect]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        r.fail(path, f"expected an object of {what}s")
        return {}
    out: dict[str, TerrainEffect] = {}
    for name, effect in value.items():
        where = f"{path}.{name}"
        if name not in names:
            r.fail(where, f"unknown {what}; expected one of {', '.join(names)}")
            continue
        m = r.obj(effect, where, _EFFECT_FIELDS)
        if m is None:
            continue
        out[str(name)] = TerrainEffect(
            defence=r.integer(m.get("defence", 1), f"{where}.defence", 1, 10),
            shift=r.integer(m.get("shift", 0), f"{where}.shift", -10, 10),
            roll=r.integer(m.get("roll", 0), f"{where}.roll", -10, 10))
    return out


def _surprise_side(r: _Reader, value: object, path: str, key: str) -> SurpriseSide | None:
    if value is None:
        return None
    m = r.obj(value, path, (key, "shift"))
    if m is None:
        return None
    at = r.integer(m.get(key), f"{path}.{key}", -100, 200)
    shift = m.get("shift")
    if isinstance(shift, str):
        return SurpriseSide(at, shift_dice=read_dice(r, shift, f"{path}.shift"))
    return SurpriseSide(at, shift=r.integer(shift, f"{path}.shift", 1, 10))


def _surprise(r: _Reader, value: object, path: str, inputs: tuple[str, ...]
              ) -> Surprise | None:
    if value is None:
        return None
    m = r.obj(value, path, _SURPRISE_FIELDS)
    if m is None:
        return None
    surprise = Surprise(
        dice=read_dice(r, m.get("dice"), f"{path}.dice"),
        modifiers=_modifiers(r, m.get("modifiers"), f"{path}.modifiers", inputs,
                             roll_only=True),
        attacker=_surprise_side(r, m.get("attacker"), f"{path}.attacker", "at_least"),
        defender=_surprise_side(r, m.get("defender"), f"{path}.defender", "at_most"))
    if surprise.attacker is None and surprise.defender is None:
        r.fail(path, "a surprise roll surprises the attacker, the defender or both")
    return surprise


def read_table(value: object, path: str, vocabulary: Vocabulary, problems: Problems
               ) -> Table | None:
    """The table at `path`, or None with its problems added to `problems`."""
    r = _Reader(problems)
    m = r.obj(value, path, _TABLE_FIELDS)
    if m is None:
        return None
    title = m.get("title")
    if title is not None and (not isinstance(title, str) or not title.strip()
                              or len(title) > 200):
        r.fail(f"{path}.title", "expected a text of 1-200 characters")
    columns = _columns(r, m.get("columns"), f"{path}.columns", vocabulary.max_columns)
    dice = read_dice(r, m.get("dice"), f"{path}.dice")
    rows = _rows(r, m.get("rows"), f"{path}.rows", len(columns.labels) if columns else 0,
                 dice, vocabulary.max_rows) if columns else ()
    legend = _legend(r, m.get("legend"), f"{path}.legend", vocabulary)
    missing: set[str] = set()
    for row in rows:
        for k, cell in enumerate(row.cells):
            for code in cell.split():
                if code != NO_RESULT and code not in legend and code not in missing \
                        and isinstance(m.get("legend"), Mapping) and code not in m["legend"]:
                    missing.add(code)
                    r.fail(f"{path}.rows.{row.label}.{k}",
                           f"code {code!r} is not in the legend")
    table = Table(
        columns=columns or Columns("ratio", (), ()), dice=dice, rows=rows, legend=legend,
        title=title if isinstance(title, str) else None,
        modifiers=_modifiers(r, m.get("modifiers"), f"{path}.modifiers", vocabulary.inputs),
        terrain=_effects(r, m.get("terrain"), f"{path}.terrain", vocabulary.terrains,
                         "terrain"),
        hexsides=_effects(r, m.get("hexsides"), f"{path}.hexsides", vocabulary.hexsides,
                          "hexside feature"),
        surprise=_surprise(r, m.get("surprise"), f"{path}.surprise", vocabulary.inputs))
    return None if r.bad or columns is None else table
