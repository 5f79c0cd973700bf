"""The hand-offs bench (issue 20, item 4): `python -m service simulate --handoffs` plays
ten turns of dno-demo with and without the default standing orders."""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

from service import handoffs

ROOT = Path(__file__).resolve().parents[2]


def test_default_standing_orders_need_at_most_two_handoffs_per_active_impulse() -> None:
    """Issue 20 "Done when": with the default standing orders armed no bare `done` comes
    from a side with no legal choice, and the median active impulse hands the move on
    at most twice (phasing side -> a reacting side with a real choice -> next side)."""
    today = handoffs.play(turns=10, standing=False)
    armed = handoffs.play(turns=10, standing=True)
    assert today.turns == armed.turns == 10
    assert all(i.no_choice_done == 0 for i in armed.impulses)
    assert statistics.median(i.handoffs for i in armed.active()) <= 2
    assert all(i.responses >= 1 for i in armed.active())  # the phasing side's steps
    assert statistics.median(i.handoffs for i in today.active()) > 2
    assert sum(i.bare_done for i in armed.impulses) < sum(i.bare_done for i in today.impulses)
    assert armed.answered > 0 and armed.arming == 15


def test_the_defaults_lose_no_attack_and_let_no_rp_lapse_unless_a_player_chose_it() -> None:
    """Issue 30 "Done when": ten turns with every default armed: no standing order answers
    the phasing side's own combat or exploitation step, the final-reorganization orders
    spend RPs (11.18), and every RP that lapses lapses by a player's own `done`, never by
    a standing order or a held done (their `rps_lapse` stop asks the side instead)."""
    armed = handoffs.play(turns=10, standing=True)
    assert armed.own_steps_answered == 0
    assert armed.spent_by_order > 0
    assert armed.lapsed_by_order == 0 and armed.lapsed_by_player > 0


def test_the_command_prints_both_games() -> None:
    out = subprocess.run([sys.executable, "-m", "service", "simulate", "--handoffs"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "no standing orders: 10 turns" in out
    assert "default standing orders armed: 10 turns" in out
    assert out.count("hand-offs per active impulse: median") == 2
    assert "RPs lapsed by a standing order or held done: 0," in out
