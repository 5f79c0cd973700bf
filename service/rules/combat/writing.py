"""A table back to JSON: the inverse of `read_table`, every field written out."""

from __future__ import annotations

from typing import Any

from service.rules.combat.table import Modifier, SurpriseSide, Table, TerrainEffect


def _modifier(m: Modifier) -> dict[str, Any]:
    out: dict[str, Any] = {"input": m.input, "to": m.to}
    if m.bands:
        out["bands"] = [{"at_least": b.at_least, "value": b.value} for b in m.bands]
    else:
        out["factor"] = m.factor
    return out


def _effect(e: TerrainEffect) -> dict[str, int]:
    return {"defence": e.defence, "shift": e.shift, "roll": e.roll}


def _side(s: SurpriseSide | None, key: str) -> dict[str, Any] | None:
    if s is None:
        return None
    return {key: s.threshold, "shift": s.shift_dice.text if s.shift_dice else s.shift}


def table_to_json(t: Table) -> dict[str, Any]:
    """The JSON form of `t`; `read_table` reads it back to an equal table."""
    surprise = t.surprise
    return {
        "title": t.title,
        "columns": {"by": t.columns.by, "labels": list(t.columns.labels)},
        "dice": t.dice.text,
        "rows": {r.label: list(r.cells) for r in t.rows},
        "legend": {code: [{"kind": e.kind, "value": e.value} for e in effects]
                   for code, effects in t.legend.items()},
        "modifiers": [_modifier(m) for m in t.modifiers],
        "terrain": {k: _effect(v) for k, v in t.terrain.items()},
        "hexsides": {k: _effect(v) for k, v in t.hexsides.items()},
        "surprise": None if surprise is None else {
            "dice": surprise.dice.text,
            "modifiers": [_modifier(m) for m in surprise.modifiers],
            "attacker": _side(surprise.attacker, "at_least"),
            "defender": _side(surprise.defender, "at_most"),
        },
    }
