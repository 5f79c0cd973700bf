"""Test helpers: players with Ed25519 keys who sign and send orders, game set-up."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from service.crypto import identity, signing

SCENARIOS = Path(__file__).parent / "scenarios"
SIDES = ("axis", "allies", "communists")
# Scripted initiative dice with which the Axis wins and moves first (`start_impulses`).
AXIS_FIRST = {"mode": "scripted", "script": {"initiative": [10, 1, 1]}}


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
    head: str = "0" * 64  # the newest event's hash this player saw: its orders' `prev`

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def envelope(self, kind: str, body: dict[str, Any], position: dict[str, Any],
                 seq: int | None = None) -> dict[str, Any]:
        if seq is None:
            self.seq += 1
            seq = self.seq
        order = {"game": self.game, "player": self.id, "seq": seq,
                 "prev": position.get("prev", self.head), "turn": position["turn"],
                 "impulse": position["impulse"], "step": position["step"], "kind": kind,
                 "body": body}
        return {"order": order, "signature": signing.sign(self.key,
                                                          signing.order_signing_bytes(order))}

    async def position(self) -> dict[str, Any]:
        """Where the game stands, with the chain head this player now has seen."""
        r = await self.client.get(f"/v1/games/{self.game}", headers=self.headers)
        assert r.status_code == 200, r.text
        self.head = r.json()["head"]["hash"]
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
    gm_key: Any = None
    gm_seq: int = 0

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
        """A GM act: on /admin, or, when the GM has a key, as a signed order of "gm"."""
        if self.gm_key is None:
            return await self.client.post(f"/v1/games/{self.id}/admin/{action}",
                                          json=body or {}, headers=self.gm)
        r = await self.client.get(f"/v1/games/{self.id}", headers=self.gm)
        summary = r.json()
        self.gm_seq += 1
        kind, body = f"admin.{action.replace('/', '_')}", dict(body or {})
        if action.startswith("players/"):  # players/{id}/key, players/{id}/reassign
            _, player, what = action.split("/")
            kind = {"key": "admin.replace_key", "reassign": "admin.reopen_seat"}[what]
            body["player_id"] = player
        order = {"game": self.id, "player": "gm", "seq": self.gm_seq,
                 "prev": summary["head"]["hash"], **summary["position"],
                 "kind": kind, "body": body}
        envelope = {"order": order, "signature": signing.sign(
            self.gm_key, signing.order_signing_bytes(order))}
        return await self.client.post(f"/v1/games/{self.id}/orders", json=envelope,
                                      headers=self.gm)


async def create_game(client: httpx.AsyncClient, scenario_ref: Any = "mini",
                      dice: dict[str, Any] | None = None, options: dict[str, Any] | None = None,
                      name: str = "test game", gm_key: Any = None) -> Game:
    if isinstance(scenario_ref, str) and (SCENARIOS / f"{scenario_ref}.json").exists():
        scenario_ref = scenario(scenario_ref)
    request = {"name": name, "scenario": scenario_ref, "options": options or {},
               "dice": dice or {"mode": "fair"}}
    if gm_key is not None:
        request["gm_public_key"] = signing.public_key_text(gm_key)
    r = await client.post("/v1/games", json=request)
    assert r.status_code == 201, r.text
    body = r.json()
    return Game(client, body["id"], body["gm_token"], body["join_codes"], gm_key=gm_key)


def join_body(game_id: str, side: str, code: str, key: Any, name: str,
              powers: list[str] | None) -> dict[str, Any]:
    """A join request, signed by the key it registers (docs/api.md)."""
    public = signing.public_key_text(key)
    signed = identity.join_object(game_id, side, name, public, powers)
    return {"join_code": code, "name": name, "public_key": public, "powers": powers,
            "signature": signing.sign(key, identity.signing_bytes(signed))}


async def join(game: Game, side: str, powers: list[str] | None = None,
               name: str | None = None) -> Player:
    player = Player(game.client, game.id, side)
    r = await game.client.post(
        f"/v1/games/{game.id}/seats/{side}",
        json=join_body(game.id, side, game.join_codes[side], player.key,
                       name or f"{side} player", powers))
    assert r.status_code == 201, r.text
    player.id, player.token = r.json()["player_id"], r.json()["token"]
    player.head = r.json()["head"]["hash"]
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


async def start_impulses(game: Game) -> dict[str, Any]:
    """Answer the reroll window (no) and the choices (first, then before) until the
    first impulse's declaration; the summary then."""
    while True:
        s = (await game.client.get(f"/v1/games/{game.id}", headers=game.gm)).json()
        waiting = s["awaiting"]
        if not waiting or waiting[0]["step"] not in ("initiative.reroll", "initiative.choose"):
            return s
        side = waiting[0]["side"]
        if waiting[0]["step"] == "initiative.reroll":
            await game.players[side].ok("initiative.reroll", {"demand": False})
        else:  # the winner takes the first place, the runner-up goes before the lowest
            first = waiting[0]["choices"]["position"][0]  # "first", or "before"
            await game.players[side].ok("initiative.choose", {"position": first})


async def to_action(game: Game) -> Player:
    """The first impulse's action step: the initiative answered, the phasing side's
    powers all declared `land`; its player (who may roll, OCS 5.0)."""
    summary = await start_impulses(game)
    side = summary["awaiting"][0]["side"]
    player = game.players[side]
    await player.ok("declare", {"actions": {p: "land" for p in summary["awaiting"][0]["powers"]}})
    return player
