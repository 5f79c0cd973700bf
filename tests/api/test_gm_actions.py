"""The game master's actions (issue 10, docs/game-master.md): each is an event with the
GM's reason that every side reads in the log; a pause ends by itself; state edits are
checked against the scenario format; key replacement keeps old orders verifiable; a
reassigned seat goes to a substitute by a new join code."""

from __future__ import annotations

import httpx
from gm_support import start_impulses, summary, sweep
from support import SIDES, Player, full_game, join_body, scenario, to_action

from service.crypto import identity, signing
from service.crypto.chain import verify_chain
from service.verify import verify_export


async def test_every_gm_action_is_logged_with_its_reason_for_every_side(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client)
    await start_impulses(game)
    actions = [
        ("pause", {"reason": "r-pause"}),
        ("resume", {"reason": "r-resume"}),
        ("deadlines", {"deadlines": {"declare": 3600}, "reason": "r-deadlines"}),
        ("edit", {"units": {"cw-inf-1": {"face_up": True}}, "reason": "r-edit"}),
        ("dropout", {"side": "communists", "reason": "r-dropout"}),
        ("dropout", {"side": "communists", "dropped": False, "reason": "r-back"}),
        (f"players/{game.players['allies'].id}/key",
         {"public_key": signing.public_key_text(signing.new_private_key()),
          "reason": "r-key"}),
        (f"players/{game.players['communists'].id}/reassign", {"reason": "r-seat"}),
        ("force", {"reason": "r-force"}),
        ("end", {"reason": "r-end"}),
    ]
    for action, body in actions:
        r = await game.admin(action, body)
        assert r.status_code == 200, (action, r.text)
    seen = await game.log(game.players["axis"])  # a player's view of the log
    by_gm = [e for e in seen if e["actor"] == "gm"]
    for _, body in actions:
        reason = body["reason"]
        logged = [e for e in by_gm if e["data"].get("reason") == reason
                  or reason in e["text"]]
        assert logged, (reason, [e["kind"] for e in by_gm])
    kinds = {e["kind"] for e in by_gm}
    assert {"game.paused", "game.resumed", "deadlines.set", "state.edited",
            "side.dropped_out", "side.restored", "player.key_replaced", "seat.reopened",
            "default.forced", "game.ended"} <= kinds
    assert verify_chain(game.id, seen) is None


async def test_a_pause_ends_by_itself_after_its_maximum_length(
    client: httpx.AsyncClient, app: object
) -> None:
    game = await full_game(client, options={"game": {"max_pause_hours": 2}})
    r = await game.admin("pause", {"reason": "holiday", "hours": 3})
    assert r.status_code == 422
    assert r.json()["code"] == "admin/invalid_pause"
    r = await game.admin("pause", {"reason": "holiday"})
    assert r.status_code == 200, r.text
    paused = (await summary(game))
    assert paused["status"] == "paused" and paused["awaiting"] == []
    state = await game.state(game.players["allies"])
    assert state["game"]["pause"]["until"].endswith("Z")
    await sweep(app, 3600)  # one hour in: still paused
    assert (await summary(game))["status"] == "paused"
    await sweep(app, 2 * 3600 + 5)
    resumed = await summary(game)
    assert resumed["status"] == "active" and resumed["awaiting"]
    log = await game.log(game.players["axis"])
    assert [(e["kind"], e["actor"]) for e in log[-1:]] == [("game.resumed", "clock")]
    assert "maximum length" in log[-1]["text"]


async def test_a_game_created_without_pauses_refuses_one(client: httpx.AsyncClient) -> None:
    game = await full_game(client, options={"game": {"max_pause_hours": 0}})
    r = await game.admin("pause", {"reason": "no"})
    assert r.status_code == 409
    assert r.json()["code"] == "admin/pause_not_allowed"


