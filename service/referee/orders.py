"""Signed orders (docs/api.md), on one straight path: find the signer by token, check
the envelope and the signature over the order's canonical bytes (computed once, before
the game is locked), lock the game, answer a seq already used, check that `prev` names
an event of the game's chain, decide and append. Every order the server takes or
refuses gets a signed receipt (`referee.receipts`).

The GM's acts arrive the same way when the game has a GM key: signed orders of player
"gm" whose kinds are the GM's (`admin.pause`, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from service.answers import Accepted, ActOutcome, Preview
from service.crypto import identity
from service.crypto.tokens import hash_token
from service.referee import gm, members, one_call, receipts
from service.referee.awaited import awaited
from service.referee.envelopes import SEALED_ORDERS, Checked, Envelope, check, in_request
from service.referee.errors import Denied, RefereeError, Unauthorized
from service.referee.ledger import apply
from service.rules import GM_ACTS, Actor, RulesError, decide, position
from service.rules.errors import Malformed, Refused
from service.store.games import Game, Signer, StoredOrder
from service.store.threads import in_thread
from service.store.uow import Transactions, UnitOfWork

# Secrets an answer carries that a stored, replayable result must not keep.
_SECRETS = ("join_code", "token")


@dataclass
class OrderResult:
    body: Accepted
    replayed: bool


class _NoDice:
    """Dice for a dry run: any roll stops the preview. Showing a die before the order is
    committed would let a player preview (and grind) the real roll."""

    def commit(self, chain: int, from_turn: int) -> tuple[str, int]:
        raise _WouldRoll

    def reveal(self, turn: int) -> str:
        raise _WouldRoll

    def roll(self, **_: object) -> Any:
        raise _WouldRoll


class _WouldRoll(Exception):
    pass


async def dry_run(uow: UnitOfWork, game_id: str, token: str, envelope: Envelope
                  ) -> Preview:
    """Validate a player's order and say what it would do, changing nothing."""
    player = await members.player_for_order(uow, game_id, token)
    actor = Actor(id=player.id, role="player", side=player.side, powers=tuple(player.powers))
    checked = check(game_id, player.id, player.public_key, actor, envelope, player.settings)
    game = await uow.games.lock(game_id)
    if checked.command.kind in SEALED_ORDERS:
        # What a sealed answer would cause (who answered, whether a reroll follows)
        # tells other sides' sealed answers: a dry run only says it would be taken.
        try:
            await in_thread(decide, game.state, checked.command, _NoDice())
        except RulesError as refusal:
            raise in_request(refusal, player.id) from None
        except _WouldRoll:
            pass
        return {"valid": True, "dry_run": True, "sealed": True, "rolls_dice": False,
                "events": [], "note": "a sealed answer's effects are shown only once the "
                                      "window closes"}
    try:
        decision = await in_thread(decide, game.state, checked.command, _NoDice())
    except RulesError as refusal:
        raise in_request(refusal, player.id) from None
    except _WouldRoll:
        return {"valid": True, "dry_run": True, "rolls_dice": True, "events": [],
                "note": "the order is valid; what follows depends on dice, which are "
                        "rolled only when the order is submitted"}
    if any(e.kind in ("initiative.reroll_answered", "standing.armed") and
           e.data.get("step", "initiative.reroll") == "initiative.reroll"
           for e in decision.events):
        return {"valid": True, "dry_run": True, "sealed": True, "rolls_dice": False,
                "events": [], "note": "a sealed answer's effects are shown only once the "
                                      "window closes"}
    return {"valid": True, "dry_run": True, "rolls_dice": False,
            "events": [e.record(game.head_seq + i + 1)
                       for i, e in enumerate(decision.events)],
            "position": position(decision.state), "awaiting": awaited(decision.state)}


async def submit(transactions: Transactions, game_id: str, token: str, envelope: Envelope
                 ) -> OrderResult:
    """Take a signed order: a player's, or the GM's act when the game has a GM key. A
    player's order is taken in one call, before any unit of work is opened, when this
    process has what it needs at hand (`one_call`); otherwise the long way: in a unit of
    work, under the game's lock, read first."""
    if transactions.order_call is not None and envelope.order.player != identity.GM:
        taken = await one_call.take(transactions.order_call, transactions.publish, game_id,
                                    token, envelope)
        if taken is not None:
            return OrderResult(taken, replayed=False)
    async with transactions() as uow:
        return await submit_long(uow, game_id, token, envelope)


async def submit_long(uow: UnitOfWork, game_id: str, token: str, envelope: Envelope
                      ) -> OrderResult:
    """An order the long way, in `uow` (a worker process takes a big game's this way,
    service/referee/offload.py)."""
    if envelope.order.player == identity.GM:
        return await _submit_gm(uow, game_id, token, envelope)
    return await _submit(uow, game_id, token, envelope)


