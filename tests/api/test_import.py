"""Export / import (issue 10, docs/game-master.md): a complete export imports into an
empty server (verified first) and the game plays on there: the players keep their ids
and keys and get new tokens, the GM may bind new keys, the hash chain goes on, the rest
of the turn gets a new dice commitment, and the offline verifier accepts the result."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from gm_support import pass_impulse, summary
from sqlalchemy import text
from support import AXIS_FIRST, SIDES, Game, full_game, to_action

from service.crypto import identity, signing
from service.crypto.chain import verify_chain
from service.verify import verify_export

OPERATOR_KEY = "the-target-servers-operator-key"
OPERATOR = {"Authorization": f"Bearer {OPERATOR_KEY}"}


@pytest.fixture(scope="module")
async def empty_server(database_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """A second server with its own, empty database and an operator key: an import is
    the operator's act. Its client sends the key unless a request says otherwise (the
    players' and the GM's requests name their own tokens)."""
    from service.app import create_app
    from service.settings import Settings
    from service.store.database import make_engine, migrate

    url = database_url.replace("/postgres?", "/import_target?")
    admin = make_engine(database_url, pool_size=1)
    async with admin.connect() as connection:
        await connection.execution_options(isolation_level="AUTOCOMMIT")
        await connection.execute(text("DROP DATABASE IF EXISTS import_target"))
        await connection.execute(text("CREATE DATABASE import_target"))
    engine = make_engine(url, pool_size=1)
    await migrate(engine)
    await engine.dispose()
    application = create_app(Settings(database_url=url, sweep_interval=0,
                                      operator_key=OPERATOR_KEY), database_url=url)
    try:
        async with application.router.lifespan_context(application):
            transport = httpx.ASGITransport(app=application)
            async with httpx.AsyncClient(transport=transport, base_url="http://target",
                                         headers=OPERATOR) as c:
                yield c
    finally:
        async with admin.connect() as connection:
            await connection.execution_options(isolation_level="AUTOCOMMIT")
            await connection.execute(text("DROP DATABASE IF EXISTS import_target WITH (FORCE)"))
        await admin.dispose()


async def _export(game: Game) -> dict[str, Any]:
    r = await game.client.get(f"/v1/games/{game.id}/export", headers=game.gm)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


async def test_an_exported_game_imports_into_an_empty_server_and_plays_on(
    client: httpx.AsyncClient, empty_server: httpx.AsyncClient,
) -> None:
    game = await full_game(client, dice=AXIS_FIRST)
    phasing = (await to_action(game)).side
    await game.players[phasing].ok("roll", {"dice": "2d10", "purpose": "before the move"})
    export = await _export(game)  # the last thing done on the old server
    assert verify_export(export).ok

    r = await empty_server.post("/v1/games/import", json=export)
    assert r.status_code == 201, r.text
    imported = r.json()
    assert imported["id"] == game.id and imported["gm_token"] != game.gm_token
    kinds = [e["kind"] for e in imported["events"]]
    assert kinds == ["game.imported", "dice.recommitted"]
    old_head = export["events"][-1]
    assert imported["events"][0]["seq"] == old_head["seq"] + 1

    moved = Game(empty_server, game.id, imported["gm_token"], imported["join_codes"])
    for side in SIDES:  # same ids, same keys, new tokens
        player = game.players[side]
        player.client = empty_server
        player.token = imported["players"][player.id]["token"]
        moved.players[side] = player
    assert (await summary(moved))["position"] == (await summary(game))["position"]
    r = await empty_server.get(f"/v1/games/{game.id}", headers=game.players["axis"].headers)
    assert r.status_code == 200
    state = await moved.state()
    assert [(c["chain"], c["from_turn"]) for c in state["dice"]["chains"]] == [(0, 1), (1, 1)]

    mover = moved.players[phasing]
    await mover.ok("roll", {"dice": "2d10", "purpose": "on the new server"})
    new_key = signing.new_private_key()
    new_public = signing.public_key_text(new_key)
    consent = signing.sign(mover.key, identity.signing_bytes(identity.consent_object(
        game.id, mover.id, new_public)))
    r = await moved.admin(f"players/{mover.id}/key", {
        "public_key": new_public, "reason": "a key for the new server", "consent": consent})
    assert r.status_code == 200, r.text
    mover.key = new_key
    await mover.ok("roll", {"dice": "1d10", "purpose": "with the new key"})
    s = await summary(moved)
    if s["position"]["step"] == "declare":
        await pass_impulse(moved)
    assert (await moved.admin("end", {"reason": "verify"})).status_code == 200

    log = await moved.log()
    assert verify_chain(game.id, log) is None
    assert log[old_head["seq"] - 1]["hash"] == old_head["hash"]
    again = await _export(moved)
    report = verify_export(again)
    assert report.ok, report.text()
    replay = next(c for c in report.checks if c.name == "replay")
    after_import = [e for e in again["events"] if e["kind"] == "dice.rolled"
                    and e["seq"] > old_head["seq"]]
    recomputed = int(replay.detail.split("; ")[1].split()[0])
    assert recomputed >= len(after_import) >= 2  # the new chain's seed is revealed

    r = await empty_server.post("/v1/games/import", json=export)
    assert r.status_code == 409 and r.json()["code"] == "import/exists"


async def test_an_export_that_does_not_verify_is_refused(
    client: httpx.AsyncClient, empty_server: httpx.AsyncClient,
) -> None:
    game = await full_game(client, dice=AXIS_FIRST)
    await (await to_action(game)).ok("roll", {"dice": "1d10", "purpose": "x"})
    export = await _export(game)
    tampered = copy.deepcopy(export)
    tampered["events"][1]["text"] = "something else"
    r = await empty_server.post("/v1/games/import", json=tampered)
    assert r.status_code == 422 and r.json()["code"] == "import/verification_failed"
    assert r.json()["errors"][0]["path"] == "/hash_chain"
    sealed = copy.deepcopy(export)
    sealed["complete"] = False
    r = await empty_server.post("/v1/games/import", json=sealed)
    assert r.status_code == 422 and r.json()["errors"][0]["path"] == "/complete"
    r = await empty_server.post("/v1/games/import", json={"format": "nonsense"})
    assert r.status_code == 422
    r = await empty_server.get(f"/v1/games/{game.id}", headers=game.gm)
    assert r.status_code == 404
