"""Seed 002's two worked examples, played through the HTTP API with scripted dice.
The assertions are the seed's own numbers."""

from __future__ import annotations

import httpx
from support import SIDES, Game, full_game, play_impulse

ALL_MOVE = {
    "axis": {"germany": "land", "italy": "land"},
    "allies": {"cw": "land", "usa": "land", "france": "land"},
    "communists": {"ussr": "land", "china": "land"},
}


async def _no_reroll(game: Game) -> None:
    for side in SIDES:  # every side stands on the leftmost 0 box: a window, nobody demands
        await game.players[side].ok("initiative.reroll", {"demand": False})


async def test_seed_002_initiative_example_gives_communists_axis_allies(
    client: httpx.AsyncClient,
) -> None:
    """Seed 002: Axis 5, Allies 8, Communists 5; the Axis had better initiative last turn,
    so the Communists win the tie; Allies choose last, Communists first.
    (seed 002 Initiative Track.)"""
    game = await full_game(client, dice={"mode": "scripted",
                                         "script": {"initiative": [5, 8, 5]}})
    await _no_reroll(game)
    state = await game.state()
    assert state["initiative"]["totals"] == {"axis": 5, "allies": 8, "communists": 5}
    assert state["initiative"]["ranking"] == ["allies", "communists", "axis"]
    assert state["awaiting"] == [{"side": "allies", "powers": ["cw", "usa", "france"],
                                  "step": "initiative.choose", "deadline": None,
                                  "orders": ["initiative.choose"],
                                  "choices": {"position": ["first", "last"]}}]
    await game.players["allies"].ok("initiative.choose", {"position": "last"})
    assert (await game.state())["awaiting"][0]["side"] == "communists"
    await game.players["communists"].ok("initiative.choose", {"position": "before"})
    state = await game.state()
    assert state["turn"]["order"] == ["communists", "axis", "allies"]
    assert state["turn"]["step"] == "declare"
    assert state["turn"]["phasing_side"] == "communists"


# Seed 002 turn-end example, impulse by impulse: (side, declarations, its dice, total).
TURN_END_PLAY: list[tuple[str, dict[str, str], list[int], int]] = [
    ("communists", ALL_MOVE["communists"], [8, 4], 12),
    ("allies", ALL_MOVE["allies"], [5, 3], 20),
    ("axis", {"germany": "land", "italy": "pass"}, [7, 6], 35),  # Italy passes: +1 a die
    ("communists", {"ussr": "land", "china": "pass"}, [3, 4], 44),  # Communist China passes
    ("allies", ALL_MOVE["allies"], [1, 5], 50),
    ("axis", ALL_MOVE["axis"], [5, 10], 65),
    ("communists", ALL_MOVE["communists"], [3, 6, 7], 81),
]


async def test_seed_002_turn_end_example_totals_and_marker_shifts(
    client: httpx.AsyncClient,
) -> None:
    """Seed 002 turn-end example: weather 5, 8, 2 (2, 2, 3 dice); totals 12, 20, 35, 44,
    50, 65, 81; then the Allies roll only their last die because 83 is certain, a 6, and
    the turn ends; the Axis (one impulse fewer) shifts left, the others right.
    (seed 002 Turn End, seed 002 Effects of Passing and seed 002 Initiative Track.)"""
    turn_end = [v for _, _, dice, _ in TURN_END_PLAY for v in dice] + [6]
    script = {"initiative": [3, 6, 9], "weather": [5, 8, 2], "turn_end": turn_end}
    game = await full_game(client, dice={"mode": "scripted", "script": script})
    await _no_reroll(game)
    # Communists win and move first; the Allies go before the lowest (the Axis).
    await game.players["communists"].ok("initiative.choose", {"position": "first"})
    await game.players["allies"].ok("initiative.choose", {"position": "before"})
    assert (await game.state())["turn"]["order"] == ["communists", "allies", "axis"]

    seen_weather = []
    for side, actions, _dice, total in TURN_END_PLAY:
        state = await game.state()
        assert state["turn"]["phasing_side"] == side
        seen_weather.append(state["turn"]["weather"]["dice"])
        await play_impulse(game, side, actions)
        assert (await game.state())["turn"]["turn_end_total"] == total
    assert seen_weather == [2, 2, 2, 2, 2, 2, 3]

    before = (await game.state())["initiative"]["boxes"]
    await play_impulse(game, "allies", ALL_MOVE["allies"])
    log = await game.log()
    last_roll = [e for e in log if e["kind"] == "turn_end.rolled"][-1]["data"]
    assert last_roll["certain"] is True
    assert last_roll["values"] == [6]
    assert last_roll["ends"] is True
    state = await game.state()
    assert state["turn"]["impulses_taken"] == {"axis": 2, "allies": 3, "communists": 3}
    # Every side had face-down units: a final reorganization step (all done), then the
    # markers shift and the turn's seed is revealed.
    final = [e for e in log if e["kind"] == "step.began"
             and e["data"]["step"] == "final_reorganization"]
    assert final and set(final[0]["data"]["sides"]) == set(SIDES)
    assert [e["kind"] for e in log][-3:] == ["initiative.shifted", "dice.revealed",
                                             "step.began"]
    assert state["initiative"]["boxes"] == {
        "axis": before["axis"] - 1, "allies": before["allies"] + 1,
        "communists": before["communists"] + 1,
    }
    assert state["turn"]["step"] == "production"
    assert "1" in state["dice"]["revealed"]
