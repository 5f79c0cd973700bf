"""Reorganization in a side's view (11.18; docs/api.md): what every source, port and
provider of the side can still do in the current reorganization step, the rail moves
left in the impulse (moves by rail and railway reorganization, 11.18.6), and the RPs
that lapse when the side says done. RPs left are `powers[p].rps` in the view itself.
The GM sees every side. No path is traced here: capacities are counters and the
scenario's numbers.
"""

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from service.rules import state as st
from service.rules.board import grid_of
from service.rules.reorg.counters import counters, period_key
from service.rules.scenario import ATR, HQ, SUPPLY, TRS
from service.rules.state import State


class Counter(TypedDict):
    """A provider's limits (null: none), what it used and what is left, per measure."""

    limits: dict[str, int | None]
    used: dict[str, int]
    left: dict[str, int | None]


class SourceView(Counter):
    """A supply source and what it can still reorganize (11.18.3, 11.18.5, 11.18.7)."""

    hex: str
    name: str | None
    kind: str
    power: str | None
    factories: int
    # The period (turn.impulse) the source last reorganized a unit out of
    # communication in this turn, if it did (11.18.5): once per turn.
    out_of_communication_used: str | None


class PortView(Counter):
    """A port and the units it can still pass this impulse (11.18.4)."""

    hex: str
    name: str | None
    port: str
    damaged: bool
    repaired: bool


class ProviderView(Counter):
    """An HQ, ATR, TRS or supply unit and what it can still do (11.18.1-11.18.8)."""

    type: str
    face_up: bool
    roles: list[str]
    range: NotRequired[int]


class ReorgView(TypedDict):
    """Reorganization in a side's view: every source's, port's and provider's counters
    in the current step, the rail moves left (11.18.6), and the RPs of each power that
    lapse when its side says done (11.18)."""

    in_step: bool
    period: str | None
    rps_lapse_on_done: dict[str, int]
    basic_path: int | None
    rail_moves: dict[str, Counter]
    sources: list[SourceView]
    ports: list[PortView]
    providers: dict[str, ProviderView]
    reorganized: list[str]
    repaired_ports: list[str]


def _entry(limits: dict[str, int | None], used: dict[str, int]) -> Counter:
    left = {k: None if v is None else max(0, v - used.get(k, 0)) for k, v in limits.items()}
    return {"limits": limits, "used": used, "left": left}


def _provider(kind: str, face_up: bool, roles: list[str], entry: Counter) -> ProviderView:
    return {"type": kind, "face_up": face_up, "roles": roles, "limits": entry["limits"],
            "used": entry["used"], "left": entry["left"]}


# long: one entry per kind of provider of 11.18, read from the step's counters.
def reorg_view(state: State, side: str | None) -> ReorgView:
    """Reorganization counters for `side` (None: every side, for the GM)."""
    sc = state.setup.scenario
    t = state.turn
    o = state.setup.options["reorg"]
    in_step = t.step in (st.REORGANIZATION, st.FINAL_REORGANIZATION)
    period = period_key(t.number, t.impulse, t.step)
    r = counters(state.reorg, period)
    used = r.used

    def mine(power: str | None) -> bool:
        return power is not None and (side is None or sc.side_of_power(power) == side)

    g = grid_of(sc.map)
    sources: list[SourceView] = []
    for i, (kind, supplier) in sorted(g.source_at.items()):
        hid = g.ids[i]
        if not mine(supplier or None):
            continue
        h = sc.map.hex(hid)
        if kind == "primary" and o["primary_limit"] == "factories":
            limits: dict[str, int | None] = {"units": None, "corps": 1,
                                             "fuel_dependent": h.factories}
            count = {"units": used.get(f"primary:{hid}", 0),
                     "corps": used.get(f"corps:{hid}", 0),
                     "fuel_dependent": used.get(f"oil:{hid}", 0)}
        elif kind == "primary":
            limits, count = {"units": 2}, {"units": used.get(f"primary:{hid}", 0)}
        else:
            limits, count = {"units": 1}, {"units": used.get(f"{kind}:{hid}", 0)}
        sources.append({"hex": hid, "name": h.city, "kind": kind, "power": supplier,
                        "factories": h.factories, "out_of_communication_used": r.isolated.get(hid),
                        **_entry(limits, count)})
    ports: list[PortView] = []
    minor = int(o["minor_port_limit"])
    for i, (kind, damaged) in sorted(g.ports.items()):
        hid = g.ids[i]
        if not mine(g.controllers[g.controller_code[i]]):
            continue
        repaired = hid in r.repaired_ports
        ports.append({"hex": hid, "name": sc.map.hex(hid).city, "port": kind,
                      "damaged": damaged and not repaired, "repaired": repaired,
                      **_entry({"units": minor if kind == "minor" else None},
                               {"units": used.get(f"port:{hid}", 0)})})
    providers: dict[str, ProviderView] = {}
    for uid, u in sorted(state.units.items()):
        spec = sc.unit(uid)
        if not mine(u.power) or spec.type not in (HQ, ATR, TRS, SUPPLY):
            continue
        roles = list(r.dispensed.get(uid, ()))
        if spec.type == HQ:
            value = spec.hq_reorg or 0
            entry = _entry({"units": value, "as_primary": value, "as_secondary": 1},
                           {"units": used.get(f"hq:{uid}", 0) // 2,
                            "as_primary": used.get(f"hqp:{uid}", 0),
                            "as_secondary": used.get(f"secondary:{uid}", 0)})
        elif spec.type == ATR:
            large = bool(spec.atr and spec.atr.large)
            entry = _entry({"units": 2 if large else 1}, {"units": used.get(f"atr:{uid}", 0)})
            providers[uid] = _provider(spec.type, u.face_up, roles, entry)
            providers[uid]["range"] = spec.atr.range if spec.atr else 0
            continue
        elif spec.type == TRS:
            entry = _entry({"units": 1}, {"units": used.get(f"trs:{uid}", 0)})
        else:
            entry = _entry({"units": 3}, {"units": used.get(f"supply:{uid}", 0)})
        providers[uid] = _provider(spec.type, u.face_up, roles, entry)
    waiting = [x for x in t.step_sides if x not in t.sides_done] if in_step else []
    return {
        "in_step": in_step,
        "period": period if in_step else None,
        # 11.18: "RPs may not be saved": what lapses when each side still in the step is
        # done (logged then as rps.lapsed)
        "rps_lapse_on_done": {p.id: state.powers[p.id].rps for p in sc.powers
                              if mine(p.id) and p.side in waiting
                              and state.powers[p.id].rps > 0},
        "basic_path": None if t.weather is None else t.weather.get("supply_path"),
        "rail_moves": {
            p.id: _entry({"moves": p.rail_moves}, {"moves": state.rail_used(p.id)})
            for p in sc.powers if mine(p.id)
        },
        "sources": sources,
        "ports": ports,
        "providers": providers,
        "reorganized": [uid for uid in r.reorganized
                        if uid not in state.units or mine(state.units[uid].power)],
        "repaired_ports": list(r.repaired_ports),
    }
