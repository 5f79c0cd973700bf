"""Decisions that name their choices (issue 23, item 2; docs/api.md "Who must act"):
walking a whole turn, every awaited step names the order kinds that answer it, its
fixed `choices` where it has some, and the endpoint listing the choices where they
depend on the map; and everywhere a body of the wrong shape is 422 while a well-shaped
order the state does not allow is 409, with nothing logged."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support import Game, Player, full_game

# A turn that ends at the first turn-end roll (threshold 1, a last die of 8), with the
# Axis first: every step of seed 002 comes round once.
DICE = {"mode": "scripted", "script": {"initiative": [10, 1, 1], "turn_end": [8, 8, 8, 8]}}
OPTIONS = {"turn_end": {"threshold": 1}}
# An order of each kind with a valid shape, to send where it does not belong.
SHAPED: dict[str, dict[str, Any]] = {
    "declare": {"actions": {"germany": "pass"}},
    "production": {"powers": {"germany": {"bp_spent": 1, "bp_on_rps": 0}}},
    "initiative.choose": {"position": "first"},
    "done": {},
}


async def _head(game: Game) -> tuple[int, str]:
    head = (await game.client.get(f"/v1/games/{game.id}", headers=game.gm)).json()["head"]
    return head["seq"], head["hash"]


async def _refused(game: Game, player: Player, kind: str, body: dict[str, Any], status: int,
                   code: str | None = None) -> dict[str, Any]:
    before = await _head(game)
    r = await player.order(kind, body)
    assert r.status_code == status, (kind, body, r.text)
    assert r.headers["content-type"].startswith("application/problem+json")
    if code is not None:
        assert r.json()["code"] == code, r.json()
    assert await _head(game) == before
    problem: dict[str, Any] = r.json()
    return problem


def _answer(entry: dict[str, Any], first_impulse: bool) -> tuple[str, dict[str, Any]]:
    step, powers = entry["step"], entry["powers"]
    if step == "initiative.reroll":
        return "initiative.reroll", {"demand": False}
    if step == "initiative.choose":
        return "initiative.choose", {"position": entry["choices"]["position"][0]}
    if step == "declare":
        return "declare", {"actions": {p: "land" if first_impulse else "pass" for p in powers}}
    if step == "production":
        return "production", {"powers": {p: {"bp_spent": 10, "bp_on_rps": 2} for p in powers}}
    return "done", {}


async def _check_step(game: Game, entry: dict[str, Any]) -> None:
    """What every awaited entry says, and how a wrong answer is refused."""
    player = game.players[entry["side"]]
    step, orders = entry["step"], entry["orders"]
    assert orders, entry
    fixed = {"initiative.reroll": {"demand": [True, False]}, "declare": {
        "actions.*": ["pass", "land", "air", "naval", "combined"]}}
    if step in fixed:
        assert entry["choices"] == fixed[step]
    if step in ("action", "reaction", "combat", "exploitation"):
        assert entry["options"] == f"/v1/games/{game.id}/options?side={entry['side']}"
        r = await game.client.get(entry["options"], headers=player.headers)
        assert r.status_code == 200 and r.json()["side"] == entry["side"], r.text
    elif step in ("reorganization", "final_reorganization"):
        assert entry["options"].endswith("/reorg/options?unit={unit}")
    else:
        assert "options" not in entry
    # Shape: an unknown key, or a value no body of the kind takes, is 422 in every step.
    await _refused(game, player, orders[0], {**_answer(entry, True)[1], "zz": 1}, 422,
                   "request/unknown_key")
    # State: a well-shaped order of a kind that does not answer this step is 409.
    other = next(k for k in SHAPED if k not in orders)
    problem = await _refused(game, player, other, SHAPED[other], 409)
    assert problem["code"] in ("order/wrong_step", "order/not_your_turn"), problem
    if step == "initiative.choose":
        taken = entry["choices"]["position"]
        wrong = next(p for p in ("first", "last", "before", "after") if p not in taken)
        problem = await _refused(game, player, step, {"position": wrong}, 409,
                                 "initiative/not_this_choice")
        assert problem["choices"] == {"position": taken}
        await _refused(game, player, step, {"position": "sideways"}, 422,
                       "request/malformed_body")
    if step == "initiative.reroll":
        await _refused(game, player, step, {"demand": "no"}, 422, "request/malformed_body")


async def test_a_whole_turn_names_each_decision_and_refuses_by_shape_and_state(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client, "modes", dice=DICE, options=OPTIONS)
    # A face-down unit, so that reorganization has something to do (11.18).
    r = await game.admin("edit", {"units": {"ger-inf-2": {"face_up": False}}, "reason": "test"})
    assert r.status_code == 200, r.text
    seen: set[str] = set()
    impulses = 0
    for _ in range(80):
        summary = (await client.get(f"/v1/games/{game.id}", headers=game.gm)).json()
        if summary["turn"] > 1 or not summary["awaiting"]:
            break
        entry = summary["awaiting"][0]
        if entry["step"] not in seen:
            await _check_step(game, entry)
            seen.add(entry["step"])
        if entry["step"] == "declare":
            impulses += 1
        kind, body = _answer(entry, impulses <= 1)
        r = await game.players[entry["side"]].order(kind, body)
        assert r.status_code == 201, (entry, r.text)
    assert {"initiative.reroll", "initiative.choose", "declare", "action", "combat",
            "production"} <= seen, seen
    assert {"reorganization", "final_reorganization"} <= seen, seen
