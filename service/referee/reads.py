"""Reads: the state as a member may see it, the log, the dice record, the export."""

from __future__ import annotations

import asyncio
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
from service.referee import members, receipts, summaries, webhooks
from service.referee.abandoned import annotate, rollbacks, rolled_back
from service.referee.awaited import linked
from service.referee.errors import NotFound
from service.rules import Event
from service.rules.board import SupplyMemo, SupplyStatus, supply_memo, supply_since
from service.rules.codec import to_data
from service.rules.events import EventRecord
from service.rules.view import (
    COMBAT_KINDS,
    SEALED_KINDS,
    Divergence,
    Now,
    UnitViews,
    Viewer,
    is_sealed,
    unit_views,
    view,
)
from service.store.games import Game, GameNotFound
from service.store.log import DICE_KINDS
from service.store.memory import BUDGET, estimate
from service.store.models import GameRow
from service.store.threads import in_thread, measured, state_class
from service.store.uow import UnitOfWork


def _redact(record: EventRecord) -> EventRecord:
    """A sealed event as another side sees it: who, not what. Its hash stays: the event
    holds a random salt, so the hash is a commitment to the answer that only the reveal
    opens (docs/security.md, Sealed reroll answers)."""
    side = record["data"].get("side")
    until = "(sealed until its reroll window closes)."
    if record["kind"] == "standing.armed":
        text = f"{side} armed a standing order {until}"
    elif record["kind"] == "gm.played" and "first_window" in record["data"]:
        text = f"The GM armed a standing order for {side} {until}"
    elif record["kind"] == "gm.played":
        text = f"The GM answered for {side} (sealed until the window closes)."
    else:
        text = f"{side} answered (sealed until the window closes)."
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


def sealed_seqs(records: list[EventRecord], state: Now, viewer: Viewer) -> set[int]:
    """The events sealed from `viewer` now: other sides' reroll answers while their
    window is open, and the arming of their reroll standing orders (issue 20)."""
    return {r["seq"] for r in records if is_sealed(Event.from_record(r), state, viewer)}


def visible(records: list[EventRecord], state: Now, viewer: Viewer) -> list[EventRecord]:
    """Events as `viewer` may see them now: sealed decisions of other sides redacted."""
    return [_redact(r) if is_sealed(Event.from_record(r), state, viewer) else r
            for r in records]


async def now_of(uow: UnitOfWork, row: GameRow) -> Now:
    """What sealing depends on at the row's head: from the row's summary when current (a
    big game's state is not loaded in a serving process), else from the state."""
    kept = summaries.current(row)
    if kept is not None:
        return summaries.Moment.of(kept)
    return (await uow.games.with_state(row)).state


async def events_for(uow: UnitOfWork, row: GameRow, viewer: Viewer, *, after: int,
                     limit: int) -> list[EventRecord]:
    """A page of the log as `viewer` sees it, rolled-back events marked."""
    records = await uow.log.since(row.id, after, limit)
    if not records:
        return []
    abandoned = await rollbacks(uow, row.id)
    now = await now_of(uow, row)
    return [annotate(r, abandoned) for r in visible(records, now, viewer)]


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
    page = await events_for(uow, m.row, m.viewer, after=after, limit=limit)
    return [Streamed(r, await opened(uow, m.row, m.viewer, r)
                     if r["kind"] == "initiative.reroll_closed" else []) for r in page]


