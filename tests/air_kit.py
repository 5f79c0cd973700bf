"""Air reorganization missions on a hand-drawn row (11.18.1; legend: map_art.py): a CW
ATR and escort at 0101, a face-down CW unit at 0501 (the target), German fighters at
0901 and 1001 and German AA at 0601, next to the target. Tables of our own making whose
every cell reads one code (combat_kit.one_code), so each test picks its result."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from combat_kit import one_code
from engine import Table
from reorg_kit import at_step, doc

from service.rules.awaiting import awaiting

ROW = ". . . . . . . . g g"  # 0101 .. 1001; 0901, 1001 German
UNITS = [("cw-atr", "cw", "ATR", "0101", None), ("cw-ftr", "cw", "FTR", "0101", None),
         ("cw-a", "cw", "INF", "0501", "combat"), ("cw-b", "cw", "INF", "0501", "combat"),
         ("ger-ftr-1", "germany", "FTR", "0901", None),
         ("ger-ftr-2", "germany", "FTR", "1001", None),
         ("ger-flak", "germany", "INF", "0601", "combat")]


def air_table(code: str, effects: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return one_code(code, effects, dice="1d10", columns=("-5", "0", "+5"), by="differential")


def aa_table(code: str, effects: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return one_code(code, effects, dice="1d10", columns=("1", "3"), by="strength")


def mission_doc(*, air: dict[str, Any] | None = None, aa: dict[str, Any] | None = None,
                flak: int = 2, ranges: Mapping[str, int] | None = None,
                large: bool = False, atr_range: int = 6) -> dict[str, Any]:
    """The row with the tables given (none: that table is missing); `ranges` of the
    fighters (default cw-ftr 5, ger-ftr-1 4, ger-ftr-2 5)."""
    data = doc(ROW, sources={"0101": ("primary", "cw")}, units=UNITS,
               down=["cw-a", "cw-b"],
               atrs={"cw-atr": {"range": atr_range, "large": large, "base": "0101"}})
    reach = {"cw-ftr": 5, "ger-ftr-1": 4, "ger-ftr-2": 5, **(ranges or {})}
    for u in data["units"]:
        if u["id"] in reach:
            u["air"] = {"range": reach[u["id"]], "air_to_air": 3}
        if u["id"] == "ger-flak" and flak:
            u["aa"] = flak
    combat: dict[str, Any] = {"results": "tables"}
    if air is not None:
        combat["air"] = air
    if aa is not None:
        combat["aa"] = aa
    data["combat"] = combat
    return data


def mission(air_code: str = "N", air_effects: Sequence[Mapping[str, Any]] = (),
            aa_code: str = "N", aa_effects: Sequence[Mapping[str, Any]] = (),
            options: Mapping[str, Any] | None = None, **kwargs: Any) -> Table:
    """The allies' reorganization step on the row, both tables reading one code ("N":
    no result)."""
    data = mission_doc(air=air_table(air_code, air_effects),
                       aa=aa_table(aa_code, aa_effects), **kwargs)
    return at_step(data, options=options)


def entry(t: Table, side: str | None = None) -> dict[str, Any]:
    """The awaiting entry of `side` (the only one, if None)."""
    entries = awaiting(t.state)
    if side is None:
        assert len(entries) == 1, entries
        return dict(entries[0])
    found = [e for e in entries if e["side"] == side]
    assert len(found) == 1, entries
    return dict(found[0])


def fly(t: Table, *, units: Sequence[str] = ("cw-a",), escorts: Sequence[tuple[str, str]] = (),
        hex_id: str = "0501") -> None:
    """The allies announce air reorganization, the axis patrols nowhere, the CW ATR flies
    to `hex_id` for `units` with `escorts`."""
    t.act("air.begin", {}, side="allies")
    if t.state.air is not None and t.state.air.window == "air.patrol":
        t.act("air.patrol", {"patrols": []}, side="axis")
    t.act("air.fly", {"power": "cw", "flights": [{"atr": "cw-atr", "hex": hex_id,
                                                  "units": list(units)}],
                      "escorts": [{"unit": u, "hex": h} for u, h in escorts]}, side="allies")


def texts(t: Table, kind: str) -> list[str]:
    return [e.text for e in t.events if e.kind == kind]


def data(t: Table, kind: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in t.events if e.kind == kind]
