"""The turn-length simulation (`service/simulate.py`): whole turns through the real rules.

The expected means come from an exact calculation of what seed 002 and RULES-NOTES
12-14 and 17 imply (`exact_moments` below, a Markov chain over the running total), not
from the seed's rough "5 impulses x 5.5". Every run uses a fixed seed, so the tests are
deterministic; the bands are still about four standard errors wide, so a change in how
the engine consumes dice does not make them flaky, while a wrong threshold, a wrong
number of dice or a broken turn end falls far outside.
"""

from __future__ import annotations

import math
import statistics
import struct
import zlib
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pytest

from service.rules.events import Event
from service.rules.options import DEFAULT_WEATHER_TABLE
from service.simulate import (
    TurnRecord,
    main,
    percentile,
    render_panels,
    simulate,
    summarize,
)

# --------------------------------------------------------------------------- reference

DEFAULT_DICE: dict[int, float] = {}
for _row in DEFAULT_WEATHER_TABLE:
    DEFAULT_DICE[_row["dice"]] = DEFAULT_DICE.get(_row["dice"], 0.0) + 0.1
ONE_DIE = {1: 1.0}


def _sum_of_dice(count: int) -> dict[int, float]:
    dist = {0: 1.0}
    for _ in range(count):
        nxt: dict[int, float] = {}
        for s, p in dist.items():
            for d in range(1, 11):
                nxt[s + d] = nxt.get(s + d, 0.0) + p / 10
        dist = nxt
    return dist


def exact_moments(sides: int, threshold: int, dice: Mapping[int, float]) -> tuple[float, float]:
    """Mean and standard deviation of impulses per turn when nobody passes, exactly:
    a weather roll per round gives `dice` turn-end d10s per impulse (RULES-NOTES 17); the
    turn ends when the running total reaches `threshold` and the last die is 4-10
    (RULES-NOTES 12); once the threshold is certain only the last die is rolled
    (RULES-NOTES 14), so from then on each impulse ends the turn with probability 0.7."""
    above = (1 / 0.7, (2 - 0.7) / 0.7**2)  # geometric: E[N], E[N^2]
    table: dict[tuple[int, int, int], tuple[float, float]] = {}
    firsts = {k: _sum_of_dice(k - 1) for k in dice}

    def after(total: int, position: int, k: int) -> tuple[float, float]:
        if total >= threshold:
            return above
        if position == sides:  # a new round: a new weather roll
            m1 = sum(p * table[(total, 0, kk)][0] for kk, p in dice.items())
            m2 = sum(p * table[(total, 0, kk)][1] for kk, p in dice.items())
            return m1, m2
        return table[(total, position, k)]

    for total in range(threshold - 1, -1, -1):  # a roll always raises the total
        for position in range(sides - 1, -1, -1):
            for k in dice:
                if total + k >= threshold:
                    outcomes = [(total + d, d, 0.1) for d in range(1, 11)]
                else:
                    outcomes = [(total + s + d, d, p / 10)
                                for s, p in firsts[k].items() for d in range(1, 11)]
                m1 = m2 = 0.0
                for new, last, p in outcomes:
                    if new >= threshold and last >= 4:
                        r1 = r2 = 0.0
                    else:
                        r1, r2 = after(new, position + 1, k)
                    m1 += p * (1 + r1)
                    m2 += p * (1 + 2 * r1 + r2)
                table[(total, position, k)] = (m1, m2)
    m1, m2 = after(0, sides, 0)
    return m1, math.sqrt(m2 - m1 * m1)


def test_reference_matches_the_renewal_argument() -> None:
    """One die per impulse: reaching 83 takes (83 + 3) / 5.5 impulses on average (3 is a
    d10's mean overshoot), and the crossing die is 1-3 with probability 6/55, after which
    each impulse ends the turn with probability 0.7."""
    mean, _ = exact_moments(3, 83, ONE_DIE)
    assert mean == pytest.approx(86 / 5.5 + (6 / 55) / 0.7, abs=0.01)
    assert mean == pytest.approx(15.79, abs=0.01)
    assert exact_moments(2, 55, ONE_DIE)[0] == pytest.approx(10.70, abs=0.01)
    # RULES-NOTES "Expected turn length": about 7.9 (three sides) and 5.5 (two sides).
    assert exact_moments(3, 83, DEFAULT_DICE)[0] == pytest.approx(7.92, abs=0.01)
    assert exact_moments(2, 55, DEFAULT_DICE)[0] == pytest.approx(5.53, abs=0.01)


# --------------------------------------------------------------------------- runs


class Run:
    """A run with every event the rules produced."""

    def __init__(self, sides: int, turns: int, seed: int) -> None:
        self.events: list[Event] = []
        self.records = simulate(sides, turns, seed=seed, observe=self.events.append)


@pytest.fixture(scope="module")
def three_sided() -> Run:
    return Run(3, 300, seed=2024)


def _band(sd: float, turns: int) -> float:
    """Four standard errors of a mean over `turns` turns."""
    return 4 * sd / math.sqrt(turns)


def test_deterministic_for_a_seed() -> None:
    first = simulate(3, 25, seed=11)
    assert simulate(3, 25, seed=11) == first
    assert simulate(3, 25, seed=12) != first


def test_every_turn_ends(three_sided: Run) -> None:
    records = three_sided.records
    assert [r.number for r in records] == list(range(1, 301))
    kinds = Counter(e.kind for e in three_sided.events)
    assert kinds["turn.began"] == kinds["turn.ended"] == 300  # each stops at its turn.ended