async def opened(uow: UnitOfWork, row: GameRow, viewer: Viewer, close: EventRecord
                 ) -> list[EventRecord]:
    """What closing the reroll window of `close`'s turn opens to `viewer`: the other
    sides' answers in it, and their reroll standing orders armed for it (none for the
    GM, who saw them all). With their salts, the viewer can check the hashes it was
    shown while they were sealed."""
    if viewer.role == "gm":
        return []
    turn, seq = int(close["turn"]), int(close["seq"])
    found = await uow.log.of_kinds(row.id, SEALED_KINDS, turns=(turn - 1, turn), before=seq)
    out = []
    for r in found:
        data = r["data"]
        if data.get("side") == viewer.side:
            continue
        if "first_window" in data:  # a reroll standing order armed, by its side or the GM
            if data.get("first_window") == turn:
                out.append(r)
        elif r["turn"] == turn and (r["kind"] == "initiative.reroll_answered"
                                    or data.get("step") == "initiative.reroll"
                                    or data.get("kind") == "initiative.reroll"):
            out.append(r)
    return visible(out, await now_of(uow, row), viewer) if out else out


async def log(uow: UnitOfWork, game_id: str, token: str, *, after: int, limit: int
              ) -> LogPage:
    m = await members.member(uow, game_id, token, watching=True)
    events = await events_for(uow, m.row, m.viewer, after=after, limit=limit)
    nxt = events[-1]["seq"] if len(events) == limit else None
    return {"events": events, "next_after": nxt, "head": m.row.head_seq}


async def dice(uow: UnitOfWork, game_id: str, token: str) -> DiceRecord:
    """The dice record (docs/dice.md): the seed chains with their anchors, and per turn
    what its seed must hash to, the seed once revealed, and every roll with its inputs."""
    game = (await members.member(uow, game_id, token, watching=True)).row
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
    mode = game.dice["mode"]
    return {"game": game.id, "mode": mode, "scripted": mode == "scripted",
            "algorithm": crypto_dice.ALGORITHM + " (docs/dice.md): die j of roll i of turn T "
                         "is HMAC-SHA256(seed_T, '{game}|{T}|{i}|{j}|{purpose}|{trigger}')",
            "chains": chains, "turns": [turns[t] for t in sorted(turns)]}


async def export(uow: UnitOfWork, game_id: str, token: str) -> Export:
    """Everything a third party needs to verify the game offline."""
    m = await members.member(uow, game_id, token, watching=True)
    game, viewer = await uow.games.with_state(m.row), m.viewer
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


async def export_json(uow: UnitOfWork, game_id: str, token: str) -> bytes:
    """`export` as JSON (what a worker process answers, service.referee.offload)."""
    return orjson.dumps(await export(uow, game_id, token), option=orjson.OPT_NON_STR_KEYS)


async def dice_json(uow: UnitOfWork, game_id: str, token: str) -> bytes:
    """`dice` as JSON (what a worker process answers)."""
    return orjson.dumps(await dice(uow, game_id, token), option=orjson.OPT_NON_STR_KEYS)


@dataclass(frozen=True, slots=True, eq=False)
class _Rendered:
    """The newest version of a game this process rendered: its supply (the rules' memo
    and each unit's entry as JSON data) and its units' views. The next version's are
    updated from these (`supply_since`, `unit_views`) instead of computed whole."""

    version: int
    supply: SupplyMemo
    supply_data: dict[str, SupplyShown]
    units: UnitViews


# Per game, in the process's memory budget (service/store/memory.py): the newest
# rendering, and the views rendered of the newest versions, by (version, viewer, GM
# flag, webhook tag).
_RENDERED: dict[str, _Rendered] = {}
_VIEWS: dict[str, OrderedDict[tuple[int, Viewer, str, str], bytes]] = {}
_VIEWS_PER_GAME = 24  # three versions of eight viewers (three sides, the GM, spectators)
_RENDERING: dict[tuple[str, int], asyncio.Future[_Rendered]] = {}


def _forget(game_id: str) -> None:
    _RENDERED.pop(game_id, None)
    _VIEWS.pop(game_id, None)


BUDGET.register("views", _forget)


def _supply_entry(status: SupplyStatus) -> SupplyShown:
    return cast(SupplyShown, {k: v for k, v in to_data(status).items()
                              if v not in (None, [], ())})


