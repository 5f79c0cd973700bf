"""The referee's part of an air reorganization mission (11.18.1 steps 5-8): when a window
closes, the next one opens, or the mission is fought: the air-to-air combats over each
target hex (the owners naming the aircraft lost and aborted where the result leaves
them a choice), AA fire on each surviving ATR, the reorganization the surviving ATRs
dispense exactly as the `atr` method of a `reorg` order, and the return of every
aircraft that flew, face down.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.rules.air.fight import dogfight, flak, loss_order
from service.rules.air.windows import (
    CHOICE,
    COUNTER,
    FLIGHT,
    INTERCEPT,
    PATROL,
    mission,
    open_counter,
    open_flight,
    open_intercept,
)
from service.rules.airspace import aa_over, enemy_sides, target_hexes
from service.rules.errors import RulesError
from service.rules.flow import Flow
from service.rules.reorg import check_order, claim_data, item_text
from service.rules.state import AirMission, AirQuestion, State

RULE = "11.18.1"


def advance(f: Flow, closed: str, actor: str) -> None:
    """Every side of window `closed` answered: the next window, or the fight."""
    m = mission(f.state)
    if closed == PATROL:
        open_flight(f)
    elif closed == FLIGHT:
        if not m.items:
            end(f, "it flies no ATR")
        elif not open_intercept(f) and not open_counter(f):
            resolve(f, actor)
    elif closed == INTERCEPT:
        if not open_counter(f):
            resolve(f, actor)
    elif closed in (COUNTER, CHOICE):
        resolve(f, actor)


def aloft(state: State, side: str, hex_id: str) -> list[str]:
    """`side`'s aircraft still fighting over `hex_id`."""
    m = mission(state)
    return [s.unit for s in m.sorties if s.side == side and s.hex == hex_id and s.fate == ""
            and s.unit in state.units]


def _next_combat(state: State) -> tuple[str, str] | None:
    m = mission(state)
    for hex_id in target_hexes(m):
        for enemy in enemy_sides(state, m.side):
            if f"{hex_id}|{enemy}" not in m.fought and aloft(state, enemy, hex_id) \
                    and aloft(state, m.side, hex_id):
                return hex_id, enemy
    return None


def _fight(f: Flow, hex_id: str, enemy: str, actor: str) -> None:
    m = mission(f.state)
    interceptors, ours = aloft(f.state, enemy, hex_id), aloft(f.state, m.side, hex_id)
    result = dogfight(f, hex_id, enemy, interceptors, ours, actor)
    due: list[dict[str, Any]] = []
    lost = min(result.interceptors_lost, len(interceptors))
    if lost:
        due.append({"side": enemy, "lost": lost, "aborted": 0})
    lost = min(result.mission_lost, len(ours))
    aborted = min(result.mission_aborted, len(ours) - lost)
    if lost or aborted:
        due.append({"side": m.side, "lost": lost, "aborted": aborted})
    f.emit("air.combat_resolved", result.text,
           {**result.data, "side": m.side, "key": f"{hex_id}|{enemy}", "due": due}, by=actor)


def _current_hex(m: AirMission) -> str:
    return m.fought[-1].split("|", 1)[0]


def take_losses(f: Flow, side: str, lost: Sequence[str], aborted: Sequence[str], how: str,
                actor: str) -> None:
    """The aircraft of `side` named lost (eliminated) and aborted (home, face down) in the
    current air-to-air combat."""
    hex_id = _current_hex(mission(f.state))
    parts = ([f"{', '.join(lost)} lost"] if lost else []) + (
        [f"{', '.join(aborted)} aborted"] if aborted else [])
    f.emit("air.losses_taken", f"{side} over {hex_id} ({how}): {'; '.join(parts)}.",
           {"hex": hex_id, "side": side, "lost": list(lost), "aborted": list(aborted),
            "how": how}, by=actor)
    for uid in lost:
        f.emit("unit.eliminated", f"{uid} is shot down over {hex_id} (air-to-air, {RULE} "
               "step 5).", {"unit": uid, "hex": f.state.units[uid].at,
                            "cause": f"air-to-air over {hex_id}", "rule": RULE}, by=actor)


def question(state: State, at: str) -> AirQuestion | None:
    """What the first loss due asks its owner, or None when the result leaves no
    choice."""
    m = mission(state)
    side, lost, aborted = m.due[0]
    hex_id = _current_hex(m)
    units = loss_order(state, aloft(state, side, hex_id), side == m.side)
    if lost + aborted == len(units) and (lost == 0 or aborted == 0):
        return None
    against = m.side if side != m.side else m.fought[-1].split("|", 1)[1]
    what = " and ".join(x for x in (f"{lost} lost" if lost else "",
                                     f"{aborted} aborted" if aborted else "") if x)
    return AirQuestion(side=side, hex=hex_id, against=against, lost=lost, aborted=aborted,
                       units=tuple(units), default=tuple(units[:lost + aborted]),
                       asked_at=at,
                       text=f"{side}: the air-to-air combat over {hex_id} leaves {what} of "
                            f"{', '.join(units)}: name which")


