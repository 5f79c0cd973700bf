"""A record an operator cannot forge (issue 28, docs/security.md "Forgeries closed"):
each forgery below is made from an honest export the way a hostile operator would make
it (it holds every seed: it edits the commands, decides them again with the rules and
re-chains the log, tests/forge.py), and each fails `verify` (never `verified`, nor
"partially verified") and is refused by `POST /v1/games/import`; the honest export
still verifies and imports. One test per class of the issue."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from conftest import fresh_database, local_settings
from forge import copy_of, ground_trigger, random_signature, rebuild, rechain, signed_order
from support import SIDES, Game, answer_done_steps, create_game, join, to_action

from service.crypto import signing
from service.verify import FAILED, verify_export

OPERATOR_KEY = "operator-key-of-the-forgery-target"


@pytest.fixture(scope="module")
async def target(database_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """An empty server whose operator imports (it has an OPERATOR_KEY)."""
    from service.app import create_app

    async with fresh_database(database_url, "forgery_target") as url:
        app = create_app(local_settings(url, sweep_interval=0, rate_limit=0,
                                        operator_key=OPERATOR_KEY), database_url=url)
        async with app.router.lifespan_context(app):
            async with httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=app), base_url="http://target",
                    headers={"Authorization": f"Bearer {OPERATOR_KEY}"}) as c:
                yield c


@pytest.fixture(scope="module")
async def honest(app: object) -> dict[str, Any]:
    """A game with a GM key and fair dice: the initiative answered, the Axis rolling
    twice in its action step, the sides answering, the GM pausing and resuming (signed)
    and ending the game, so every seed is revealed. Its export as the GM verifies."""
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),  # type: ignore[arg-type]
                                 base_url="http://test") as client:
        game = await create_game(client, gm_key=signing.new_private_key())
        for side in SIDES:
            await join(game, side)
        axis = await to_action(game)
        for purpose in ("first", "second"):
            await axis.ok("roll", {"dice": "2d10", "purpose": purpose})
        await axis.ok("done")
        await answer_done_steps(game)
        for act in ("pause", "resume", "end"):
            r = await game.admin(act, {"reason": "forgery base"})
            assert r.status_code == 201, r.text
        export = await _export(game)
    report = verify_export(export)
    assert report.ok, report.text()
    return export


async def _export(game: Game) -> dict[str, Any]:
    r = await game.client.get(f"/v1/games/{game.id}/export", headers=game.gm)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _command(export: dict[str, Any], kind: str, nth: int = 0) -> dict[str, Any]:
    return [c for c in export["commands"] if c["kind"] == kind][nth]


def _orders_from_commands(export: dict[str, Any]) -> dict[str, Any]:
    """The forger keeps the export's order list in step with the commands it edited."""
    export["orders"] = [{**c["signed"], "first_event": c["first_event"]}
                        for c in export["commands"]
                        if c.get("signed") and "order" in c["signed"]]
    return export


def _seal(c: dict[str, Any], signature: str | None = None) -> None:
    """The flag the old verifier trusted: the envelope marked sealed (and, when given,
    its signature replaced)."""
    c["signed"]["sealed"] = True
    if signature is None:
        c["signed"].pop("signature", None)
    else:
        c["signed"]["signature"] = signature


def _fails(forged: dict[str, Any]) -> list[str]:
    """The forgery fails, and so does its twin that says it is partial."""
    failed = []
    for complete in (True, False):
        report = verify_export({**forged, "complete": complete})
        assert report.status == FAILED, report.text()
        failed += [c.name for c in report.checks if not c.ok]
    return failed


# --------------------------------------------------------------------------- forgeries