async def test_state_edits_are_checked_against_the_scenario_format(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client)
    r = await game.admin("edit", {
        "units": {"no-such-unit": {"at": "h10"}, "cw-inf-1": {"at": "nowhere"},
                  "cw-hq-1": {"at": "west-sea"}},
        "hexes": {"h99": {"controller": "cw"}, "h10": {"controller": "atlantis",
                                                       "port_damaged": True}},
        "powers": {"narnia": {"rps": 3}},
        "reason": "typo"})
    assert r.status_code == 422
    problem = r.json()
    assert problem["code"] == "edit/invalid"
    paths = {e["path"] for e in problem["errors"]}
    assert paths == {"/units/no-such-unit", "/units/cw-inf-1/at", "/units/cw-hq-1/at",
                     "/hexes/h99", "/hexes/h10/controller", "/hexes/h10/port_damaged",
                     "/powers/narnia"}
    # A figure out of its range is refused by the body's own type (docs/api.md).
    r = await game.admin("edit", {"powers": {"cw": {"bp_on_rps": -1}}, "reason": "typo"})
    assert r.status_code == 422 and r.json()["code"] == "request/malformed_body"
    assert [e["path"] for e in r.json()["errors"]] == ["/powers/cw/bp_on_rps"]
    r = await game.admin("edit", {"units": {"cw-inf-1": {"at": "h20"}}, "reason": "x"})
    assert r.status_code == 409 and r.json()["code"] == "edit/enemy_stack"
    assert r.json()["errors"][0]["path"] == "/units/cw-inf-1/at"
    r = await game.admin("edit", {"reason": "nothing"})
    assert r.status_code == 422 and r.json()["code"] == "edit/empty"

    r = await game.admin("edit", {
        "units": {"cw-inf-1": {"at": "h00", "face_up": True}},
        "hexes": {"h10": {"controller": "germany"}, "h00": {"port_damaged": True}},
        "powers": {"cw": {"bp_spent_last_turn": 25, "bp_on_rps": 4}},
        "reason": "the tabletop position"})
    assert r.status_code == 200, r.text
    state = await game.state(game.players["communists"])
    assert (state["units"]["cw-inf-1"]["at"], state["units"]["cw-inf-1"]["face_up"]) \
        == ("h00", True)
    assert state["map_edits"] == {"h10": {"controller": "germany", "port_damaged": False},
                                  "h00": {"controller": "cw", "port_damaged": True}}
    assert (state["powers"]["cw"]["bp_spent_last_turn"], state["powers"]["cw"]["bp_on_rps"]) \
        == (25, 4)
    edited = [e for e in await game.log(game.players["axis"]) if e["kind"] == "state.edited"]
    assert edited[0]["data"]["reason"] == "the tabletop position"


async def test_a_replaced_key_signs_later_orders_and_old_orders_still_verify(
    client: httpx.AsyncClient,
) -> None:
    """With the player's consent, signed by its old key, the new key orders at once;
    without it (a lost key), the old key orders no more and the new one only after the
    game's waiting period, which every side sees in the log (docs/game-master.md)."""
    game = await full_game(client, dice={"mode": "scripted",
                                         "script": {"initiative": [1, 10, 1]}})
    allies = await to_action(game)
    assert allies.side == "allies"
    await allies.ok("roll", {"dice": "1d10", "purpose": "with the first key"})
    old_key = allies.key
    new_key = signing.new_private_key()
    new_public = signing.public_key_text(new_key)
    consent = signing.sign(old_key, identity.signing_bytes(identity.consent_object(
        game.id, allies.id, new_public)))
    r = await game.admin(f"players/{allies.id}/key", {
        "public_key": new_public, "reason": "new laptop", "new_token": True,
        "consent": consent})
    assert r.status_code == 200, r.text
    new_token = r.json()["token"]
    where = (await summary(game))["position"]
    assert (await allies.order("roll", {"dice": "1d10", "purpose": "old token"}, where)
            ).status_code == 401
    allies.token = new_token
    r = await allies.order("roll", {"dice": "1d10", "purpose": "old key"})
    assert r.status_code == 401 and r.json()["code"] == "order/bad_signature"
    allies.key = new_key
    await allies.ok("roll", {"dice": "1d10", "purpose": "with the new key"})
    r = await game.admin(f"players/{allies.id}/key", {"public_key": "not a key"})
    assert r.status_code == 422 and r.json()["errors"][0]["path"] == "/public_key"
    r = await game.admin(f"players/{allies.id}/key", {
        "public_key": signing.public_key_text(signing.new_private_key()), "consent": consent})
    assert r.status_code == 401 and r.json()["code"] == "admin/bad_consent"

    lost = signing.new_private_key()
    r = await game.admin(f"players/{allies.id}/key", {
        "public_key": signing.public_key_text(lost), "reason": "lost laptop"})
    assert r.status_code == 200, r.text
    replaced = [e for e in await game.log(game.players["axis"])
                if e["kind"] == "player.key_replaced"][-1]
    assert replaced["data"]["consented"] is False and replaced["data"]["effective_at"]
    r = await allies.order("roll", {"dice": "1d10", "purpose": "the revoked key"})
    assert r.status_code == 401
    allies.key = lost
    r = await allies.order("roll", {"dice": "1d10", "purpose": "too early"})
    assert r.status_code == 409 and r.json()["code"] == "order/key_not_yet_effective"
    assert old_key is not new_key
    export = (await client.get(f"/v1/games/{game.id}/export", headers=game.gm)).json()
    report = verify_export(export)
    assert report.ok, report.text()
    mine = next(p for p in export["players"] if p["id"] == allies.id)
    assert [k["public_key"] for k in mine["keys"]] == [
        signing.public_key_text(k) for k in (old_key, new_key, lost)]
    assert mine["keys"][1]["consent"] == consent and mine["keys"][2]["consent"] is None
    swapped = {**export, "players": [
        {**p, "keys": [dict(k, public_key=mine["keys"][1]["public_key"]) for k in p["keys"]]}
        if p["id"] == allies.id else p for p in export["players"]]}
    assert not verify_export(swapped).ok  # the first order needs the first key