def _deal(f: Flow, actor: str) -> bool:
    """The losses due, until one asks a question (False: the game waits for it)."""
    while mission(f.state).due:
        m = mission(f.state)
        q = question(f.state, f.at)
        if q is not None:
            default = "; ".join(x for x in (
                f"{', '.join(q.default[:q.lost])} lost" if q.lost else "",
                f"{', '.join(q.default[q.lost:])} aborted" if q.aborted else "") if x)
            f.emit("air.asked", f"{q.text}; by default: {default} ({RULE} step 5).",
                   {"window": CHOICE, "question": question_data(q)}, by="server")
            return False
        side, lost, aborted = m.due[0]
        units = aloft(f.state, side, _current_hex(m))
        take_losses(f, side, units[:lost] if not aborted else [],
                    units if not lost else [], "by the result", actor)
    return True


def question_data(q: AirQuestion) -> dict[str, Any]:
    return {"side": q.side, "hex": q.hex, "against": q.against, "lost": q.lost,
            "aborted": q.aborted, "units": list(q.units), "default": list(q.default),
            "asked_at": q.asked_at, "text": q.text}


def resolve(f: Flow, actor: str) -> None:
    """Steps 5-8, until a question waits for a side or the mission ends."""
    while True:
        if not _deal(f, actor):
            return
        found = _next_combat(f.state)
        if found is None:
            break
        _fight(f, *found, actor)
    _fire(f, actor)
    not_done = _reorganize(f, actor)
    end(f, not_done)


def _fire(f: Flow, actor: str) -> None:
    """Step 6: AA fire on each ATR still flying, in the flight's order."""
    m = mission(f.state)
    for s in m.sorties:
        if s.role != "atr" or s.fate or s.unit not in f.state.units:
            continue
        firing = aa_over(f.state, m.side, s.hex)
        if not firing:
            continue
        result, data, text = flak(f, s.unit, s.hex, firing, actor)
        f.emit("air.aa_fired", text, data, by=actor)
        if result == "eliminated":
            f.emit("unit.eliminated", f"{s.unit} is shot down over {s.hex} (AA fire, {RULE} "
                   "step 6).", {"unit": s.unit, "hex": f.state.units[s.unit].at,
                                "cause": f"AA fire over {s.hex}", "rule": RULE}, by=actor)


def _reorganize(f: Flow, actor: str) -> str:
    """Step 7: the surviving ATRs reorganize the units their flights named, as the `atr`
    method of a `reorg` order; what could not be, in words."""
    m = mission(f.state)
    fates = {s.unit: s.fate for s in m.sorties if s.role == "atr"}
    items = [{"unit": u, "method": "atr", "atr": a} for u, a in m.items
             if fates.get(a) == "" and a in f.state.units]
    left = [f"{u} ({a} {fates.get(a) or 'gone'})" for u, a in m.items
            if not (fates.get(a) == "" and a in f.state.units)]
    if not items or m.power is None:
        return f"not reorganized: {', '.join(left)}" if left else ""
    try:
        ctx, claims = check_order(f.state, m.power, items)
    except RulesError as refusal:
        return f"not reorganized: {refusal.message}"
    sc = f.state.setup.scenario
    rps = f.state.powers[m.power].rps
    for claim in claims:
        rps -= claim.cost
        item = items[claim.index]
        f.emit("unit.reorganized", f"{item_text(claim, item, sc)} {m.power} has {rps} RPs "
               "left.", claim_data(claim, ctx.period, item, rps), by=actor)
    return f"not reorganized: {', '.join(left)}" if left else ""


def end(f: Flow, why: str) -> None:
    """Step 8: every aircraft that flew returns to its base and turns face down."""
    m = mission(f.state)
    back = sorted({s.unit for s in m.sorties if s.unit in f.state.units
                   and f.state.units[s.unit].face_up})
    home = (f"{', '.join(back)} return{'s' if len(back) == 1 else ''} to base and turn"
            f"{'s' if len(back) == 1 else ''} face down" if back
            else "no aircraft is left to return")
    f.emit("air.mission_ended", f"{m.side}'s air reorganization ends"
           + (f" ({why})" if why else "") + f": {home} ({RULE} step 8).",
           {"side": m.side, "returned": back, "note": why})
