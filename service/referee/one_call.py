"""A player's order in one call to the database (issue 21).

Each process remembers, for the games it serves, the head it last saw committed with
the state at that head (`Hot`), and for the tokens it took orders from, the seat and
key behind them (`Signer`). With both at hand the referee checks the signature, decides
the order on that state, chains the events, signs the receipt and hands everything to
`wif_take_order` (service/store/order_call.py), which writes it under the game's lock
if, and only if, the game is still at that head, the seat still has that key and
token, the seq is new and `prev` an event of the chain.

Anything else takes the long way (`orders.submit` under the lock, reading the game
first): a game or a token this process has not seen, a refusal (whose problem and
receipt the long way gives, on the state as the lock reads it), a GM, new dice chains,
and every answer of the call but `taken`. The long way then remembers what it read, so
the next order is one call again. Both ways decide with the same rules on the same
committed state: `verify` cannot tell them apart.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, cast

from service.answers import Accepted, Head, Outcome
from service.clock import utc_now
from service.crypto.tokens import hash_token
from service.referee import receipts
from service.referee.awaited import awaited
from service.referee.dice import ServerDice, cached_roots
from service.referee.envelopes import Checked, Envelope, check
from service.referee.errors import RefereeError
from service.referee.ledger import (
    chained,
    moment,
    record_of,
    used_salts,
    with_standing_salts,
)
from service.referee.notifications import candidates
from service.rules import (
    Actor,
    Event,
    RulesError,
    State,
    clock_started,
    decide,
    evolve,
    next_due,
    position,
)
from service.rules.events import EventRecord
from service.store.games import Game, remember_state, snapshot_due
from service.store.memory import BUDGET
from service.store.order_call import OrderCall, Write
from service.store.threads import measured, state_class
from service.store.uow import Publish

_SIZE = 1024


@dataclass(frozen=True, slots=True)
class Hot:
    """A game as this process last saw it committed."""

    version: int
    head_seq: int
    head_hash: str
    snapshot_seq: int
    state: State
    dice: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Signer:
    """The seat behind a token, as this process last read it."""

    game: str
    player: str
    side: str
    powers: tuple[str, ...]
    public_key: str
    keys_settled: bool  # no key of the seat waits for its effective time
    settings: dict[str, Any]


_HOT: OrderedDict[str, Hot] = OrderedDict()
# Orders this process took in one call, and calls that sent an order the long way, by
# the call's answer; catch-ups before deciding ("caught_up", or "behind": too far, the
# long way). For tests and benchmarks.
TAKEN: dict[str, int] = {}
_SIGNERS: OrderedDict[str, Signer] = OrderedDict()
# Games at hand that another process (or the long way) was heard to move past the head
# at hand: the newest seq hinted (service/store/notify.py).
_NEWER: OrderedDict[str, int] = OrderedDict()


def _keep(cache: OrderedDict[str, Any], key: str, value: object) -> None:
    cache[key] = value
    cache.move_to_end(key)
    if len(cache) > _SIZE:
        cache.popitem(last=False)


def remember(game: Game) -> None:
    """What the long way read (or wrote) of a game, committed: its head and state."""
    _keep(_HOT, game.id, Hot(game.version, game.head_seq, game.head_hash, game.snapshot_seq,
                             game.state, dict(game.row.dice)))


def remember_signer(digest: str, player: Any) -> None:
    """The seat behind a token, as the long way read it (a players row)."""
    keys = tuple(player.keys or ())
    newest = keys[-1] if keys else {}
    settled = not (isinstance(newest, dict) and newest.get("effective_at"))
    _keep(_SIGNERS, digest, Signer(player.game_id, player.id, player.side,
                                   tuple(player.powers), player.public_key, settled,
                                   dict(player.settings or {})))


def _count(what: str) -> None:
    TAKEN[what] = TAKEN.get(what, 0) + 1


def forget(game_id: str) -> None:
    _HOT.pop(game_id, None)
    _NEWER.pop(game_id, None)


BUDGET.register("hot", forget)  # its state is the state cache's: no bytes of its own


def heard(game_id: str, seq: int) -> None:
    """A hint that the game's log reached `seq` (service/store/notify.py): if that is
    past the head at hand, the next order here catches up before it decides."""
    hot = _HOT.get(game_id)
    if hot is not None and seq > hot.head_seq and seq > _NEWER.get(game_id, 0):
        _keep(_NEWER, game_id, seq)


@dataclass(frozen=True, slots=True)
class _Decided:
    """An order decided on a `Hot` head: what the call writes, what the player gets,
    and the head and state it leads to."""

    write: Write
    result: Accepted
    after: Hot


async def take(call: OrderCall, publish: Publish | None, game_id: str, token: str,
               envelope: Envelope) -> Accepted | None:
    """The order taken in one call (two, when another process moved the game on and the
    call brought the events since), or None: take it the long way. No unit of work is
    opened; `publish` hints the new head once the call has committed."""
    digest = hash_token(token)
    signer, hot, key = _SIGNERS.get(digest), _HOT.get(game_id), receipts.cached_key()
    order = envelope.order
    if signer is None or hot is None or key is None or signer.game != game_id \
            or not signer.keys_settled or order.player != signer.player:
        return None
    actor = Actor(id=signer.player, role="player", side=signer.side, powers=signer.powers)
    try:
        checked = check(game_id, signer.player, signer.public_key, actor, envelope,
                        signer.settings)
    except (RulesError, RefereeError):  # the long way says why, with a receipt
        return None
    if _NEWER.pop(game_id, 0) > hot.head_seq:  # moved on elsewhere: catch up first
        since = await call.since(game_id, hot.head_seq, hot.head_hash)
        _count("caught_up" if since else "behind")
        if since is None:
            forget(game_id)
            return None
        hot = _caught_up(hot, since.events, since.version)
        _keep(_HOT, game_id, hot)
    for attempt in (1, 2):
        decided = await measured(("order", order.kind, state_class(hot.state)), _decide,
                                 key, game_id, hot, signer, digest, checked, envelope)
        if decided is None:
            return None
        answer = await call.take(decided.write)
        _count(answer.status)
        if answer.status == "taken":
            _keep(_HOT, game_id, decided.after)
            new = decided.after
            remember_state(game_id, new.head_seq, new.head_hash, new.snapshot_seq, new.state)
            if publish is not None:
                publish(game_id, new.head_seq)
            return decided.result
        if answer.status == "moved" and answer.events and answer.version and attempt == 1:
            hot = _caught_up(hot, answer.events, answer.version)
            _keep(_HOT, game_id, hot)
            continue
        if answer.status in ("moved", "seat_changed"):
            forget(game_id)
            _SIGNERS.pop(digest, None)
        return None
    return None


def _caught_up(hot: Hot, events: list[EventRecord], version: int) -> Hot:
    """`hot` with the events another process appended since (the call's answer)."""
    state, snapshot_seq = hot.state, hot.snapshot_seq
    for record in events:
        state = evolve(state, Event.from_record(record))
        if snapshot_due(record["kind"], record["seq"], snapshot_seq):
            snapshot_seq = record["seq"]
    last = events[-1]
    return Hot(version, last["seq"], last.get("hash", ""), snapshot_seq, state, hot.dice)


# long: the long way's decide, chaining and receipt, in the same order, on a cached head.
def _decide(key: receipts.SigningKey, game_id: str, hot: Hot, signer: Signer, digest: str,
            checked: Checked, envelope: Envelope) -> _Decided | None:
    order = envelope.order
    roots = cached_roots(game_id, hot.state.dice.chains, hot.dice)
    if roots is None:
        return None
    dice = ServerDice(game_id=game_id, mode=hot.dice["mode"], config=hot.dice, roots=roots,
                      chains=hot.state.dice.chains)
    salted = with_standing_salts(checked.command, hot.state)
    try:
        decision = decide(hot.state, salted, dice)
    except (RulesError, LookupError):
        return None
    if dice.new_roots or not decision.events:
        return None
    now = utc_now()
    done = chained(decision, hot.head_seq, hot.head_hash, hot.snapshot_seq)
    records, snapshots = done.records, done.snapshots
    seq, digest_head, snapshot_seq = done.seq, done.digest, done.snapshot_seq
    after = decision.state
    version = hot.version + 1
    head: Head = {"seq": seq, "hash": digest_head}
    outcome: Outcome = {"version": version, "events": records, "head": head,
                        "position": position(after), "awaiting": awaited(after)}
    receipt = receipts.signed(
        key, game=game_id, player=order.player, seq=order.seq, order_hash=checked.order_hash,
        result="accepted", head=head, version=version)
    result = cast(Accepted, {"accepted": True, "seq": order.seq, **outcome,
                             "receipt": receipt})
    found = candidates(game_id, hot.state, after, records, now)
    write = Write(
        game=game_id, head_seq=hot.head_seq, head_hash=hot.head_hash, version=hot.version,
        player=order.player, token_hash=digest, public_key=signer.public_key,
        settings=signer.settings, seq=order.seq,
        order_hash=checked.order_hash, prev=order.prev, events=records, snapshots=snapshots,
        command=record_of(replace(salted, extra=used_salts(salted.extra, decision)),
                          records[0]["seq"], envelope.stored()),
        envelope=envelope.stored(), result=result, status=after.status,
        next_deadline=moment(next_due(after)), step_started_at=moment(
            clock_started(after)), now=now,
        moves=[{"player_id": p, "payload": m} for p, m in found.moves.items()],
        events_message=found.events)
    return _Decided(write, result, Hot(version, seq, digest_head, snapshot_seq, after,
                                       hot.dice))
