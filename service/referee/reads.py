"""Reads: the state as a member may see it, the log, the dice record, the export."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, cast

import orjson

from service.answers import (
    Chain,
    DiceRecord,
    Export,
    ExportedDice,
    LogPage,
    RollShown,
    StateAnswer,
    SupplyShown,
    TurnDice,
    WebhookStatus,
)
from service.crypto import dice as crypto_dice
from service.referee import members, receipts, webhooks
from service.referee.abandoned import annotate, rollbacks, rolled_back
from service.referee.awaited import linked
from service.rules import Event, State
from service.rules.board import SupplyMemo, SupplyStatus, supply_memo, supply_since
from service.rules.codec import to_data
from service.rules.events import EventRecord
from service.rules.view import (
    COMBAT_KINDS,
    SEALED_KINDS,
    Divergence,
    UnitViews,
    Viewer,
    is_sealed,
    unit_views,
    view,
)
from service.store.games import Game
from service.store.log import DICE_KINDS
from service.store.uow import UnitOfWork


def _redact(record: EventRecord) -> EventRecord:
    """A sealed event as another side sees it: who, not what. Its hash stays: the event
    holds a random salt, so the hash is a commitment to the answer that only the reveal
    opens (docs/security.md, Sealed reroll answers)."""
    side = record["data"].get("side")
    text = {"standing.armed": f"{side} armed a standing order (sealed until its reroll "
                              "window closes).",
            "gm.played": f"The GM answered for {side} (sealed until the window closes)."
            }.get(record["kind"], f"{side} answered (sealed until the window closes).")
    return {**record, "data": {"side": side, "sealed": True}, "text": text, "sealed": True}


def _sealed_order(envelope: dict[str, Any]) -> dict[str, Any]:
    """An order that gives a sealed decision of another side, withheld: its body and its
    signature (with the signer's public key, a signature tells which of the few possible
    bodies was signed)."""
    out = {k: v for k, v in envelope.items() if k != "signature"}
    return {**out, "order": {**envelope["order"], "body": {"sealed": True}}, "sealed": True}


def _sealed_command(command: dict[str, Any], sealed: set[int], last: int,
                    viewer: Viewer) -> dict[str, Any]:
    """A command as `viewer` may see it while some of its events (`first_event` to
    `last`) are sealed: one that gives a sealed decision (its first event is sealed)
    withheld whole (body, extra, the trigger its signature hashes to, the signed order);
    otherwise the salts it gave sealed answers of other sides."""
    first = int(command["first_event"])
    signed = command.get("signed")
    if first in sealed:
        return {**command, "body": {"sealed": True}, "extra": {}, "trigger": None,
                "signed": None if signed is None else _sealed_order(signed)}
    if any(first <= seq <= last for seq in sealed):
        extra = dict(command.get("extra") or {})
        salts = extra.pop("standing_salts", None)
        extra.pop("salt", None)
        mine = {k: v for k, v in (salts or {}).items() if k == viewer.side}
        return {**command, "extra": {**extra, **({"standing_salts": mine} if mine else {})}}
    return command


def sealed_seqs(records: list[EventRecord], state: State, viewer: Viewer) -> set[int]:
    """The events sealed from `viewer` now: other sides' reroll answers while their
    window is open, and the arming of their reroll standing orders (issue 20)."""
    return {r["seq"] for r in records if is_sealed(Event.from_record(r), state, viewer)}


def visible(records: list[EventRecord], state: State, viewer: Viewer) -> list[EventRecord]:
    """Events as `viewer` may see them now: sealed decisions of other sides redacted."""
    return [_redact(r) if is_sealed(Event.from_record(r), state, viewer) else r
            for r in records]


async def events_for(uow: UnitOfWork, game: Game, viewer: Viewer, *, after: int,
                     limit: int) -> list[EventRecord]:
    """A page of the log as `viewer` sees it, rolled-back events marked."""
    records = await uow.log.since(game.id, after, limit)
    abandoned = await rollbacks(uow, game.id) if records else []
    return [annotate(r, abandoned) for r in visible(records, game.state, viewer)]


@dataclass(frozen=True, slots=True)
class Streamed:
    """An event of a live stream, and the sealed events it opens (when it closes a
    reroll window), as the viewer now sees them: the stream sends them again."""

    record: EventRecord
    opens: list[EventRecord]


async def stream_page(uow: UnitOfWork, game_id: str, digest: str, *, after: int,
                      limit: int) -> list[Streamed]:
    """The next page of a live stream opened by the token with this digest (directly
    or through a ticket): the token is checked again each time, so a stream ends when
    its seat is revoked or its key replaced with a new token."""
    m = await members.member_by_digest(uow, game_id, digest, watching=True)
    page = await events_for(uow, m.game, m.viewer, after=after, limit=limit)
    return [Streamed(r, await opened(uow, m.game, m.viewer, r)
                     if r["kind"] == "initiative.reroll_closed" else []) for r in page]


async def opened(uow: UnitOfWork, game: Game, viewer: Viewer, close: EventRecord
                 ) -> list[EventRecord]:
    """What closing the reroll window of `close`'s turn opens to `viewer`: the other
    sides' answers in it, and their reroll standing orders armed for it (none for the
    GM, who saw them all). With their salts, the viewer can check the hashes it was
    shown while they were sealed."""
    if viewer.role == "gm":
        return []
    turn, seq = int(close["turn"]), int(close["seq"])
    found = await uow.log.of_kinds(game.id, SEALED_KINDS, turns=(turn - 1, turn), before=seq)
    out = []
    for r in found:
        data = r["data"]
        if data.get("side") == viewer.side:
            continue
        if r["kind"] == "standing.armed":
            if data.get("step") == "initiative.reroll" and data.get("first_window") == turn:
                out.append(r)
        elif r["turn"] == turn and (r["kind"] == "initiative.reroll_answered"
                                    or data.get("step") == "initiative.reroll"
                                    or data.get("kind") == "initiative.reroll"):
            out.append(r)
    return visible(out, game.state, viewer)


async def log(uow: UnitOfWork, game_id: str, token: str, *, after: int, limit: int
              ) -> LogPage:
    m = await members.member(uow, game_id, token, watching=True)
    events = await events_for(uow, m.game, m.viewer, after=after, limit=limit)
    nxt = events[-1]["seq"] if len(events) == limit else None
    return {"events": events, "next_after": nxt, "head": m.game.head_seq}


async def dice(uow: UnitOfWork, game_id: str, token: str) -> DiceRecord:
    """The dice record (docs/dice.md): the seed chains with their anchors, and per turn
    what its seed must hash to, the seed once revealed, and every roll with its inputs."""
    game = (await members.member(uow, game_id, token, watching=True)).game
    abandoned = await rollbacks(uow, game.id)
    chains: list[Chain] = []
    turns: dict[int, TurnDice] = {}

    def turn_entry(t: int) -> TurnDice:
        return turns.setdefault(t, {"turn": t, "commitment": None, "seed": None, "rolls": []})

    for row in await uow.log.of_kinds(game.id, DICE_KINDS):
        data, kind = row["data"], row["kind"]
        if kind in ("dice.committed", "dice.recommitted"):
            chains.append(cast(Chain, {"seq": row["seq"], **data}))
            turn_entry(int(data["from_turn"]))["commitment"] = data["anchor"]
        elif kind == "dice.revealed":
            t = int(data["turn"])
            entry = turn_entry(t)
            if entry["seed"] is not None and entry["seed"] != data["seed"]:
                entry.setdefault("earlier_seeds", []).append(entry["seed"])
            entry["seed"] = data["seed"]
            nxt = turn_entry(t + 1)
            if nxt["commitment"] is None:
                nxt["commitment"] = data["seed"]
        else:
            roll = cast(RollShown, {"seq": row["seq"], **data})
            if rolled_back(row["seq"], abandoned):
                roll["rolled_back"] = True
            turn_entry(int(data["turn"]))["rolls"].append(roll)
    mode = game.row.dice["mode"]
    return {"game": game.id, "mode": mode, "scripted": mode == "scripted",
            "algorithm": crypto_dice.ALGORITHM + " (docs/dice.md): die j of roll i of turn T "
                         "is HMAC-SHA256(seed_T, '{game}|{T}|{i}|{j}|{purpose}|{trigger}')",
            "chains": chains, "turns": [turns[t] for t in sorted(turns)]}


async def export(uow: UnitOfWork, game_id: str, token: str) -> Export:
    """Everything a third party needs to verify the game offline."""
    m = await members.member(uow, game_id, token, watching=True)
    game, viewer = m.game, m.viewer
    state = game.state
    abandoned = await rollbacks(uow, game.id)
    records = [annotate(r, abandoned) for r in await uow.log.since(game.id, 0)]
    sealed = sealed_seqs(records, state, viewer)
    sealed_hidden = bool(sealed)
    orders = [{**o.envelope, "first_event": o.first_event}
              for o in await uow.orders.of_game(game.id)]
    commands = await uow.commands.of_game(game.id)
    if sealed_hidden:
        records = [_redact(r) if r["seq"] in sealed else r for r in records]
        orders = [_sealed_order(o) if o.get("first_event") in sealed else o for o in orders]
        firsts = sorted(int(c["first_event"]) for c in commands) + [game.head_seq + 1]
        ends = {first: nxt - 1 for first, nxt in zip(firsts, firsts[1:], strict=False)}
        commands = [_sealed_command(c, sealed, ends.get(int(c["first_event"]), game.head_seq),
                                    viewer) for c in commands]
    config = game.row.dice
    dice_info: ExportedDice = {"mode": config["mode"], "algorithm": crypto_dice.ALGORITHM}
    if config["mode"] == "scripted":
        dice_info["scripted"] = True
        if state.status == "finished":
            dice_info["script"] = config.get("script", {})
    if config["mode"] == "seeded" and state.status == "finished":
        dice_info["master_seed"] = config["seed"]
    return {
        "format": "wif-referee-export/2",
        "game": {"id": game.id, "name": game.row.name, "status": state.status,
                 "version": game.version, "rules_version": game.row.rules_version,
                 "gm_public_key": game.row.gm_public_key},
        "scenario": await uow.games.scenario(game.id),
        "options": game.row.options,
        "dice": dice_info,
        "players": [{"id": p.id, "side": p.side, "name": p.name, "powers": p.powers,
                     "public_key": p.public_key, "active": p.active,
                     "keys": p.keys or [{"public_key": p.public_key, "from_seq": 0}]}
                    for p in await uow.players.of_game(game.id)],
        "orders": orders,
        "commands": commands,
        "events": records,
        "server_keys": await receipts.keys(uow),
        "revealed_seeds": {str(k): v for k, v in state.dice.revealed.items()},
        "state": view(state, viewer),
        "combat_results": {by: state.setup.scenario.combat.how(by) for by in COMBAT_KINDS},
        "complete": not sealed_hidden,
    }


@dataclass(frozen=True, slots=True, eq=False)
class _Rendered:
    """The newest version of a game this process rendered: its supply (the rules' memo
    and each unit's entry as JSON data) and its units' views. The next version's are
    updated from these (`supply_since`, `unit_views`) instead of computed whole."""

    version: int
    supply: SupplyMemo
    supply_data: dict[str, SupplyShown]
    units: UnitViews


_RENDERED: OrderedDict[str, _Rendered] = OrderedDict()  # game id -> newest rendered
_RENDERED_GAMES = 32  # a 20,000-hex game's searches take a few MB
_SUPPLY: OrderedDict[tuple[str, int], dict[str, SupplyShown]] = OrderedDict()


def _supply_entry(status: SupplyStatus) -> SupplyShown:
    return cast(SupplyShown, {k: v for k, v in to_data(status).items()
                              if v not in (None, [], ())})


def _rendered(game: Game) -> _Rendered:
    """The game's supply and unit views at its version: kept, or updated from the newest
    version this process rendered (any version of the game: a lagging read too)."""
    base = _RENDERED.get(game.id)
    if base is not None and base.version == game.version:
        _RENDERED.move_to_end(game.id)
        return base
    state = game.state
    if base is None:
        memo, units = supply_memo(state), unit_views(state)
        data = {uid: _supply_entry(status) for uid, status in memo.report.items()}
    else:
        memo, units = supply_since(base.supply, state), unit_views(state, base.units)
        before, kept = base.supply.report, base.supply_data
        data = {uid: kept[uid] if before.get(uid) is status else _supply_entry(status)
                for uid, status in memo.report.items()}
    found = _Rendered(game.version, memo, data, units)
    _RENDERED[game.id] = found
    _RENDERED.move_to_end(game.id)
    if len(_RENDERED) > _RENDERED_GAMES:
        _RENDERED.popitem(last=False)
    return found


def supply(game: Game) -> dict[str, SupplyShown]:
    """Every land unit's supply (map engine), once per game version: updated from the
    previous version's when this process rendered one (`supply_since`)."""
    key = (game.id, game.version)
    cached = _SUPPLY.get(key)
    if cached is None:
        cached = _SUPPLY[key] = _rendered(game).supply_data
        if len(_SUPPLY) > 256:
            _SUPPLY.popitem(last=False)
    else:
        _SUPPLY.move_to_end(key)
    return cached


@dataclass(frozen=True, slots=True)
class StateView:
    """A member's view of the state: its ETag, and its JSON unless the caller's copy
    (`If-None-Match`) is current (`body` None: 304 Not Modified)."""

    etag: str
    body: bytes | None


_VIEWS: OrderedDict[tuple[str, int, Viewer, str, str], bytes] = OrderedDict()
_VIEWS_MAX_BYTES = 64 * 2**20
_views_bytes = 0


async def state_view(uow: UnitOfWork, game_id: str, token: str,
                     if_none_match: str | None) -> StateView:
    """The caller's view, with the state of the caller's webhook (`webhook`: None when
    none is registered). The webhook's state is not part of the game's version, so the
    ETag names it too: a webhook disabled or registered again changes the ETag."""
    m = await members.member(uow, game_id, token, watching=True)
    viewer = m.viewer
    hook = None if m.spectator else webhooks.status(
        await uow.webhooks.get(game_id, webhooks.owner_of(m)))
    flagged = "-diverged" if viewer.role == "gm" and m.game.row.divergence else ""
    etag = (f'W/"{m.game.version}-{viewer.role}-{viewer.player_id or ""}{flagged}'
            f'{_webhook_tag(hook)}"')
    if if_none_match == etag:
        return StateView(etag, None)
    return StateView(etag, rendered_view(m.game, viewer, hook))


def _webhook_tag(hook: WebhookStatus | None) -> str:
    """A short tag of the webhook's state for the ETag ("" when there is none)."""
    if hook is None:
        return ""
    return "-w" + hashlib.sha256(orjson.dumps(hook, option=orjson.OPT_SORT_KEYS)
                                 ).hexdigest()[:12]


def rendered_view(game: Game, viewer: Viewer, hook: WebhookStatus | None = None) -> bytes:
    """The member's view of the current state with every land unit's supply, as JSON,
    rendered once per game version, viewer and webhook state: for a big game the view
    itself costs tens of milliseconds, and players read far more often than the game
    changes. (game id, version) names one committed state, as reads only see committed
    rows."""
    global _views_bytes
    flag = game.row.divergence if viewer.role == "gm" else None
    key = (game.id, game.version, viewer, str(flag.get("checked_at")) if flag else "",
           _webhook_tag(hook))
    cached = _VIEWS.get(key)
    if cached is not None:
        _VIEWS.move_to_end(key)
        return cached
    units = _rendered(game).units
    body: StateAnswer = {**view(game.state, viewer, units), "supply": supply(game),
                         "head": {"seq": game.head_seq, "hash": game.head_hash},
                         "webhook": hook}  # the caller's webhook (docs/api.md, Webhooks)
    body["awaiting"] = linked(body["awaiting"], game.id)
    body["game"]["version"] = game.version
    body["game"]["name"] = game.row.name
    body["game"]["gm_signs"] = bool(game.row.gm_public_key)
    if viewer.role == "gm":
        # `service replay-check` (docs/game-master.md)
        body["game"]["divergence"] = cast(Divergence | None, flag)
    rendered = orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)
    _VIEWS[key] = rendered
    _views_bytes += len(rendered)
    while _views_bytes > _VIEWS_MAX_BYTES and len(_VIEWS) > 1:
        _views_bytes -= len(_VIEWS.popitem(last=False)[1])
    return rendered