async def _submit(uow: UnitOfWork, game_id: str, token: str, envelope: Envelope
                  ) -> OrderResult:
    """A player's order the long way."""
    player = await members.player_for_order(uow, game_id, token)
    actor = Actor(id=player.id, role="player", side=player.side, powers=tuple(player.powers))
    checked = check(game_id, player.id, player.public_key, actor, envelope, player.settings)
    order = checked.order
    try:
        game, stored, signer = await uow.games.lock_for_order(
            game_id, player.id, order.seq, order.prev)
        if signer.public_key != player.public_key or not signer.active:
            # The GM replaced the key or reassigned the seat while this order waited.
            raise Unauthorized("order/key_changed", "the player's key or seat changed while "
                               "the order waited for the game: sign it again")
        _key_in_force(signer, checked.command.at)
        result = await _take(uow, game, stored, signer.prev_known, checked, envelope)
        one_call.remember(game)
        one_call.remember_signer(hash_token(token), player)
        return result
    except (RulesError, RefereeError) as refusal:
        await _refusal_receipt(uow, refusal, game_id, checked)
        raise


async def _submit_gm(uow: UnitOfWork, game_id: str, token: str, envelope: Envelope
                     ) -> OrderResult:
    (await members.member(uow, game_id, token)).require_gm()
    game, stored, signer = await uow.games.lock_for_order(
        game_id, identity.GM, envelope.order.seq, envelope.order.prev)
    key = game.row.gm_public_key
    if not key:
        raise Denied("order/gm_unsigned", "this game's GM has no key: its acts go to /admin")
    checked = check(game_id, identity.GM, key, Actor(id="gm", role="gm"), envelope)
    try:
        if checked.order.kind not in GM_ACTS:
            raise Malformed("order/unknown_kind", f"a GM signs acts, not {checked.order.kind!r}",
                            errors=[("/order/kind", f"expected one of {GM_ACTS}")])
        return await _take(uow, game, stored, signer.prev_known, checked, envelope)
    except (RulesError, RefereeError) as refusal:
        await _refusal_receipt(uow, refusal, game_id, checked)
        raise


def _key_in_force(signer: Signer, at: str) -> None:
    """A key the GM bound without the player's consent orders only after the game's
    waiting period (docs/game-master.md)."""
    newest = signer.keys[-1] if signer.keys else {}
    effective = newest.get("effective_at") if isinstance(newest, Mapping) else None
    if isinstance(effective, str) and datetime.fromisoformat(effective) > \
            datetime.fromisoformat(at):
        raise Refused("order/key_not_yet_effective", f"this key was bound without the "
                      f"player's consent and may order from {effective}",
                      rule="docs/game-master.md", extra={"effective_at": effective})


async def _take(uow: UnitOfWork, game: Game, stored: StoredOrder | None, prev_known: bool,
                checked: Checked, envelope: Envelope) -> OrderResult:
    order = checked.order
    if stored is not None:
        if stored.order_hash == checked.order_hash:
            return OrderResult(cast(Accepted, stored.result), replayed=True)
        raise Refused("order/seq_reused", f"seq {order.seq} was already used for another "
                      "order", errors=[("/order/seq", "reused")])
    if not prev_known and order.prev != game.head_hash:
        raise Refused("order/unknown_prev", "`prev` names no event of this game's chain: "
                      "read the state again and sign the order over its head",
                      errors=[("/order/prev", "unknown chain head")],
                      extra={"head": {"seq": game.head_seq, "hash": game.head_hash}})
    outcome: ActOutcome
    try:
        if order.player == identity.GM:
            outcome = await gm.perform(uow, game, gm.Act(
                order.kind, order.body, checked.command.trigger, envelope.stored(),
                checked.command.position))
        else:
            outcome = (await apply(uow, game, checked.command, envelope.stored())).outcome()
    except RulesError as refusal:
        raise in_request(refusal, order.player) from None
    receipt = await receipts.receipt(
        uow, game=game.id, player=order.player, seq=order.seq, order_hash=checked.order_hash,
        result="accepted", head={"seq": game.head_seq, "hash": game.head_hash},
        version=game.version)
    result = cast(Accepted, {"accepted": True, "seq": order.seq, **outcome, "receipt": receipt})
    kept = {k: v for k, v in result.items() if k not in _SECRETS}
    await uow.orders.add(
        game_id=game.id, player_id=order.player, seq=order.seq, order_hash=checked.order_hash,
        envelope=envelope.stored(), result=kept,
        first_event=outcome["events"][0]["seq"] if outcome["events"] else None)
    return OrderResult(result, replayed=False)


async def _refusal_receipt(uow: UnitOfWork, refusal: RulesError | RefereeError,
                           game_id: str, checked: Checked) -> None:
    """A signed receipt for a refused order, carried in the problem it answers with."""
    code = refusal.code
    receipt = await receipts.receipt(
        uow, game=game_id, player=checked.order.player, seq=checked.order.seq,
        order_hash=checked.order_hash, result="refused", head=None, version=None, code=code)
    refusal.extra["receipt"] = receipt
