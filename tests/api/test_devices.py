"""A second device (issue 30): the page there makes its own key and asks for it; the
device holding the seat's current key lists its player's requests and binds the new key
with its consent: logged for every side, in force at once (no wait, no GM), the old
key's orders refused from then on, and the export still verifies (the consent is the
command's signature, checked against the key of its time)."""

from __future__ import annotations

import httpx
from support import AXIS_FIRST, full_game

from service.crypto import identity, signing
from service.verify import verify_export


def _consent(key: object, game: str, player: str, public: str) -> str:
    return signing.sign(key, identity.signing_bytes(identity.consent_object(game, player,
                                                                            public)))


async def test_the_old_device_binds_the_new_key_with_its_consent_at_once(
    client: httpx.AsyncClient,
) -> None:
    # The game waits a day for a key the GM binds without consent: this one does not wait.
    game = await full_game(client, dice=AXIS_FIRST, options={"game": {"key_wait_hours": 24}})
    axis, allies = game.players["axis"], game.players["allies"]
    new_key = signing.new_private_key()
    public = signing.public_key_text(new_key)
    r = await client.post(f"/v1/games/{game.id}/players/me/key-request",
                          json={"public_key": public}, headers=axis.headers)
    assert r.status_code == 201, r.text
    await client.post(f"/v1/games/{game.id}/players/me/key-request",
                      json={"public_key": signing.public_key_text(signing.new_private_key())},
                      headers=allies.headers)
    mine = await client.get(f"/v1/games/{game.id}/players/me/key-requests",
                            headers=axis.headers)
    assert [(x["public_key"], x["approved"]) for x in mine.json()["requests"]] == [
        (public, False)]

    old_key = axis.key
    r = await client.post(f"/v1/games/{game.id}/players/me/key", headers=axis.headers,
                          json={"public_key": public,
                                "consent": _consent(old_key, game.id, axis.id, public)})
    assert r.status_code == 200, r.text
    [event] = [e for e in r.json()["events"] if e["kind"] == "player.key_replaced"]
    assert event["actor"] == axis.id and event["data"]["consented"] is True
    assert event["text"].endswith("with the consent of the old one (another device): orders "
                                  "from now on verify with the new key.")
    mine = await client.get(f"/v1/games/{game.id}/players/me/key-requests",
                            headers=axis.headers)
    assert mine.json()["requests"][0]["approved"] is True
    # The old key signs no more; the new one at once.
    refused = await axis.order("initiative.reroll", {"demand": False})
    assert refused.status_code == 401, refused.text
    axis.key = new_key
    await axis.ok("initiative.reroll", {"demand": False})
    export = (await client.get(f"/v1/games/{game.id}/export", headers=game.gm)).json()
    report = verify_export(export)
    assert report.ok, report.text()
    [history] = [p["keys"] for p in export["players"] if p["id"] == axis.id]
    assert [k["public_key"] for k in history] == [signing.public_key_text(old_key), public]


async def test_a_consent_the_current_key_never_gave_is_refused_and_changes_nothing(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client, dice=AXIS_FIRST)
    axis = game.players["axis"]
    stranger = signing.new_private_key()
    public = signing.public_key_text(stranger)
    before = (await client.get(f"/v1/games/{game.id}", headers=game.gm)).json()["head"]
    r = await client.post(f"/v1/games/{game.id}/players/me/key", headers=axis.headers,
                          json={"public_key": public,
                                "consent": _consent(stranger, game.id, axis.id, public)})
    assert r.status_code == 401 and r.json()["code"] == "key/bad_consent"
    assert r.json()["errors"][0]["path"] == "/consent"
    after = (await client.get(f"/v1/games/{game.id}", headers=game.gm)).json()["head"]
    assert after == before
    await axis.ok("initiative.reroll", {"demand": False})
    r = await client.post(f"/v1/games/{game.id}/players/me/key", headers=game.gm,
                          json={"public_key": public,
                                "consent": _consent(stranger, game.id, axis.id, public)})
    assert r.status_code == 403
