"""Test helpers: players with Ed25519 keys who sign and send orders, game set-up."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from service.crypto import signing

SCENARIOS = Path(__file__).parent / "scenarios"
SIDES = ("axis", "allies", "communists")


def scenario(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCENARIOS / f"{name}.json").read_text())
    return data


@dataclass
class Player:
    client: httpx.AsyncClient
    game: str
    side: str
    id: str = ""
    token: str = ""
    key: Any = field(default_factory=signing.new_private_key)
    seq: int = 0

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def envelope(self, kind: str, body: dict[str, Any], position: dict[str, Any],
                 seq: int | None = None) -> dict[str, Any]:
        if seq is None:
            self.seq += 1
            seq = self.seq
        order = {"game": self.game, "player": self.id, "seq": seq, "turn": position["turn"],
                 "impulse": position["impulse"], "step": position["step"], "kind": kind,
                 "body": body}
        return {"order": order, "signature": signing.sign(self.key,
                                                          signing.order_signing_bytes(order))}

    async def position(self) -> dict[str, Any]:
        r = await self.client.get(f"/v1/games/{self.game}", headers=self.headers)
        assert r.status_code == 200, r.text
        pos: dict[str, Any] = r.json()["position"]
        return pos

    async def order(self, kind: str, body: dict[str, Any] | None = None,
                    position: dict[str, Any] | None = None) -> httpx.Response:
        position = position or await self.position()
        return await self.client.post(f"/v1/games/{self.game}/orders",
                                      json=self.envelope(kind, body or {}, position),
                                      headers=self.headers)

    async def ok(self, kind: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        r = await self.order(kind, body)
        assert r.status_code == 201, r.text
        result: dict[str, Any] = r.json()
        return result


@dataclass
class Game:
    client: httpx.AsyncClient
    id: str
    gm_token: str
    join_codes: dict[str, str]
    players: dict[str, Player] = field(default_factory=dict)

    @property
    def gm(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.gm_token}"}

    async def state(self, who: Player | None = None) -> dict[str, Any]:
        headers = who.headers if who else self.gm
        r = await self.client.get(f"/v1/games/{self.id}/state", headers=headers)
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body

    async def log(self, who: Player | None = None) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        after = 0
        while True:
            r = await self.client.get(f"/v1/games/{self.id}/log",
                                      params={"after": after, "limit": 1000},
                                      headers=who.headers if who else self.gm)
            assert r.status_code == 200, r.text
            page = r.json()["events"]
            events += page
            if len(page) < 1000:
                return events
            after = page[-1]["seq"]

    async def admin(self, action: str, body: dict[str, Any] | None = None) -> httpx.Response:
        return await self.client.post(f"/v1/games/{self.id}/admin/{action}", json=body or {},
                                      headers=self.gm)


async def create_game(client: httpx.AsyncClient, scenario_ref: Any = "mini",
                      dice: dict[str, Any] | None = None, options: dict[str, Any] | None = None,
                      name: str = "test game") -> Game:
    if isinstance(scenario_ref, str) and (SCENARIOS / f"{scenario_ref}.json").exists():
        scenario_ref = scenario(scenario_ref)
    r = await client.post("/v1/games", json={"name": name, "scenario": scenario_ref,
                                             "options": options or {},
                                             "dice": dice or {"mode": "fair"}})
    assert r.status_code == 201, r.text
    body = r.json()
    return Game(client, body["id"], body["gm_token"], body["join_codes"])


async def join(game: Game, side: str, powers: list[str] | None = None,
               name: str | None = None) -> Player:
    player = Player(game.client, game.id, side)
    r = await game.client.post(
        f"/v1/games/{game.id}/seats/{side}",
        json={"join_code": game.join_codes[side], "name": name or f"{side} player",
              "public_key": signing.public_key_text(player.key), "powers": powers},
    )
    assert r.status_code == 201, r.text
    player.id, player.token = r.json()["player_id"], r.json()["token"]
    game.players[side] = player
    return player


async def full_game(client: httpx.AsyncClient, scenario_ref: Any = "mini",
                    dice: dict[str, Any] | None = None,
                    options: dict[str, Any] | None = None) -> Game:
    game = await create_game(client, scenario_ref, dice, options)
    for side in SIDES:
        await join(game, side)
    return game


DONE_STEPS = ("action", "reaction", "combat", "exploitation", "reorganization",
              "final_reorganization")


async def answer_done_steps(game: Game) -> dict[str, Any]:
    """Send `done` for every side the game awaits in a done-step, until it awaits
    something else (a declaration, a choice, production)."""
    while True:
        summary = (await game.client.get(f"/v1/games/{game.id}", headers=game.gm)).json()
        waiting = [a for a in summary["awaiting"] if a["step"] in DONE_STEPS]
        if not waiting:
            return summary
        await game.players[waiting[0]["side"]].ok("done")


async def play_impulse(game: Game, side: str, actions: dict[str, str]) -> dict[str, Any]:
    """Declare `actions` for `side`, then finish every done-step of the impulse."""
    await game.players[side].ok("declare", {"actions": actions})
    return await answer_done_steps(game)
