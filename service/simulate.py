"""`python -m service simulate`: how long are turns? Plays whole turns with the real rules.

Nothing of the turn is reimplemented here: a driver answers `awaiting(state)` with a
fixed policy, sends the answers through `decide` with fair seeded dice, and folds the
events with `evolve`. It records each `turn.ended` event's `impulses_taken`.

Policy (the deadline defaults, except that sides act rather than pass): no reroll
demands; the initiative winner moves first, the runner-up before the lowest side; every
power declares "land" except the powers named in `passing`, which declare "pass"; every
side-wide step (action, combat) is answered with `done`; production repeats last
turn's figures.

The scenario is tiny (one hex, no units), so no unit is face down (no reorganization
steps) and nobody is in Reserve or Exploit mode (no reaction or exploitation steps);
only initiative, weather and the turn-end track matter. Sides and pass bonuses follow
RULES-NOTES "Sides and powers": 3 sides are Drang Nach Osten's; 2 sides put every
non-Axis power on the Allies; 4 or more sides have made-up powers (+2 and +1).

`--one-die` replaces the weather table with one whose every row has one turn-end die
per impulse, the case of the seed's "27.5 = 5 impulses x 5.5" argument.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import statistics
import struct
import sys
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from service.rules import state as st
from service.rules.awaiting import awaiting
from service.rules.command import Actor, Command
from service.rules.decide import decide
from service.rules.dice import Roll
from service.rules.events import Event
from service.rules.options import DEFAULT_WEATHER_TABLE, resolve_options
from service.rules.scenario import Scenario, parse_scenario
from service.rules.state import Setup, State, initial_state

AT = "2000-01-01T00:00:00+00:00"  # the rules need a time; the simulation has no clock
MAX_ORDERS_PER_TURN = 10_000  # a turn always ends; this only stops a broken engine

# RULES-NOTES "Sides and powers (Drang Nach Osten)": (power, side, pass bonus).
DNO_POWERS: tuple[tuple[str, str, int], ...] = (
    ("germany", "axis", 2),
    ("italy", "axis", 1),
    ("japan", "axis", 2),
    ("cw", "allies", 2),
    ("usa", "allies", 2),
    ("france", "allies", 1),
    ("nationalist_china", "allies", 1),
    ("ussr", "communists", 2),
    ("communist_china", "communists", 1),
)


# --------------------------------------------------------------------------- dice


class RandomDice:
    """The `Dice` protocol over `random.Random(seed)`: fair, reproducible, not secret.
    The commitment and the revealed seed are derived from the seed and the turn only
    (the rules log them; nobody verifies a simulation)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reveal(self, turn: int) -> str:
        return hashlib.sha256(f"simulation {self.seed} turn {turn}".encode()).hexdigest()

    def commit(self, chain: int, from_turn: int) -> tuple[str, int]:
        return hashlib.sha256(f"simulation {self.seed} chain {chain}".encode()).hexdigest(), 10**6

    def roll(self, *, turn: int, index: int, purpose: str, count: int, faces: int,
             script_position: int, trigger: str) -> Roll:
        randrange = self.rng.randrange
        values = tuple(randrange(faces) + 1 for _ in range(count))
        return Roll(turn=turn, index=index, purpose=purpose, faces=faces, values=values,
                    source="seeded", trigger=trigger)


# --------------------------------------------------------------------------- scenario


def scenario_powers(sides: int) -> list[tuple[str, str, int]]:
    """(power, side, pass bonus) for a game of `sides` sides (see the module doc)."""
    if sides < 2:
        raise ValueError("a game needs at least two sides")
    if sides == 3:
        return list(DNO_POWERS)
    if sides == 2:
        return [(p, "axis" if side == "axis" else "allies", b) for p, side, b in DNO_POWERS]
    return [
        (f"s{i + 1}_{name}", f"side{i + 1}", bonus)
        for i in range(sides)
        for name, bonus in (("major", 2), ("minor", 1))
    ]