def test_turn_end_rule_from_the_events(three_sided: Run) -> None:
    """Each turn-end roll ends the turn exactly when the total reached 83 and the natural
    last die is 4 or more; the last roll of every turn ended it, no other roll did."""
    rolls: list[Event] = []
    for e in three_sided.events:
        if e.kind == "turn_end.rolled":
            d = e.data
            assert d["threshold"] == 83
            assert d["ends"] == (d["total"] >= 83 and d["last_die"] >= 4)
            assert d["last_die"] == d["values"][-1]
            rolls.append(e)
        elif e.kind == "turn.ended":
            assert rolls and rolls[-1].data["ends"]
            assert not any(r.data["ends"] for r in rolls[:-1])
            totals = [r.data["total"] for r in rolls]
            assert totals == sorted(totals)
            rolls = []


def test_impulse_counts_per_side_differ_by_at_most_one(three_sided: Run) -> None:
    counted: Counter[str] = Counter()
    order: list[str] = []
    turns = 0
    for e in three_sided.events:
        if e.kind == "turn.order_set":
            order = list(e.data["order"])
        elif e.kind == "impulse.ended":
            counted[e.data["side"]] += 1
        elif e.kind == "turn.ended":
            taken = e.data["impulses_taken"]
            assert taken == {s: counted[s] for s in order}
            assert max(taken.values()) - min(taken.values()) <= 1
            # Sides move in order, so the extra impulses belong to the first movers.
            assert [taken[s] for s in order] == sorted(taken.values(), reverse=True)
            counted.clear()
            turns += 1
    assert turns == 300


def test_three_sides_default_weather_mean(three_sided: Run) -> None:
    mean, sd = exact_moments(3, 83, DEFAULT_DICE)
    summary = summarize(three_sided.records)
    assert summary.mean == pytest.approx(mean, abs=_band(sd, 300))


def test_passing_powers_shorten_the_mean(three_sided: Run) -> None:
    """Germany, Italy and Japan pass every impulse: +5 on each Axis turn-end die."""
    base = summarize(three_sided.records).mean
    passing = summarize(simulate(3, 200, seed=2024, passing={"germany", "italy", "japan"}))
    assert passing.mean < base - 0.6
    one = summarize(simulate(3, 200, seed=2024, passing={"italy"}))  # +1 per die
    assert passing.mean < one.mean < base + 0.1


def test_one_die_three_sides_mean_near_5_per_side() -> None:
    """The seed's argument says 3 x 5 = 15 impulses; the rules imply 15.79 (the total
    overshoots 83 by 3 on average and the last die 1-3 rule adds 0.16)."""
    mean, sd = exact_moments(3, 83, ONE_DIE)
    summary = summarize(simulate(3, 300, seed=2025, one_die=True))
    band = _band(sd, 300)
    assert 0.45 <= band <= 0.55
    assert summary.mean == pytest.approx(mean, abs=band)
    # A threshold of 27.5 x 2 or of 27.5 x 4 (110) would be ~5 impulses off.
    assert abs(summary.mean - exact_moments(3, 55, ONE_DIE)[0]) > 4
    assert abs(summary.mean - exact_moments(3, 110, ONE_DIE)[0]) > 4


def test_one_die_two_sides_and_four_sides() -> None:
    two = summarize(simulate(2, 200, seed=7, one_die=True))
    mean, sd = exact_moments(2, 55, ONE_DIE)
    assert two.mean == pytest.approx(mean, abs=_band(sd, 200))
    four = simulate(4, 20, seed=7)
    assert all(max(r.impulses.values()) - min(r.impulses.values()) <= 1 for r in four)
    assert len(four[0].impulses) == 4


# --------------------------------------------------------------------------- output


def test_summary_statistics() -> None:
    records = [TurnRecord(number=i + 1, impulses={"a": n - n // 2, "b": n // 2},
                          order=("a", "b")) for i, n in enumerate([4, 5, 5, 6, 10])]
    s = summarize(records)
    assert s.mean == 6.0 and s.per_side == 3.0
    assert s.stdev == pytest.approx(statistics.stdev([4, 5, 5, 6, 10]))
    assert (s.minimum, s.maximum) == (4, 10)
    assert s.counts == {4: 1, 5: 2, 6: 1, 10: 1}
    assert s.percentiles == {5: 4, 25: 5, 50: 5, 75: 6, 95: 10}
    assert s.by_position == (3.2, 2.8)
    assert percentile([1, 2, 3, 4], 50) == 2


def test_png_is_valid() -> None:
    s = summarize([TurnRecord(1, {"a": 3, "b": 2}, ("a", "b")),
                   TurnRecord(2, {"a": 4, "b": 4}, ("a", "b"))])
    data = render_panels([("TWO SIDES", s), ("AGAIN", s)], title="TEST")
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, color = struct.unpack(">IIBB", data[16:26])
    assert (depth, color) == (8, 2)
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        assert struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0] == \
            zlib.crc32(kind + body) & 0xFFFFFFFF
        if kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert len(zlib.decompress(idat)) == height * (1 + 3 * width)


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plot = tmp_path / "t.png"
    assert main(["--sides", "2,3", "--turns", "20", "--seed", "3", "--pass", "italy",
                 "--one-die", "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "2 sides, one die per impulse, passing: italy, seed 3: 20 turns" in out
    assert "percentiles: p5=" in out and "plot written" in out
    assert plot.read_bytes()[:4] == b"\x89PNG"
    assert main(["--sides", "3", "--turns", "5", "--pass", "atlantis"]) == 2