def _render(game: Game, base: _Rendered | None) -> _Rendered:
    """The game's supply and unit views at its version: `base` if it is that version,
    else updated from it (any version of the game: a lagging read too), else whole."""
    if base is not None and base.version == game.version:
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
    return _Rendered(game.version, memo, data, units)


def _views_size(game: Game) -> int:
    scenario = game.setup.scenario
    views = _VIEWS.get(game.id)
    return (estimate("supply", len(scenario.map.hexes), len(game.state.units))
            + sum(len(body) for body in (views or {}).values()))


@dataclass(frozen=True, slots=True)
class StateView:
    """A member's view of the state: its ETag, and its JSON unless the caller's copy
    (`If-None-Match`) is current (`body` None: 304 Not Modified) or the view is to be
    rendered by a worker process (`elsewhere`: a big game's, not rendered here yet)."""

    etag: str
    body: bytes | None
    elsewhere: bool = False


# A game this big (hexes, and five per unit) has its views rendered, and its orders,
# acts and combat odds decided, by a worker process (service/referee/offload.py): tens of
# milliseconds to seconds of CPU each (the final reorganization's default plans every
# face-down unit), which on a thread of the serving process would still take the
# interpreter from its loop in turns. The built-in games are a few hundred.
BIG = 10_000


def _big(hexes: int, units: int) -> bool:
    return hexes + 5 * units > BIG


# Each game's scenario counts (hexes, units) as seen on its row: a scenario never
# changes, so a request about a game seen before is judged big or not before it reads.
_SIZES: OrderedDict[str, tuple[int, int]] = OrderedDict()
_SIZES_MAX = 100_000


def _noted(game_id: str, size: tuple[int, int]) -> tuple[int, int]:
    _SIZES[game_id] = size
    _SIZES.move_to_end(game_id)
    if len(_SIZES) > _SIZES_MAX:
        _SIZES.popitem(last=False)
    return size


def big(row: GameRow) -> bool:
    """Whether the game of this row is big (its scenario's counts, on the row)."""
    return _big(*_noted(row.id, (row.hexes, row.units)))


def known_big(game_id: str) -> bool | None:
    """Whether a game this process has seen is big; None when it has not seen it."""
    size = _SIZES.get(game_id)
    return None if size is None else _big(*size)


async def is_big(uow: UnitOfWork, game_id: str) -> bool:
    """Whether a game is big, by its scenario's counts on its row (nothing parsed); 404
    for no such game (on a replica, which may not have it yet, the primary is asked)."""
    known = known_big(game_id)
    if known is not None:
        return known
    try:
        size = await uow.games.size(game_id)
    except GameNotFound:
        raise NotFound("game/not_found", f"no game {game_id}") from None
    return _big(*_noted(game_id, size))


async def state_view(uow: UnitOfWork, game_id: str, token: str,
                     if_none_match: str | None, *, here: bool = False) -> StateView:
    """The caller's view, with the state of the caller's webhook (`webhook`: None when
    none is registered). The webhook's state is not part of the game's version, so the
    ETag names it too: a webhook disabled or registered again changes the ETag. The
    ETag, a 304 and a view already rendered need rows only; a big game's view not
    rendered yet is left to a worker (`elsewhere`), unless `here`: a serving process
    never loads a big game's state."""
    m = await members.member(uow, game_id, token, watching=True)
    viewer, row = m.viewer, m.row
    hook = None if m.spectator else webhooks.status(
        await uow.webhooks.get(game_id, webhooks.owner_of(m)))
    flagged = "-diverged" if viewer.role == "gm" and row.divergence else ""
    etag = (f'W/"{row.version}-{viewer.role}-{viewer.player_id or ""}{flagged}'
            f'{_webhook_tag(hook)}"')
    if if_none_match == etag:
        BUDGET.touch(game_id)
        return StateView(etag, None)
    cached = _cached_view(row, viewer, hook)
    if cached is not None:
        return StateView(etag, cached)
    if not here and big(row):
        return StateView(etag, None, elsewhere=True)
    return StateView(etag, await rendered_view(await uow.games.with_state(row), viewer, hook))