def forgeries_1(honest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """1: an envelope marked sealed: its signature random bytes; the order rewritten;
    an order nobody signed added; an unsigned GM act in a game with a GM key. The last
    three with the log rebuilt by the rules."""
    out = {}
    random = copy_of(honest)
    _seal(_command(random, "roll"), random_signature())
    out["random signature under the flag"] = _orders_from_commands(random)

    rewritten = copy_of(honest)
    roll = _command(rewritten, "roll")
    roll["body"]["dice"] = roll["signed"]["order"]["body"]["dice"] = "9d10"
    _seal(roll)
    out["order rewritten"] = _orders_from_commands(rebuild(rewritten))

    added = copy_of(honest)
    roll = copy_of(_command(added, "roll", 1))
    roll["signed"]["order"]["seq"] += 100
    roll["body"]["purpose"] = roll["signed"]["order"]["body"]["purpose"] = "nobody signed it"
    roll["first_event"] = _command(added, "roll", 1)["first_event"] + 0.5  # next to it
    roll["trigger"] = "ab" * 32
    _seal(roll, random_signature())
    added["commands"].append(roll)
    out["order nobody signed"] = _orders_from_commands(rebuild(added))

    gm_act = copy_of(honest)
    pause = _command(gm_act, "admin.pause")
    pause["body"]["reason"] = pause["signed"]["order"]["body"]["reason"] = "the GM never"
    _seal(pause)
    out["unsigned GM act"] = _orders_from_commands(rebuild(gm_act))
    return out


def forgeries_2(honest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """2: the flag on every signed order, and a die of turn 1 changed (the first roll's
    trigger ground until its dice are all tens), the whole history rebuilt."""
    forged = copy_of(honest)
    roll = _command(forged, "roll")
    rolled = next(e["data"] for e in forged["events"] if e["kind"] == "dice.rolled"
                  and e["data"]["purpose"] == "roll")
    roll["trigger"] = ground_trigger(forged, rolled)
    for c in forged["commands"]:
        if c.get("signed") and "order" in c["signed"]:
            _seal(c)
    return {"every order sealed, a die changed": _orders_from_commands(rebuild(forged))}


def forgeries_3(honest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """3: a roll's trigger ground until its dice are all tens, the log rebuilt; the
    signature left as it was."""
    forged = copy_of(honest)
    roll = _command(forged, "roll", 1)
    rolled = [e["data"] for e in forged["events"] if e["kind"] == "dice.rolled"
              and e["data"]["purpose"] == "roll"][1]
    roll["trigger"] = ground_trigger(forged, rolled)
    return {"ground trigger": rebuild(forged)}


def forgeries_4(honest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """4: the operator's key slipped into the Allies' key history (no key replacement
    event, no consent), and the Allies' first order signed with it."""
    forged = copy_of(honest)
    allies = next(p for p in forged["players"] if p["side"] == "allies")
    order = next(c for c in forged["commands"] if c.get("signed")
                 and c["signed"].get("order", {}).get("player") == allies["id"])
    operator = signing.new_private_key()
    public = signing.public_key_text(operator)
    allies["keys"].append({"public_key": public, "from_seq": order["first_event"] - 1})
    allies["public_key"] = public
    order["signed"] = signed_order(operator, order["signed"]["order"])
    from service.crypto.dice import trigger_of

    order["trigger"] = trigger_of(order["signed"]["signature"])
    return {"operator key in the history": _orders_from_commands(rebuild(forged))}


def forgeries_5(honest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """5: `complete: false`, and the last die edited."""
    forged = copy_of(honest)
    last = [e for e in forged["events"] if e["kind"] == "dice.rolled"][-1]
    # every value changed (the next face, wrapping): an edit whatever the dice showed
    # (setting them all to the top face forged nothing when they already showed it)
    last["data"]["values"] = [v % last["data"]["faces"] + 1 for v in last["data"]["values"]]
    forged["complete"] = False
    return {"replay switched off": rechain(forged)}


FORGERIES = (forgeries_1, forgeries_2, forgeries_3, forgeries_4, forgeries_5)


# --------------------------------------------------------------------------- the tests


def test_the_honest_export_verifies_and_rebuilds_to_itself(honest: dict[str, Any]) -> None:
    """The forger's tool is faithful: rebuilding the honest export changes nothing, so
    what fails below fails for the forgery alone."""
    assert rebuild(copy_of(honest)) == honest
    assert verify_export(honest).ok


def test_1_an_envelope_marked_sealed_is_checked_all_the_same(honest: dict[str, Any]) -> None:
    """A complete export holds every signature: an envelope marked sealed in it fails;
    the same forgery calling itself partial fails too (a roll or a GM act is never
    sealed, and nothing is sealed before the newest closed reroll window)."""
    for name, forged in forgeries_1(honest).items():
        failed = _fails(forged)
        assert "sealed" in failed, name


def test_2_every_order_sealed_and_a_die_changed_fails(honest: dict[str, Any]) -> None:
    for forged in forgeries_2(honest).values():
        failed = _fails(forged)
        assert {"sealed", "roll triggers", "replay"} <= set(failed), failed


def test_3_a_ground_trigger_fails_against_the_signature(honest: dict[str, Any]) -> None:
    """Every roll's trigger is checked against the signature of the command that rolled
    it, and the replay rolls with the signature's hash, not the claimed trigger."""
    for forged in forgeries_3(honest).values():
        failed = _fails(forged)
        assert {"signatures", "roll triggers", "replay"} <= set(failed), failed


def test_4_a_key_slipped_into_the_history_fails(honest: dict[str, Any]) -> None:
    """Keys are proven from the log (the signed join, then each `player.key_replaced`
    and its consent or signed GM act), not taken from the export's list."""
    for forged in forgeries_4(honest).values():
        report = verify_export(forged)
        assert report.status == FAILED
        signatures = next(c for c in report.checks if c.name == "signatures")
        assert not signatures.ok
        assert "the keys listed are not the ones the log binds" in signatures.detail
        assert "does not verify with the key the log proves" in signatures.detail


def test_5_complete_false_does_not_switch_the_replay_off(honest: dict[str, Any]) -> None:
    for forged in forgeries_5(honest).values():
        report = verify_export(forged)
        assert report.status == FAILED, report.text()
        assert "replay" in [c.name for c in report.checks if not c.ok]


async def test_6_import_takes_only_a_verified_export_and_only_from_the_operator(
    honest: dict[str, Any], target: httpx.AsyncClient, client: httpx.AsyncClient,
) -> None:
    """Every forgery above is refused by import (nothing is created); a server without
    OPERATOR_KEY refuses even the honest export, naming the setting; the operator's
    import of the honest export makes a live game."""
    for make in FORGERIES:
        for name, forged in make(honest).items():
            r = await target.post("/v1/games/import", json=forged)
            assert r.status_code == 422, (name, r.text)
            assert r.json()["code"] in ("import/verification_failed", "import/invalid_export")
    r = await target.get(f"/v1/games/{honest['game']['id']}",
                         headers={"Authorization": "Bearer nobody"})
    assert r.status_code == 404

    r = await client.post("/v1/games/import", json=honest)  # the suite's server: no key
    assert r.status_code == 403 and r.json()["code"] == "auth/no_operator_key"
    assert "OPERATOR_KEY" in r.json()["detail"]
    r = await target.post("/v1/games/import", json=honest, headers={"Authorization": ""})
    assert r.status_code == 401

    r = await target.post("/v1/games/import", json=honest)
    assert r.status_code == 201, r.text
    assert r.json()["id"] == honest["game"]["id"]
