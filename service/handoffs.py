"""`python -m service simulate --handoffs`: how often does a game wait for a person?
(issue 20). Plays a standard scripted game of Drang Nach Osten's demo (`dno-demo`) with
the real rules, twice: as players play today (every step answered by an order,
`done` where there is nothing to do), and with the default standing orders armed
(`DEFAULT_STANDING`) and the phasing side finishing its impulse with one `steps` order.
A player whose standing order a stop disarmed answers that step by hand, then arms the
order again (one more order, counted).

Typical orders, the same in both games: every power declares a land action; in its
action step the phasing side moves one unit to a hex the options endpoints call legal
(`modes.side_options`; the unit and the hex drawn with the seed), and answers every
combat and exploitation choice with `done`; nobody releases Reserves, rerolls the
initiative or changes production; the initiative winner moves first. Dice are seeded
(`--seed`).

For each impulse it counts the responses (orders a person sent), the hand-offs (a
person's order followed by an order of another side: the move changed hands) and the
bare `done` orders, and among those the ones from a side with no legal choice in the
step (`modes.no_choice`). Orders between impulses (initiative, production, the final
reorganization) are counted apart. An active impulse is one whose phasing side
declared an action.
"""

from __future__ import annotations

import hashlib
import random
import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from service.rules import state as st
from service.rules.awaiting import awaiting
from service.rules.command import Actor, Command
from service.rules.decide import decide
from service.rules.modes import no_choice, side_options
from service.rules.options import resolve_options
from service.rules.scenario import load_builtin_scenario
from service.rules.state import Setup, State, initial_state
from service.simulate import RandomDice

SCENARIO = "dno-demo"
AT = "2000-01-01T00:00:00+00:00"
MAX_ORDERS = 20_000  # a game of ten turns always ends; this only stops a broken engine

# The default standing orders (docs/api.md "Standing orders"): what a player arms once
# so that the server answers the steps where the usual answer is "nothing".
DEFAULT_STANDING: tuple[dict[str, Any], ...] = (
    {"step": "initiative.reroll", "demand": False,
     "stops": [{"kind": "initiative_close", "within": 1}]},
    {"step": "reaction", "stops": [{"kind": "enemy_adjacent_reserve"},
                                   {"kind": "unit_attacked"}]},
    {"step": "combat", "stops": [{"kind": "unit_attacked"}]},
    {"step": "exploitation", "stops": [{"kind": "unit_attacked"}]},
    {"step": "final_reorganization", "spend": "cheapest",
     "stops": [{"kind": "hq_out_of_supply"}, {"kind": "rps_lapse"}]},
)
# The phasing side's one order per impulse: done through its reorganization, unless a
# unit of it is attacked or its done there would let RPs lapse (the page's "Done through").
THROUGH_STOPS: tuple[dict[str, Any], ...] = ({"kind": "unit_attacked"}, {"kind": "rps_lapse"})
IMPULSE_STEPS = (st.DECLARE, st.ACTION, st.REACTION, st.COMBAT, st.EXPLOITATION,
                 st.REORGANIZATION)


@dataclass(slots=True)
class Impulse:
    """What one impulse asked of people."""

    turn: int
    number: int
    phasing: str
    active: bool = False
    responses: int = 0
    handoffs: int = 0
    bare_done: int = 0
    no_choice_done: int = 0


@dataclass(slots=True)
class Played:
    """A game played by the policy: its impulses and the orders between them."""

    standing: bool
    impulses: list[Impulse] = field(default_factory=list)
    between: int = 0  # orders outside impulses (initiative, production, final reorg)
    between_done: int = 0
    arming: int = 0  # the standing orders armed at the start (once per game)
    answered: int = 0  # answers the server gave for the sides (standing.answered)
    disarmed: int = 0
    turns: int = 0
    lapsed_by_order: int = 0  # RPs a standing order or a held done let lapse
    lapsed_by_player: int = 0  # RPs a player's own done let lapse
    spent_by_order: int = 0  # RPs final-reorganization orders spent
    own_steps_answered: int = 0  # the phasing side's combat or exploitation by a standing order

    def active(self) -> list[Impulse]:
        return [i for i in self.impulses if i.active]


