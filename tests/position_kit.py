"""Random positions of a generated game for the tests of what is updated between two
positions rather than computed whole (supply, unit views): `start` gives a game, and
`change` one random thing happening to it (what events do to a position)."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from hypothesis import event
from hypothesis import strategies as st

from service.rules import Setup, State, initial_state
from service.rules.board import Board
from service.rules.options import resolve_options
from service.rules.scenario import generate_scenario
from service.rules.state import HexEdit, with_map_edits

MODES = ("combat", "move", "strat", "reserve", "exploit", "dg", None)


@lru_cache(maxsize=4)
def start(seed: int) -> State:
    """A generated game (900 hexes, 140 units) before anyone joined."""
    scenario = generate_scenario(900, 140, seed)
    return initial_state(Setup(f"g{seed}", scenario, resolve_options(None, 3), "fair"))


def _unit(state: State, data: st.DataObject) -> str:
    return data.draw(st.sampled_from(sorted(state.units)))


def change(state: State, data: st.DataObject) -> State:
    """One random thing happening to the position (what events do to it)."""
    kind = data.draw(st.sampled_from((
        "step", "step", "step", "step", "jump", "mode", "mode", "face", "power", "gone",
        "sea", "weather", "control", "port", "neutral", "nothing")))
    event(kind)
    sc = state.setup.scenario
    board = Board.from_state(state)
    units = dict(state.units)
    if kind in ("step", "jump", "mode", "face", "power", "gone"):
        uid = _unit(state, data)
        u = units[uid]
        if kind == "step" and u.at in board.grid.index:
            units[uid] = replace(u, at=data.draw(st.sampled_from(board.neighbours(u.at))))
        elif kind == "jump" and u.at in board.grid.index:
            units[uid] = replace(u, at=data.draw(st.sampled_from(board.grid.ids)))
        elif kind == "mode":
            units[uid] = replace(u, mode=data.draw(st.sampled_from(MODES)),
                                 orientation=data.draw(st.sampled_from(("combat", "move", None))))
        elif kind == "face":
            units[uid] = replace(u, face_up=not u.face_up, shattered=data.draw(st.booleans()))
        elif kind == "power":
            units[uid] = replace(u, power=data.draw(st.sampled_from(sorted(state.powers))))
        else:
            del units[uid]
        return replace(state, units=units)
    if kind == "sea":
        naval = sorted(uid for uid in units if sc.unit(uid).unit_class == "naval")
        if naval:
            uid = data.draw(st.sampled_from(naval))
            seas = sorted(s.id for s in sc.map.seas)
            units[uid] = replace(units[uid], at=data.draw(st.sampled_from(seas)))
        return replace(state, units=units)
    if kind == "weather":
        path = data.draw(st.integers(0, 6))
        return replace(state, turn=replace(state.turn, weather={"roll": 1, "supply_path": path}))
    if kind in ("control", "port"):
        hexes = [h for h in sc.map.hexes if kind == "control" or h.port is not None]
        if not hexes:
            return state
        h = data.draw(st.sampled_from(hexes))
        controller = data.draw(st.sampled_from((None, *sorted(state.powers)))) \
            if kind == "control" else h.controller
        edits = {**state.map_edits, h.id: HexEdit(controller, not h.port_damaged)}
        return replace(state, map_edits=edits, setup=with_map_edits(state.setup, edits))
    if kind == "neutral":
        p = data.draw(st.sampled_from(sorted(state.powers)))
        powers = {**state.powers, p: replace(state.powers[p], neutral=not state.powers[p].neutral)}
        return replace(state, powers=powers)
    return state