def scenario_data(sides: int) -> dict[str, Any]:
    """A scenario document with the powers of `scenario_powers`, every power at war with
    every power of the other sides, one hex and no units."""
    powers = scenario_powers(sides)
    side_ids = list(dict.fromkeys(side for _, side, _ in powers))
    return {
        "id": f"simulation-{sides}",
        "title": f"Turn-length simulation, {sides} sides",
        "sides": [{"id": s} for s in side_ids],
        "powers": [
            {"id": p, "side": side, "pass_bonus": bonus,
             "at_war_with": [q for q, other, _ in powers if other != side]}
            for p, side, bonus in powers
        ],
        "map": {"hexes": [{"id": "h0", "q": 0, "r": 0}]},
    }


def one_die_table() -> list[dict[str, Any]]:
    """The default weather table with one turn-end die per impulse in every row."""
    return [{**row, "dice": 1} for row in DEFAULT_WEATHER_TABLE]


def make_setup(sides: int, *, one_die: bool = False, threshold: int | None = None) -> Setup:
    scenario: Scenario = parse_scenario(scenario_data(sides))
    given: dict[str, Any] = {"turn_end": {"threshold": threshold}}
    if one_die:
        given["weather"] = {"table": one_die_table()}
    options = resolve_options(given, len(scenario.sides))
    return Setup(game_id=f"simulation-{sides}", scenario=scenario, options=options,
                 dice_mode="seeded")


# --------------------------------------------------------------------------- driver


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One simulated turn: impulses per side (from `turn.ended`) and the impulse order."""

    number: int
    impulses: dict[str, int]
    order: tuple[str, ...]

    @property
    def total(self) -> int:
        return sum(self.impulses.values())


@dataclass(slots=True)
class Simulation:
    """A game played by the policy; `play_turn` plays until the next `turn.ended`."""

    setup: Setup
    dice: RandomDice
    passing: frozenset[str] = frozenset()
    observe: Callable[[Event], None] | None = None
    state: State = field(init=False)
    actors: dict[str, Actor] = field(init=False, default_factory=dict)
    turns: list[TurnRecord] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        unknown = self.passing - {p.id for p in self.setup.scenario.powers}
        if unknown:
            raise ValueError(f"unknown power(s) to pass: {', '.join(sorted(unknown))}")
        self.state = initial_state(self.setup)
        for side in self.setup.sides:
            powers = self.setup.scenario.powers_of_side(side)
            player = f"player-{side}"
            self.actors[side] = Actor(id=player, role="player", side=side, powers=powers)
            self.send("seat.take", {"side": side, "powers": list(powers),
                                    "name": side.title(), "player_id": player}, side)

    def send(self, kind: str, body: Mapping[str, object], side: str) -> list[Event]:
        command = Command(kind=kind, body=body, actor=self.actors[side], at=AT)
        decision = decide(self.state, command, self.dice)
        events, self.state = decision.events, decision.state
        if self.observe is not None:
            for event in events:
                self.observe(event)
        return events

    def answer(self, entry: Mapping[str, Any]) -> list[Event]:
        """The policy's answer to one `awaiting` entry."""
        side: str = entry["side"]
        step: str = entry["step"]
        s = self.state
        if step == st.REROLL:
            return self.send("initiative.reroll", {"demand": False}, side)
        if step == st.CHOOSE:
            first = all(slot is None for slot in s.initiative.slots)
            return self.send("initiative.choose", {"position": "first" if first else "before"},
                             side)
        if step == st.DECLARE:
            actions = {p: "pass" if p in self.passing else "land" for p in entry["powers"]}
            return self.send("declare", {"actions": actions}, side)
        if step == st.PRODUCTION:
            figures = {p: {"bp_spent": s.powers[p].bp_spent_last_turn,
                           "bp_on_rps": s.powers[p].bp_on_rps} for p in entry["powers"]}
            return self.send("production", {"powers": figures}, side)
        if step in st.SIDE_STEPS:
            return self.send("done", {}, side)
        raise RuntimeError(f"the simulation has no answer for step {step!r}")

    def play_turn(self) -> TurnRecord:
        for _ in range(MAX_ORDERS_PER_TURN):
            entries = awaiting(self.state)
            if not entries:
                raise RuntimeError(f"nobody to act at {self.state.step} ({self.state.status})")
            for event in self.answer(entries[0]):
                if event.kind == "turn.ended":
                    record = TurnRecord(number=int(event.data["turn"]),
                                        impulses=dict(event.data["impulses_taken"]),
                                        order=self.state.turn.order)
                    self.turns.append(record)
                    return record
        raise RuntimeError(f"turn {self.state.turn.number} did not end after "
                           f"{MAX_ORDERS_PER_TURN} orders")


