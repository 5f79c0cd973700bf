"""Issue 23, item 5: the small things a client author trips on, each held here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from service import __version__
from service.crypto import signing
from tests.support import AXIS_FIRST, create_game, full_game, join, start_impulses

ROOT = Path(__file__).resolve().parents[2]


async def test_a_webhook_url_that_is_not_a_url_is_refused_at_registration(
        client: httpx.AsyncClient) -> None:
    game = await full_game(client)
    axis = game.players["axis"]
    for url in ("not a url", "https://", "ftp://example.org/x", "https://exa mple.org/"):
        r = await client.put(f"/v1/games/{game.id}/webhook", headers=axis.headers,
                             json={"url": url})
        assert r.status_code == 422, (url, r.text)
        assert [e["path"] for e in r.json()["errors"]] == ["/url"], url
    r = await client.get(f"/v1/games/{game.id}/webhook", headers=axis.headers)
    assert r.status_code == 404  # nothing was registered


async def test_an_unknown_side_is_404(client: httpx.AsyncClient) -> None:
    game = await full_game(client)
    key = signing.new_private_key()
    r = await client.post(f"/v1/games/{game.id}/seats/vikings", json={
        "join_code": "x", "name": "Erik", "public_key": signing.public_key_text(key),
        "signature": "x"})
    assert r.status_code == 404 and r.json()["code"] == "seat/unknown_side"
    assert "axis" in r.json()["detail"]


async def test_integers_beyond_2_53_are_refused_saying_why(client: httpx.AsyncClient) -> None:
    """RFC 8785 writes numbers as IEEE doubles: 2^53 + 1 has no form, so a signed order
    cannot hold it. Where a body's type bounds the number, the bound says so; where it
    is free (the body the GM's `admin.act` carries), the problem says why."""
    gm_key = signing.new_private_key()
    game = await create_game(client, dice=AXIS_FIRST, gm_key=gm_key)
    for side in ("axis", "allies", "communists"):
        await join(game, side)
    await start_impulses(game)
    summary = (await client.get(f"/v1/games/{game.id}", headers=game.gm)).json()
    order = {"game": game.id, "player": "gm", "seq": 1, "prev": summary["head"]["hash"],
             **summary["position"], "kind": "admin.act",
             "body": {"side": "communists", "kind": "declare",
                      "body": {"actions": {"ussr": "pass"}, "n": 2**53 + 1}}}
    # A client whose JSON library writes the integer anyway signs those bytes.
    naive = json.dumps(order, sort_keys=True, separators=(",", ":")).encode()
    r = await client.post(f"/v1/games/{game.id}/orders", headers=game.gm, json={
        "order": order, "signature": signing.sign(gm_key, naive)})
    assert r.status_code == 422 and r.json()["code"] == "order/not_canonical", r.text
    assert "9007199254740993" in r.json()["detail"] and "2**53" in r.json()["detail"]
    axis = game.players["axis"]
    envelope = axis.envelope("roll", {"dice": "1d6", "purpose": "x"}, await axis.position())
    envelope["order"]["seq"] = 2**53
    r = await client.post(f"/v1/games/{game.id}/orders", json=envelope, headers=axis.headers)
    assert r.status_code == 422 and r.json()["errors"][0]["path"] == "/order/seq"
    assert "9007199254740991" in r.json()["errors"][0]["message"]


def test_the_version_is_written_once_and_the_changelog_opens_with_it() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    first = re.search(r"^- (\d+\.\d+\.\d+)", changelog, re.MULTILINE)
    assert first is not None and first.group(1) == __version__
    assert "Unreleased" not in changelog
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'version = {attr = "service.__version__"}' in pyproject
    assert not re.search(r'^version = "', pyproject, re.MULTILINE)


async def test_the_openapi_document_has_the_version(client: httpx.AsyncClient) -> None:
    assert (await client.get("/openapi.json")).json()["info"]["version"] == __version__


async def test_combat_dice_may_be_scripted(client: httpx.AsyncClient) -> None:
    """docs/api.md, "Creating a game": scripted games script the referee's combat dice
    under `combat` (faces 1-100); the creation takes them (it was a 422) and the export
    of the ended game shows the script."""
    script = {"combat": [4, 9, 20]}
    game = await create_game(client, "dno-demo", dice={"mode": "scripted", "script": script})
    r = await game.admin("end", {"reason": "to show the script"})
    assert r.status_code == 200, r.text
    export = (await client.get(f"/v1/games/{game.id}/export", headers=game.gm)).json()
    assert export["dice"]["script"]["combat"] == [4, 9, 20]
    r = await client.post("/v1/games", json={"name": "x", "scenario": "dno-demo", "dice": {
        "mode": "scripted", "script": {"combat": [101]}}})
    assert r.status_code == 422 and r.json()["errors"][0]["path"] == "/dice/script/combat/0"


async def test_a_replacement_key_is_a_key(client: httpx.AsyncClient) -> None:
    """The GM's key replacement takes an Ed25519 key as every key field does (base64url
    of 32 bytes), and its schema says so: anything else is refused by its shape, naming
    the field."""
    schemas = (await client.get("/openapi.json")).json()["components"]["schemas"]
    patterns = {schemas[name]["properties"]["public_key"]["pattern"]
                for name in ("KeyBody", "KeyAct", "JoinSeat")}
    assert patterns == {"^[A-Za-z0-9_-]{43}=?$"}
    game = await full_game(client)
    player = game.players["axis"].id
    r = await client.post(f"/v1/games/{game.id}/admin/players/{player}/key",
                          json={"public_key": "not a key"}, headers=game.gm)
    assert r.status_code == 422 and r.json()["errors"][0]["path"] == "/public_key"