class Game:
    """A game of dno-demo in memory, played by the policy (see the module doc)."""

    def __init__(self, *, seed: int, standing: bool) -> None:
        scenario = load_builtin_scenario(SCENARIO)
        setup = Setup(game_id=f"handoffs-{seed}", scenario=scenario,
                      options=resolve_options({}, len(scenario.sides)), dice_mode="seeded")
        self.state: State = initial_state(setup)
        self.dice = RandomDice(seed)
        self.rng = random.Random(seed)
        self.played = Played(standing)
        self.seq = 0
        self.actors: dict[str, Actor] = {}
        self.last_side: str | None = None
        self.last_impulse: Impulse | None = None
        self.current: Impulse | None = None
        # Standing orders a stop disarmed: the player answers the step, then arms again.
        self.rearm: set[tuple[str, str]] = set()
        for side in setup.sides:
            powers = scenario.powers_of_side(side)
            self.actors[side] = Actor(id=f"player-{side}", role="player", side=side,
                                      powers=powers)
            self._send("seat.take", {"side": side, "powers": list(powers), "name": side,
                                     "player_id": f"player-{side}"}, side)
        if standing:
            for side in setup.sides:
                for body in DEFAULT_STANDING:
                    self._send("standing", dict(body), side)
                    self.played.arming += 1

    def _command(self, kind: str, body: Mapping[str, Any], side: str) -> Command:
        salts = {s: hashlib.sha256(f"{self.seq} {s}".encode()).hexdigest()
                 for s in self.state.setup.sides}
        extra: dict[str, Any] = {"seq": self.seq, "standing_salts": salts}
        if kind == "initiative.reroll":
            extra["salt"] = salts[side]
        return Command(kind=kind, body=dict(body), actor=self.actors[side], at=AT,
                       extra=extra)

    def a_move(self, state: State, side: str) -> list[dict[str, Any]]:
        """One legal move of `side` in `state` (its action step), drawn with the seed;
        none if no unit may move."""
        movable = [(uid, choice["moves"]["hexes"])
                   for uid, choice in side_options(state, side).items()
                   if choice["moves"]["may"] and choice["moves"]["hexes"]]
        if not movable:
            return []
        uid, hexes = movable[self.rng.randrange(len(movable))]
        to = hexes[self.rng.randrange(len(hexes))]
        return [{"unit": uid, "to": to["to"], "path": list(to["path"])}]

    def _send(self, kind: str, body: Mapping[str, Any], side: str) -> None:
        self.seq += 1
        before = self.state
        decision = decide(self.state, self._command(kind, body, side), self.dice)
        answering: set[str] = set()  # sides a standing answer is acting for now
        for event, was in zip(decision.events, [before, *decision.states], strict=False):
            if event.kind == "standing.answered":
                answering.add(str(event.data["side"]))
                if event.data["kind"] == "standing" and event.data["step"] in (
                        st.COMBAT, st.EXPLOITATION) and was.turn.phasing_side == \
                        event.data["side"]:
                    self.played.own_steps_answered += 1
            elif event.kind == "side.done":
                answering.discard(str(event.data["side"]))
            elif event.kind == "rps.lapsed":
                if event.data["side"] in answering:
                    self.played.lapsed_by_order += int(event.data["amount"])
                else:
                    self.played.lapsed_by_player += int(event.data["amount"])
            elif event.kind == "unit.reorganized" and event.step == st.FINAL_REORGANIZATION \
                    and answering:
                self.played.spent_by_order += int(event.data["cost"])
            if event.kind == "standing.answered":
                self.played.answered += 1
            elif event.kind == "standing.disarmed":
                self.played.disarmed += 1
                if event.data["kind"] == "standing":
                    self.rearm.add((str(event.data["side"]), str(event.data["step"])))
            elif event.kind == "turn.ended":
                self.played.turns += 1
        self.state = decision.state

    def _impulse(self) -> Impulse | None:
        s = self.state
        if s.step not in IMPULSE_STEPS or s.turn.phasing_side is None:
            return None
        last = self.played.impulses[-1] if self.played.impulses else None
        if last is None or (last.turn, last.number) != (s.turn.number, s.turn.impulse):
            last = Impulse(s.turn.number, s.turn.impulse, s.turn.phasing_side)
            self.played.impulses.append(last)
        return last

    def order(self, kind: str, body: Mapping[str, Any], side: str) -> None:
        """A person's order: counted, then sent."""
        impulse = self._impulse()
        if self.last_side is not None and self.last_side != side \
                and self.last_impulse is not None:
            self.last_impulse.handoffs += 1
        bare = kind == "done"
        if impulse is None:
            self.played.between += 1
            self.played.between_done += bare
        else:
            impulse.responses += 1
            impulse.bare_done += bare
            if bare and no_choice(self.state, side, self.state.step) is not None:
                impulse.no_choice_done += 1
        self.last_side, self.last_impulse = side, impulse
        self._send(kind, body, side)

    # long: the policy's answer per step, one branch each, with and without standing orders.
    def answer(self, entry: Mapping[str, Any]) -> None:
        side: str = entry["side"]
        step: str = entry["step"]
        s = self.state
        if step == st.REROLL:
            self.order("initiative.reroll", {"demand": False}, side)
        elif step == st.CHOOSE:
            first = all(slot is None for slot in s.initiative.slots)
            self.order("initiative.choose", {"position": "first" if first else "before"},
                       side)
        elif step == st.DECLARE:
            actions = {p: "land" for p in entry["powers"]}
            declared = decide(s, self._command("declare", {"actions": actions}, side),
                              self.dice).state
            moves = self.a_move(declared, side) if declared.step == st.ACTION else []
            impulse = self._impulse()
            if impulse is not None:
                impulse.active = True
            if self.played.standing:  # the whole impulse in one signed order
                items: list[dict[str, Any]] = [{"kind": "declare",
                                                "body": {"actions": actions}}]
                if moves:
                    items.append({"kind": "report", "body": {"moves": moves}})
                self.order("steps", {"orders": items, "through": "reorganization",
                                     "stops": [dict(x) for x in THROUGH_STOPS]}, side)
            else:
                self.order("declare", {"actions": actions}, side)
                if moves:
                    self.order("report", {"moves": moves}, side)
        elif step == st.PRODUCTION:
            figures = {p: {"bp_spent": s.powers[p].bp_spent_last_turn,
                           "bp_on_rps": s.powers[p].bp_on_rps} for p in entry["powers"]}
            self.order("production", {"powers": figures}, side)
        elif step in st.SIDE_STEPS or step == st.FINAL_REORGANIZATION:
            self.order("done", {}, side)
        else:
            raise RuntimeError(f"the bench has no answer for step {step!r}")
        if (side, step) in self.rearm:  # answered by hand after a stop: armed again
            self.rearm.discard((side, step))
            self.order("standing", next(b for b in DEFAULT_STANDING if b["step"] == step),
                       side)

    def play(self, turns: int) -> Played:
        for _ in range(MAX_ORDERS):
            if self.played.turns >= turns:
                return self.played
            entries = awaiting(self.state)
            if not entries:
                raise RuntimeError(f"nobody to act at {self.state.step}")
            self.answer(entries[0])
        raise RuntimeError(f"{turns} turns took more than {MAX_ORDERS} orders")