def simulate(
    sides: int,
    turns: int,
    *,
    seed: int = 1,
    passing: Iterable[str] = (),
    one_die: bool = False,
    threshold: int | None = None,
    observe: Callable[[Event], None] | None = None,
) -> list[TurnRecord]:
    """Play `turns` whole turns of a `sides`-sided game; deterministic for a seed."""
    sim = Simulation(make_setup(sides, one_die=one_die, threshold=threshold),
                     RandomDice(seed), frozenset(passing), observe)
    for _ in range(turns):
        sim.play_turn()
    return sim.turns


# --------------------------------------------------------------------------- statistics


PERCENTILES = (5, 25, 50, 75, 95)


def percentile(sorted_values: Sequence[int], q: float) -> int:
    """Nearest-rank percentile (an observed value: impulse counts are whole numbers)."""
    if not sorted_values:
        raise ValueError("no values")
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


@dataclass(frozen=True, slots=True)
class Summary:
    sides: int
    turns: int
    mean: float
    stdev: float
    percentiles: dict[int, int]
    minimum: int
    maximum: int
    counts: dict[int, int]  # impulses per turn -> number of turns
    by_position: tuple[float, ...]  # mean impulses of the 1st, 2nd, ... side to move

    @property
    def per_side(self) -> float:
        return self.mean / self.sides


def summarize(records: Sequence[TurnRecord]) -> Summary:
    if not records:
        raise ValueError("no turns to summarize")
    totals = sorted(r.total for r in records)
    sides = len(records[0].order)
    by_position = tuple(
        statistics.fmean(r.impulses[r.order[i]] for r in records) for i in range(sides)
    )
    return Summary(
        sides=sides,
        turns=len(records),
        mean=statistics.fmean(totals),
        stdev=statistics.stdev(totals) if len(totals) > 1 else 0.0,
        percentiles={q: percentile(totals, q) for q in PERCENTILES},
        minimum=totals[0],
        maximum=totals[-1],
        counts=dict(sorted(Counter(totals).items())),
        by_position=by_position,
    )


def histogram_text(counts: dict[int, int], width: int = 50) -> str:
    """One row per impulse count from the smallest to the largest seen."""
    total = sum(counts.values())
    peak = max(counts.values())
    lines = []
    for value in range(min(counts), max(counts) + 1):
        n = counts.get(value, 0)
        bar = "#" * round(n / peak * width)
        if n and not bar:
            bar = "."
        lines.append(f"{value:4d} | {n:6d} {100 * n / total:5.1f}% {bar}")
    return "\n".join(lines)


def report_text(summary: Summary, *, label: str) -> str:
    s = summary
    pct = "  ".join(f"p{q}={v}" for q, v in s.percentiles.items())
    positions = ", ".join(f"{i + 1}: {m:.2f}" for i, m in enumerate(s.by_position))
    return "\n".join([
        f"{label}: {s.turns} turns",
        f"impulses per turn: mean {s.mean:.3f}  sd {s.stdev:.3f}  min {s.minimum}  "
        f"max {s.maximum}",
        f"percentiles: {pct}",
        f"per side: mean {s.per_side:.3f}; by position in the impulse order {positions}",
        histogram_text(s.counts),
    ])


# --------------------------------------------------------------------------- PNG


