"""Stop conditions (issue 20; docs/api.md "Standing orders"): what disarms a standing
order, or the answers a `steps` order holds, instead of letting it answer. Each is
judged on the state as the order would answer; the first that holds gives the reason
the side is told."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, cast

from service.rules import state as st
from service.rules.board import grid_of, state_supply
from service.rules.errors import Malformed
from service.rules.standing.bodies import StopBody, StopKind
from service.rules.state import State, Stop
from service.rules.turn.orders import lapsing

STOP_KINDS: Final = ("enemy_adjacent_reserve", "hq_out_of_supply", "unit_attacked",
                     "initiative_close", "rps_lapse")
# The steps whose answer may let RPs lapse: a `final_reorganization` standing order, and
# a `steps` order (its held `done` in the reorganization step), named "" here.
_LAPSING_STEPS: Final = ("", st.FINAL_REORGANIZATION)


def parse_stops(value: object, step: str, path: str) -> tuple[Stop, ...]:
    """A body's `stops`, each known and named once; `initiative_close` (with its
    `within`) only for an `initiative.reroll` order, `rps_lapse` only for a
    `final_reorganization` order or a `steps` order (`step` "")."""
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > 4:
        raise Malformed("order/invalid_body", "stops is a list of at most 4 stop conditions",
                        errors=[(path, "expected [{kind, within?}]")])
    out: list[Stop] = []
    for i, item in enumerate(value):
        where = f"{path}/{i}"
        kind = item.get("kind") if isinstance(item, Mapping) else None
        if kind not in STOP_KINDS:
            raise Malformed("order/invalid_body", f"{where}: a stop is one of "
                            f"{', '.join(STOP_KINDS)}", errors=[(f"{where}/kind", "unknown stop")])
        assert isinstance(item, Mapping)
        within = item.get("within")
        if kind == "initiative_close":
            if step != st.REROLL:
                raise Malformed("standing/stop_step", f"{where}: initiative_close stops only an "
                                "initiative.reroll order", rule="seed 002 Initiative Track",
                                errors=[(f"{where}/kind", "only for initiative.reroll")])
            if not isinstance(within, int) or isinstance(within, bool) or not 0 <= within <= 20:
                raise Malformed("order/invalid_body", f"{where}: initiative_close needs "
                                "within, an integer 0-20", errors=[(f"{where}/within",
                                                                    "expected 0-20")])
        elif kind == "rps_lapse" and step not in _LAPSING_STEPS:
            raise Malformed("standing/stop_step", f"{where}: rps_lapse stops only a "
                            "final_reorganization order or a steps order (no other answer "
                            "lets RPs lapse)", rule="11.18",
                            errors=[(f"{where}/kind", "only for final_reorganization or steps")])
        if kind != "initiative_close" and within is not None:
            raise Malformed("order/invalid_body", f"{where}: only initiative_close has within",
                            errors=[(f"{where}/within", "not for this stop")])
        if any(s.kind == kind for s in out):
            raise Malformed("order/invalid_body", f"{where}: {kind} is named twice",
                            errors=[(f"{where}/kind", "named twice")])
        out.append(Stop(kind=str(kind), within=within if kind == "initiative_close" else None))
    return tuple(out)


def stops_data(stops: Sequence[Stop]) -> list[StopBody]:
    out: list[StopBody] = []
    for s in stops:
        shown: StopBody = {"kind": cast(StopKind, s.kind)}
        if s.within is not None:
            shown["within"] = s.within
        out.append(shown)
    return out


def stops_of(data: object) -> tuple[Stop, ...]:
    items = data if isinstance(data, list) else []
    return tuple(Stop(kind=str(d["kind"]), within=d.get("within")) for d in items)


def hits(state: State, side: str) -> int:
    hit = state.modes.hits.get(side)
    return 0 if hit is None else hit.count


def _attacked(state: State, side: str, seen: int) -> str | None:
    hit = state.modes.hits.get(side)
    if hit is None or hit.count <= seen:
        return None
    return (f"a unit of {side} was attacked ({hit.by} by {hit.attacker} on {hit.hex}, turn "
            f"{hit.turn} impulse {hit.impulse})")


def adjacency(state: State, side: str) -> list[tuple[str, str, str, str]]:
    """(enemy, its hex, reserve unit, its hex): each enemy land unit next to one of
    `side`'s units in Reserve mode, in id order."""
    sc = state.setup.scenario
    grid = grid_of(sc.map)
    land: dict[str, list[str]] = {}
    for uid, u in sorted(state.units.items()):
        if sc.unit(uid).unit_class == "land" and sc.map.is_hex(u.at):
            land.setdefault(u.at, []).append(uid)
    out = []
    for uid, u in sorted(state.units.items()):
        if u.mode != "reserve" or sc.side_of_power(u.power) != side or u.at not in grid.index:
            continue
        for i in grid.nbrs[grid.index[u.at]]:
            hex_id = grid.ids[i]
            out += [(e, hex_id, uid, u.at) for e in land.get(hex_id, ())
                    if sc.at_war(u.power, state.units[e].power)]
    return out