async def state_elsewhere(uow: UnitOfWork, game_id: str, token: str,
                          if_none_match: str | None) -> tuple[str, bytes | None]:
    """`state_view` rendered here, as a worker process answers it: (ETag, JSON or None
    for 304)."""
    found = await state_view(uow, game_id, token, if_none_match, here=True)
    return found.etag, found.body


def _webhook_tag(hook: WebhookStatus | None) -> str:
    """A short tag of the webhook's state for the ETag ("" when there is none)."""
    if hook is None:
        return ""
    return "-w" + hashlib.sha256(orjson.dumps(hook, option=orjson.OPT_SORT_KEYS)
                                 ).hexdigest()[:12]


async def rendered_view(game: Game, viewer: Viewer, hook: WebhookStatus | None = None
                        ) -> bytes:
    """The member's view of the current state with every land unit's supply, as JSON,
    rendered once per game version, viewer and webhook state (off the loop: for a big
    game the supply and the view take tens of milliseconds, and players read far more
    often than the game changes). (game id, version) names one committed state, as
    reads only see committed rows."""
    flag = game.row.divergence if viewer.role == "gm" else None
    cached = _cached_view(game.row, viewer, hook)
    if cached is not None:
        return cached
    key = _view_key(game.row, viewer, hook)
    rendered = await _rendered(game)
    body = await measured(("view", viewer.role, state_class(game.state)), _view_bytes, game,
                          viewer, hook, flag, rendered)
    views = _VIEWS.setdefault(game.id, OrderedDict())
    views[key] = body
    while len(views) > _VIEWS_PER_GAME:
        views.popitem(last=False)
    BUDGET.keep(game.id, "views", _views_size(game))
    return body


def _view_key(row: GameRow, viewer: Viewer, hook: WebhookStatus | None
              ) -> tuple[int, Viewer, str, str]:
    flag = row.divergence if viewer.role == "gm" else None
    return (row.version, viewer, str(flag.get("checked_at")) if flag else "",
            _webhook_tag(hook))


def _cached_view(row: GameRow, viewer: Viewer, hook: WebhookStatus | None) -> bytes | None:
    views = _VIEWS.get(row.id)
    cached = views.get(_view_key(row, viewer, hook)) if views is not None else None
    if cached is not None:
        BUDGET.touch(row.id)
    return cached


async def _rendered(game: Game) -> _Rendered:
    """The game's supply and unit views at its version, computed once however many
    viewers ask for the new version at once."""
    base = _RENDERED.get(game.id)
    if base is not None and base.version == game.version:
        return base
    key = (game.id, game.version)
    pending = _RENDERING.get(key)
    if pending is None:
        pending = _RENDERING[key] = asyncio.ensure_future(in_thread(_render, game, base))
        pending.add_done_callback(lambda _: _RENDERING.pop(key, None))
    rendered = await asyncio.shield(pending)
    newest = _RENDERED.get(game.id)
    if newest is None or newest.version <= rendered.version:
        _RENDERED[game.id] = rendered
    return rendered


def _view_bytes(game: Game, viewer: Viewer, hook: WebhookStatus | None,
                flag: dict[str, Any] | None, rendered: _Rendered) -> bytes:
    body: StateAnswer = {**view(game.state, viewer, rendered.units),
                         "supply": rendered.supply_data,
                         "head": {"seq": game.head_seq, "hash": game.head_hash},
                         "webhook": hook}  # the caller's webhook (docs/api.md, Webhooks)
    body["awaiting"] = linked(body["awaiting"], game.id)
    body["game"]["version"] = game.version
    body["game"]["name"] = game.row.name
    body["game"]["gm_signs"] = bool(game.row.gm_public_key)
    if viewer.role == "gm":
        # `service replay-check` (docs/game-master.md)
        body["game"]["divergence"] = cast(Divergence | None, flag)
    return orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)