# A 5x7 bitmap font: seven rows of five bits (most significant bit on the left).
_FONT: dict[str, tuple[int, ...]] = {
    "0": (14, 17, 19, 21, 25, 17, 14), "1": (4, 12, 4, 4, 4, 4, 14),
    "2": (14, 17, 1, 2, 4, 8, 31), "3": (31, 2, 4, 2, 1, 17, 14),
    "4": (2, 6, 10, 18, 31, 2, 2), "5": (31, 16, 30, 1, 1, 17, 14),
    "6": (6, 8, 16, 30, 17, 17, 14), "7": (31, 1, 2, 4, 8, 8, 8),
    "8": (14, 17, 17, 14, 17, 17, 14), "9": (14, 17, 17, 15, 1, 2, 12),
    "A": (14, 17, 17, 31, 17, 17, 17), "B": (30, 17, 17, 30, 17, 17, 30),
    "C": (14, 17, 16, 16, 16, 17, 14), "D": (28, 18, 17, 17, 17, 18, 28),
    "E": (31, 16, 16, 30, 16, 16, 31), "F": (31, 16, 16, 30, 16, 16, 16),
    "G": (14, 17, 16, 23, 17, 17, 15), "H": (17, 17, 17, 31, 17, 17, 17),
    "I": (14, 4, 4, 4, 4, 4, 14), "J": (7, 2, 2, 2, 2, 18, 12),
    "K": (17, 18, 20, 24, 20, 18, 17), "L": (16, 16, 16, 16, 16, 16, 31),
    "M": (17, 27, 21, 21, 17, 17, 17), "N": (17, 17, 25, 21, 19, 17, 17),
    "O": (14, 17, 17, 17, 17, 17, 14), "P": (30, 17, 17, 30, 16, 16, 16),
    "Q": (14, 17, 17, 17, 21, 18, 13), "R": (30, 17, 17, 30, 20, 18, 17),
    "S": (15, 16, 16, 14, 1, 1, 30), "T": (31, 4, 4, 4, 4, 4, 4),
    "U": (17, 17, 17, 17, 17, 17, 14), "V": (17, 17, 17, 17, 17, 10, 4),
    "W": (17, 17, 17, 21, 21, 21, 10), "X": (17, 17, 10, 4, 10, 17, 17),
    "Y": (17, 17, 10, 4, 4, 4, 4), "Z": (31, 1, 2, 4, 8, 16, 31),
    " ": (0, 0, 0, 0, 0, 0, 0), ".": (0, 0, 0, 0, 0, 12, 12),
    ",": (0, 0, 0, 0, 12, 4, 8), "-": (0, 0, 0, 31, 0, 0, 0),
    "+": (0, 4, 4, 31, 4, 4, 0), "%": (24, 25, 2, 4, 8, 19, 3),
    ":": (0, 12, 12, 0, 12, 12, 0), ";": (0, 12, 12, 0, 12, 4, 8),
    "=": (0, 0, 31, 0, 31, 0, 0),
    "(": (2, 4, 8, 8, 8, 4, 2), ")": (8, 4, 2, 2, 2, 4, 8),
    "/": (0, 1, 2, 4, 8, 16, 0),
}

Color = tuple[int, int, int]
WHITE: Color = (255, 255, 255)
BLACK: Color = (0, 0, 0)
GREY: Color = (205, 205, 205)
PANEL_COLORS: tuple[Color, ...] = ((47, 103, 177), (204, 85, 0), (46, 139, 87), (128, 0, 128))