def play(*, turns: int = 10, seed: int = 1, standing: bool) -> Played:
    return Game(seed=seed, standing=standing).play(turns)


def _median(values: list[int]) -> float:
    return statistics.median(values) if values else 0.0


def report_text(played: Played) -> str:
    active = played.active()
    every = played.impulses
    label = "default standing orders armed" if played.standing else "no standing orders"
    responses = sum(i.responses for i in every)
    bare = sum(i.bare_done for i in every) + played.between_done
    lines = [
        f"{label}: {played.turns} turns, {len(every)} impulses ({len(active)} active)",
        f"  responses per active impulse: median {_median([i.responses for i in active])}"
        f", mean {statistics.fmean([i.responses for i in active] or [0]):.2f}",
        f"  hand-offs per active impulse: median {_median([i.handoffs for i in active])}"
        f", mean {statistics.fmean([i.handoffs for i in active] or [0]):.2f}",
        f"  orders by people: {responses + played.between} ({responses} in impulses, "
        f"{played.between} between them) + {played.arming} standing orders armed once",
        f"  bare done: {bare} ({sum(i.no_choice_done for i in every)} from a side with "
        f"no choice in the step)",
        f"  answers given by the server: {played.answered}; standing orders disarmed: "
        f"{played.disarmed}",
        f"  the phasing side's own combat or exploitation answered by a standing order: "
        f"{played.own_steps_answered}",
        f"  RPs spent by final-reorganization orders: {played.spent_by_order}; RPs lapsed "
        f"by a standing order or held done: {played.lapsed_by_order}, by a player's own "
        f"done: {played.lapsed_by_player}",
    ]
    return "\n".join(lines)


def run(turns: int, seed: int) -> int:
    """Print both games' figures."""
    print(f"{SCENARIO}, {turns} turns, seed {seed}")
    for standing in (False, True):
        print(report_text(play(turns=turns, seed=seed, standing=standing)))
    return 0
