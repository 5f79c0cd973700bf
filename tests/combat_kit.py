"""Combat tables for the tests, of our own making (docs/scenario.md "Combat: the tables"):
tables whose every cell reads one code (the result under test, whatever the odds and
the dice), tables whose cells name their column (the odds under test), and helpers to
drive a combat the referee decides on the `modes` scenario (modes_kit.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine import Table
from modes_kit import game, report, until

RATIOS = ("1:2", "1:1", "3:2", "2:1", "3:1", "4:1")


def one_code(code: str, effects: Sequence[Mapping[str, Any]], *, dice: str = "1d6",
             columns: Sequence[str] = RATIOS, by: str = "ratio",
             **fields: Any) -> dict[str, Any]:
    """A table whose every cell is `code`, meaning `effects`."""
    faces = int(dice.split("d")[1]) * int(dice.split("d")[0])
    return {"columns": {"by": by, "labels": list(columns)}, "dice": dice,
            "rows": {f"{int(dice.split('d')[0])}-{faces}": [code] * len(columns)},
            "legend": {code: [dict(e) for e in effects]}, **fields}


def by_column(*, dice: str = "1d6", columns: Sequence[str] = RATIOS, by: str = "ratio",
              **fields: Any) -> dict[str, Any]:
    """A table whose cells name their column ("c0", "c1", ...), with no result."""
    count = int(dice.split("d")[0])
    faces = int(dice.split("d")[1]) * count
    return {"columns": {"by": by, "labels": list(columns)}, "dice": dice,
            "rows": {f"{count}-{faces}": [f"c{i}" for i in range(len(columns))]},
            "legend": {f"c{i}": [] for i in range(len(columns))}, **fields}


def combat_section(land: Mapping[str, Any] | None = None, **more: Any) -> dict[str, Any]:
    return {"results": "tables", **({"land": dict(land)} if land else {}), **more}


def fight(units: Mapping[str, Mapping[str, Any]] | None = None, *, land: Mapping[str, Any],
          step: str = "combat", dice: Sequence[int] = (), **kwargs: Any) -> Table:
    """The modes game with `land` as its land table, at `step`, the combat dice
    scripted."""
    extra = kwargs.pop("combat", {})
    t = game(units, combat=combat_section(land, **extra), **kwargs)
    until(t, step)
    t.dice.script["combat"] = list(dice)
    return t


def attack(t: Table, hex_id: str, *attackers: str, by: str = "combat",
           side: str = "axis") -> None:
    report(t, side, combats=[{"by": by, "hex": hex_id, "attackers": list(attackers)}])


def resolved(t: Table) -> Any:
    """The data of the last `combat.resolved` event."""
    return [e for e in t.events if e.kind == "combat.resolved"][-1].data


def question(t: Table) -> dict[str, Any]:
    """The awaiting entry of the question asked now."""
    entries = t.awaiting()
    assert len(entries) == 1 and entries[0]["step"] == "combat.choice", entries
    return entries[0]
