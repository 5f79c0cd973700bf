"""What reorganization remembers (11.18): the counters of the current reorganization
step, the out-of-communication sources of the turn, and the ports repaired with RPs.

A reorganization step is a *period*, keyed "turn/impulse/step": the reorganization
step at the end of an impulse, or the final reorganization step of a turn. Per-period
counters are stored with the period they count; read through `counters`, counters of
an earlier period are empty, so nothing needs resetting when a step begins.
"""

from __future__ import annotations

from service.rules.state import ReorgState


def period_key(turn: int, impulse: int, step: str) -> str:
    return f"{turn}/{impulse}/{step}"


def turn_of(period: str) -> int:
    return int(period.split("/", 1)[0]) if period else 0


def counters(reorg: ReorgState, period: str) -> ReorgState:
    """`reorg` as seen in `period`: per-period counters of another period are empty,
    out-of-communication uses of another turn are forgotten."""
    if reorg.period == period:
        return reorg
    turn = turn_of(period)
    return ReorgState(
        period=period,
        isolated={k: v for k, v in reorg.isolated.items() if turn_of(v) == turn},
        repaired_ports=reorg.repaired_ports,
    )
