"""A hypothesis state machine that plays random legal and illegal orders by all sides
through the rules and checks the invariants after each: replay equals the state, a
refused order changes nothing, `awaiting` is never empty while the game is active."""

from __future__ import annotations

from typing import Any

from engine import Table, table
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from support import SIDES

from service.rules import fold
from service.rules.codec import to_data
from service.rules.errors import RulesError

KINDS = ("initiative.reroll", "initiative.choose", "declare", "done", "production", "roll",
         "mode", "release", "report", "reorg")
MODES = ("combat", "move", "reserve", "strat", "exploit", "dg", "fly")
METHODS = ("hq", "primary", "secondary", "limited", "rail", "atr", "overseas", "teleport")
POSITIONS = ("first", "last", "before", "after", "middle")
ACTIONS = ("pass", "land", "air", "naval", "combined", "swim")


def _body(kind: str, data: st.DataObject, t: Table, side: str) -> dict[str, Any]:
    if kind == "initiative.reroll":
        return {"demand": data.draw(st.sampled_from([True, False, "yes", None]))}
    if kind == "initiative.choose":
        return {"position": data.draw(st.sampled_from(POSITIONS))}
    if kind == "declare":
        powers = list(t.state.powers)
        chosen = data.draw(st.lists(st.sampled_from(powers), min_size=0, max_size=3,
                                    unique=True))
        return {"actions": {p: data.draw(st.sampled_from(ACTIONS)) for p in chosen}}
    if kind == "production":
        return {"powers": {p: {"bp_spent": data.draw(st.integers(-1, 40)),
                               "bp_on_rps": data.draw(st.integers(-1, 12))}
                           for p in t.state.side_powers(side)}}
    units = sorted(t.state.units)
    if kind == "mode":
        chosen = data.draw(st.lists(st.sampled_from(units), max_size=3, unique=True))
        return {"changes": [{"unit": u, "mode": data.draw(st.sampled_from(MODES))}
                            for u in chosen]}
    if kind == "release":
        return {"units": data.draw(st.lists(st.sampled_from(units), max_size=2, unique=True))}
    if kind == "report":
        unit = data.draw(st.sampled_from(units))
        hexes = [h.id for h in t.state.setup.scenario.map.hexes]
        return {"moves": [{"unit": unit, "to": data.draw(st.sampled_from(hexes)),
                           "mp": data.draw(st.integers(-1, 12)), "transport": None}]}
    if kind == "reorg":
        unit = data.draw(st.sampled_from(units))
        return {"power": data.draw(st.sampled_from(list(t.state.powers))),
                "items": [{"unit": unit, "method": data.draw(st.sampled_from(METHODS)),
                           "hq": data.draw(st.sampled_from(units)),
                           "source": data.draw(st.sampled_from(units))}]}
    if kind == "roll":
        return {"dice": data.draw(st.sampled_from(["1d10", "2d6", "0d6", "21d10", "x"])),
                "purpose": "machine"}
    return {}


class Game(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.t = table()
        self.accepted = 0
        self.refused = 0

    @rule(data=st.data(), side=st.sampled_from(SIDES), kind=st.sampled_from(KINDS))
    def order(self, data: st.DataObject, side: str, kind: str) -> None:
        before = to_data(self.t.state)
        events_before = len(self.t.events)
        try:
            self.t.act(kind, _body(kind, data, self.t, side), side=side)
            self.accepted += 1
        except RulesError:
            self.refused += 1
            assert to_data(self.t.state) == before
            assert len(self.t.events) == events_before

    @rule(data=st.data())
    def answer_what_is_awaited(self, data: st.DataObject) -> None:
        """Steer towards progress: give the awaited side a plausible legal answer."""
        waiting = self.t.awaiting()
        if not waiting:
            return
        entry = waiting[0]
        step, side = entry["step"], entry["side"]
        body: dict[str, Any]
        if step == "initiative.reroll":
            kind, body = step, {"demand": data.draw(st.booleans())}
        elif step == "initiative.choose":
            first = all(s is None for s in self.t.state.initiative.slots)
            kind = step
            body = {"position": data.draw(st.sampled_from(
                ["first", "last"] if first else ["before", "after"]))}
        elif step == "declare":
            kind = "declare"
            body = {"actions": {p: data.draw(st.sampled_from(["pass", "land"]))
                                for p in entry["powers"]}}
        elif step == "production":
            kind = "production"
            body = {"powers": {p: {"bp_spent": 10, "bp_on_rps": 0} for p in entry["powers"]}}
        else:
            kind, body = "done", {}
        self.t.act(kind, body, side=side)

    @invariant()
    def replay_equals_state(self) -> None:
        assert self.t.initial is not None
        assert to_data(fold(self.t.initial, self.t.events)) == to_data(self.t.state)

    @invariant()
    def someone_is_awaited_while_active(self) -> None:
        if self.t.state.status == "active":
            assert self.t.awaiting()


TestGameMachine = Game.TestCase
TestGameMachine.settings = settings(max_examples=25, stateful_step_count=60, deadline=None)