def adjacent_seen(state: State, side: str) -> tuple[str, ...]:
    """What `enemy_adjacent_reserve` has seen: "enemy>reserve" for each pair now."""
    return tuple(sorted({f"{e}>{r}" for e, _, r, _ in adjacency(state, side)}))


def _enemy_next_to_reserve(state: State, side: str, seen: tuple[str, ...]) -> str | None:
    """An enemy unit next to a Reserve unit of `side` that was not next to it when the
    order was armed or last answered (a front already in contact stops nothing)."""
    for enemy, hex_id, uid, at in adjacency(state, side):
        if f"{enemy}>{uid}" not in seen:
            return f"enemy {enemy} in {hex_id} is next to {uid} (Reserve) in {at}"
    return None


def _hq_out_of_supply(state: State, side: str) -> str | None:
    sc = state.setup.scenario
    hqs = [uid for uid, u in sorted(state.units.items())
           if sc.side_of_power(u.power) == side and sc.unit(uid).type.startswith("HQ")
           and sc.map.is_hex(u.at)]
    if not hqs:
        return None
    supply = state_supply(state)
    for uid in hqs:
        status = supply.get(uid)
        if status is not None and not status.in_supply:
            return f"HQ {uid} in {state.units[uid].at} is out of supply ({status.reason})"
    return None


def _initiative_close(state: State, side: str, within: int) -> str | None:
    totals = state.initiative.totals
    if side not in totals:
        return None
    mine = totals[side]
    for other in sorted(totals):
        if other != side and abs(totals[other] - mine) <= within:
            return (f"{side}'s initiative total {mine} is within {within} of {other}'s "
                    f"{totals[other]}")
    return None


def _rps_lapse(state: State, side: str) -> str | None:
    """The side's powers' RPs that its `done` would let lapse now (11.18)."""
    left = lapsing(state, side)
    if not left:
        return None
    shown = ", ".join(f"{p} {n}" for p, n in left.items())
    total = sum(left.values())
    return f"{total} RP{'s' if total != 1 else ''} would lapse ({shown}; 11.18: RPs may " \
           "not be saved)"


def stop_holding(state: State, side: str, stops: Sequence[Stop], seen: int,
                 adjacent: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """The first of `stops` that holds for `side` now, and why; None if none does.
    `seen` and `adjacent`: the attacks and enemy contacts the order has seen."""
    for stop in stops:
        why: str | None = None
        if stop.kind == "unit_attacked":
            why = _attacked(state, side, seen)
        elif stop.kind == "enemy_adjacent_reserve":
            why = _enemy_next_to_reserve(state, side, adjacent)
        elif stop.kind == "hq_out_of_supply":
            why = _hq_out_of_supply(state, side)
        elif stop.kind == "initiative_close":
            why = _initiative_close(state, side, int(stop.within or 0))
        elif stop.kind == "rps_lapse":
            why = _rps_lapse(state, side)
        if why is not None:
            return stop.kind, why
    return None