class Canvas:
    """An RGB raster with just what a bar chart needs."""

    def __init__(self, width: int, height: int, background: Color = WHITE) -> None:
        self.width, self.height = width, height
        self.rows = [bytearray(bytes(background) * width) for _ in range(height)]

    def rect(self, x0: int, y0: int, x1: int, y1: int, color: Color) -> None:
        """Fill [x0, x1) x [y0, y1), clipped to the canvas."""
        x0, x1 = max(0, x0), min(self.width, x1)
        if x1 <= x0:
            return
        run = bytes(color) * (x1 - x0)
        for y in range(max(0, y0), min(self.height, y1)):
            self.rows[y][3 * x0:3 * x1] = run

    def text(self, x: int, y: int, s: str, color: Color = BLACK, scale: int = 2) -> None:
        for i, ch in enumerate(s.upper()):
            glyph = _FONT.get(ch, _FONT[" "])
            gx = x + i * 6 * scale
            for row, bits in enumerate(glyph):
                for col in range(5):
                    if bits >> (4 - col) & 1:
                        self.rect(gx + col * scale, y + row * scale,
                                  gx + (col + 1) * scale, y + (row + 1) * scale, color)

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + bytes(row) for row in self.rows)

        def chunk(kind: bytes, data: bytes) -> bytes:
            return (struct.pack(">I", len(data)) + kind + data
                    + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def text_width(s: str, scale: int = 2) -> int:
    return len(s) * 6 * scale - scale


def _nice_step(peak: float, ticks: int = 5) -> float:
    raw = peak / ticks
    magnitude: float = 10.0 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * magnitude >= raw:
            return m * magnitude
    return 10 * magnitude


def render_panels(panels: Sequence[tuple[str, Summary]], *, title: str = "") -> bytes:
    """A PNG: one bar chart per (label, summary), stacked, sharing the x axis (impulses
    per turn) and the y axis (percent of turns). Each panel marks its mean."""
    lo = min(s.minimum for _, s in panels)
    hi = max(s.maximum for _, s in panels)
    peak = max(100 * max(s.counts.values()) / s.turns for _, s in panels)
    step = _nice_step(peak)
    top = step * math.ceil(peak / step)
    left, right, panel_h, gap, head = 90, 30, 260, 84, 50 if title else 16
    foot = "IMPULSES PER TURN (ALL SIDES); BARS: PERCENT OF TURNS; DASHES: MEAN"
    widest = max(text_width(t) for t in [title, foot, *(label for label, _ in panels)])
    bins = hi - lo + 1
    slot = max(8, min(64, (max(720, widest + left) - left - right) // bins))
    width = max(left + right + slot * bins, widest + 40)
    height = head + len(panels) * (panel_h + gap) + 38
    c = Canvas(width, height)
    if title:
        c.text((width - text_width(title)) // 2, 16, title)
    label_every = 1 if slot >= 30 else 2 if slot >= 15 else 5
    for n, (label, s) in enumerate(panels):
        color = PANEL_COLORS[n % len(PANEL_COLORS)]
        y0 = head + n * (panel_h + gap) + 34  # top of the plot area
        y1 = y0 + panel_h  # the x axis
        c.text(min(left, width - 20 - text_width(label)), y0 - 32, label, color)
        # Horizontal grid and y ticks (percent of turns).
        k = 0
        while k * step <= top + 1e-9:
            y = y1 - round(k * step / top * panel_h)
            c.rect(left, y, width - right, y + 1, GREY)
            tick = f"{k * step:g}%"
            c.text(left - 10 - text_width(tick), y - 7, tick)
            k += 1
        # Bars.
        for value in range(lo, hi + 1):
            x = left + (value - lo) * slot
            share = 100 * s.counts.get(value, 0) / s.turns
            h = round(share / top * panel_h)
            c.rect(x + max(1, slot // 8), y1 - h, x + slot - max(1, slot // 8), y1, color)
            c.rect(x + slot // 2, y1, x + slot // 2 + 2, y1 + 6, BLACK)
            if (value - lo) % label_every == 0 or value == hi:
                tick = str(value)
                c.text(x + slot // 2 + 1 - text_width(tick) // 2, y1 + 10, tick)
        # Mean: a dashed black line.
        mx = left + round((s.mean - lo + 0.5) * slot)
        for y in range(y0, y1, 10):
            c.rect(mx - 1, y, mx + 1, y + 6, BLACK)
        # Axes.
        c.rect(left - 2, y0 - 4, left, y1 + 1, BLACK)
        c.rect(left - 2, y1, width - right, y1 + 2, BLACK)
    c.text((width - text_width(foot)) // 2, height - 26, foot)
    return c.png()


def panel_label(summary: Summary, *, one_die: bool, passing: Iterable[str]) -> str:
    s = summary
    table = "ONE DIE PER IMPULSE" if one_die else "DEFAULT WEATHER"
    passes = sorted(passing)
    who = f", PASS {'+'.join(passes)}" if passes else ""
    return (f"{s.sides} SIDES, {table}{who}: MEAN {s.mean:.2f} ({s.per_side:.2f} PER SIDE), "
            f"MEDIAN {s.percentiles[50]}, N={s.turns}")


# --------------------------------------------------------------------------- CLI


def _sides_list(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"sides must be integers, got {text!r}") from None
    if not values or any(v < 2 or v > 8 for v in values):
        raise argparse.ArgumentTypeError("sides must be 2-8 (a comma list runs several)")
    return values


TURNS_DEFAULT = 10_000


def configure_parser(parser: argparse.ArgumentParser) -> None:
    """The options of `simulate` (for a subparser of `python -m service`)."""
    parser.add_argument("--sides", type=_sides_list, default=[3],
                        help="number of sides, or a comma list such as 2,3 (default 3)")
    parser.add_argument("--turns", type=int, default=TURNS_DEFAULT, help="turns to play")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--pass", dest="passing", default="",
                        help="comma list of powers that always pass, e.g. germany,italy")
    parser.add_argument("--one-die", action="store_true",
                        help="one turn-end die per impulse (every weather row has dice 1)")
    parser.add_argument("--threshold", type=int, default=None,
                        help="turn-end threshold (default ceil(27.5 x sides))")
    parser.add_argument("--plot", metavar="PATH", default=None,
                        help="write a PNG bar chart of the distribution(s) to PATH")
    parser.add_argument("--handoffs", action="store_true",
                        help="instead: play 10 turns (or --turns) of dno-demo with and "
                             "without the default standing orders; responses, hand-offs "
                             "and bare done per impulse (service/handoffs.py)")


def run(args: argparse.Namespace) -> int:
    """Run `simulate` with parsed arguments; prints the report(s)."""
    if args.turns < 1:
        print("--turns must be at least 1", file=sys.stderr)
        return 2
    passing = [p.strip() for p in str(args.passing).split(",") if p.strip()]
    panels: list[tuple[str, Summary]] = []
    for sides in args.sides:
        known = {p for p, _, _ in scenario_powers(sides)}
        unknown = sorted(set(passing) - known)
        if unknown:
            print(f"unknown power(s) for {sides} sides: {', '.join(unknown)} "
                  f"(powers: {', '.join(sorted(known))})", file=sys.stderr)
            return 2
        started, cpu = time.perf_counter(), time.process_time()
        records = simulate(sides, args.turns, seed=args.seed, passing=passing,
                           one_die=args.one_die, threshold=args.threshold)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        summary = summarize(records)
        table = "one die per impulse" if args.one_die else "default weather table"
        who = f", passing: {', '.join(passing)}" if passing else ""
        print(report_text(summary, label=f"{sides} sides, {table}{who}, seed {args.seed}"))
        print(f"time: {elapsed:.1f} s wall, {cpu:.1f} s CPU "
              f"({args.turns / max(cpu, 1e-9):.0f} turns per CPU second)\n")
        panels.append((panel_label(summary, one_die=args.one_die, passing=passing), summary))
    if args.plot:
        with open(args.plot, "wb") as out:
            out.write(render_panels(panels, title="SIMULATED TURN LENGTH"))
        print(f"plot written to {args.plot}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m service simulate [options]`; `argv` excludes the word `simulate`."""
    parser = argparse.ArgumentParser(
        prog="service simulate",
        description="Play whole turns with the real rules and fair dice; print the "
                    "distribution of impulses per turn.")
    configure_parser(parser)
    return run(parser.parse_args(None if argv is None else list(argv)))


if __name__ == "__main__":
    sys.exit(main())