async def test_a_reassigned_seat_goes_to_a_substitute_with_a_new_join_code(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client)
    axis = game.players["axis"]
    r = await game.admin(f"players/{axis.id}/reassign", {"reason": "moved away"})
    assert r.status_code == 200, r.text
    code = r.json()["join_code"]
    assert r.json()["powers"] == ["germany", "italy"]
    r = await client.get(f"/v1/games/{game.id}", headers=axis.headers)
    assert r.status_code == 401 and r.json()["code"] == "auth/seat_replaced"
    state = await game.state()
    assert state["sides"]["axis"]["players"][0]["vacant"] is True
    substitute = Player(client, game.id, "axis")
    r = await client.post(f"/v1/games/{game.id}/seats/axis", json=join_body(
        game.id, "axis", game.join_codes["allies"], substitute.key, "Eve", None))
    assert r.status_code == 401  # another side's code
    r = await client.post(f"/v1/games/{game.id}/seats/axis", json=join_body(
        game.id, "axis", code, substitute.key, "Eve", None))
    assert r.status_code == 201, r.text
    assert r.json()["powers"] == ["germany", "italy"]
    substitute.id, substitute.token = r.json()["player_id"], r.json()["token"]
    game.players["axis"] = substitute
    await substitute.ok("initiative.reroll", {"demand": False})
    r = await client.post(f"/v1/games/{game.id}/seats/axis", json=join_body(
        game.id, "axis", code, signing.new_private_key(), "Mallory", None))
    assert r.status_code == 401  # the code was used
    state = await game.state(substitute)
    assert state["powers"]["germany"]["holder"] == substitute.id
    assert [p["name"] for p in state["sides"]["axis"]["players"]] == ["Eve"]
    kinds = [e["kind"] for e in await game.log(game.players["allies"])]
    assert "seat.reopened" in kinds and "seat.substituted" in kinds
    assert all(s in state["sides"] for s in SIDES)


async def test_the_gm_edits_a_power_s_fuel_stock_where_the_scenario_has_fuel(
    client: httpx.AsyncClient,
) -> None:
    """RULES-NOTES 30: a scenario's fuel is a stock in the state, which the GM corrects
    like any figure (0 to the format's 100,000); a scenario without fuel has no stock to
    edit, and says so."""
    fuelled = {**scenario("mini"), "fuel": {"reorganize": {"ARM": 2},
                                            "powers": {"cw": {"stock": 5, "per_turn": 3}}}}
    game = await full_game(client, fuelled)
    r = await game.admin("edit", {"powers": {"cw": {"fuel": 40_000}, "germany": {"fuel": 7}},
                                  "reason": "the tabletop's oil track"})
    assert r.status_code == 200, r.text
    state = await game.state(game.players["allies"])
    assert (state["powers"]["cw"]["fuel"], state["powers"]["germany"]["fuel"]) == (40_000, 7)
    edited = [e for e in await game.log(game.players["axis"]) if e["kind"] == "state.edited"]
    assert "cw fuel=40000" in edited[-1]["text"] and "germany fuel=7" in edited[-1]["text"]
    r = await game.admin("edit", {"powers": {"cw": {"fuel": 100_001}}, "reason": "typo"})
    assert r.status_code == 422 and [e["path"] for e in r.json()["errors"]] == [
        "/powers/cw/fuel"]

    plain = await full_game(client)
    r = await plain.admin("edit", {"powers": {"cw": {"fuel": 3}}, "reason": "no fuel"})
    assert r.status_code == 422 and r.json()["code"] == "edit/invalid"
    assert r.json()["errors"] == [{"path": "/powers/cw/fuel", "message": (
        "this scenario gives no fuel (RULES-NOTES 30): there is no stock to edit")}]
    assert (await plain.state())["powers"]["cw"]["fuel"] is None
