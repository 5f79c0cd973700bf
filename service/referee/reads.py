"""Reads: the log as a member may see it, the dice record, the export."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from service.referee.core import event_record, state_of
from service.rules import Event
from service.rules.board import state_supply
from service.rules.codec import to_data
from service.rules.view import Viewer, is_sealed, view
from service.store.models import EventRow, GameRow, OrderRow


def _redact(record: dict[str, Any]) -> dict[str, Any]:
    return {**record, "data": {"side": record["data"].get("side"), "sealed": True},
            "text": f"{record['data'].get('side')} answered (sealed until the window closes).",
            "sealed": True}


@dataclass(frozen=True, slots=True)
class Abandoned:
    """The events a rollback abandoned: `first`..`last`, except the `kept` ones (who
    plays, the clock, the dice record: their effects survive the rollback)."""

    first: int
    last: int
    kept: frozenset[int]

    def __contains__(self, seq: object) -> bool:
        return isinstance(seq, int) and self.first <= seq <= self.last and seq not in self.kept


async def rollbacks(session: AsyncSession, game_id: str) -> list[Abandoned]:
    """What every rollback of the game abandoned, in log order."""
    rows = (await session.execute(
        select(EventRow.data).where(EventRow.game_id == game_id,
                                    EventRow.kind == "game.rolled_back").order_by(EventRow.seq)
    )).scalars()
    return [Abandoned(int(d["abandons"][0]), int(d["abandons"][1]),
                      frozenset(int(k) for k in d.get("kept", ()))) for d in rows]


def rolled_back(seq: int, abandoned: list[Abandoned]) -> bool:
    return any(seq in a for a in abandoned)


def annotate(record: dict[str, Any], abandoned: list[Abandoned]) -> dict[str, Any]:
    """Mark an event a later rollback abandoned (`"rolled_back": true`; not hashed)."""
    if abandoned and rolled_back(record["seq"], abandoned):
        record["rolled_back"] = True
    return record


async def log(session: AsyncSession, game: GameRow, viewer: Viewer, *, after: int,
              limit: int) -> list[dict[str, Any]]:
    rows = (
        await session.execute(
            select(EventRow).where(EventRow.game_id == game.id, EventRow.seq > after)
            .order_by(EventRow.seq).limit(limit)
        )
    ).scalars().all()
    state = state_of(game)
    abandoned = await rollbacks(session, game.id) if rows else []
    out = []
    for row in rows:
        record = event_record(row)
        if is_sealed(Event.from_record(record), state, viewer):
            record = _redact(record)
        out.append(annotate(record, abandoned))
    return out


async def dice(session: AsyncSession, game: GameRow) -> dict[str, Any]:
    rows = (
        await session.execute(
            select(EventRow).where(EventRow.game_id == game.id,
                                   EventRow.kind.in_(("dice.committed", "dice.revealed",
                                                      "dice.rolled", "dice.recommitted")))
            .order_by(EventRow.seq)
        )
    ).scalars().all()
    abandoned = await rollbacks(session, game.id)
    turns: dict[int, dict[str, Any]] = {}
    for row in rows:
        t = int(row.data["turn"])
        entry = turns.setdefault(t, {"turn": t, "commitment": None, "seed": None, "rolls": []})
        if row.kind in ("dice.committed", "dice.recommitted"):
            if row.kind == "dice.recommitted" or entry["commitment"] not in (
                    None, row.data["commitment"]):
                entry.setdefault("recommitments", []).append(
                    {"seq": row.seq, "epoch": row.data.get("epoch"),
                     "commitment": row.data["commitment"]})
            entry["commitment"] = row.data["commitment"]
        elif row.kind == "dice.revealed":
            if entry["seed"] is not None and entry["seed"] != row.data["seed"]:
                entry.setdefault("earlier_seeds", []).append(entry["seed"])
            entry["seed"] = row.data["seed"]
        elif rolled_back(row.seq, abandoned):
            entry["rolls"].append({"seq": row.seq, **row.data, "rolled_back": True})
        else:
            entry["rolls"].append({"seq": row.seq, **row.data})
    return {"game": game.id, "mode": game.dice["mode"],
            "scripted": game.dice["mode"] == "scripted",
            "algorithm": "DESIGN.md 4.2: HMAC-SHA256(seed_T, "
                         "'{game_id}|{T}|{i}|{j}|{purpose}|{chain_hash}')",
            "turns": [turns[t] for t in sorted(turns)]}


async def export(session: AsyncSession, game: GameRow, viewer: Viewer) -> dict[str, Any]:
    """Everything a third party needs to verify the game offline."""
    events = (
        await session.execute(
            select(EventRow).where(EventRow.game_id == game.id).order_by(EventRow.seq)
        )
    ).scalars().all()
    orders = (
        await session.execute(
            select(OrderRow).where(OrderRow.game_id == game.id)
            .order_by(OrderRow.created_at, OrderRow.player_id, OrderRow.seq)
        )
    ).scalars().all()
    from service.store.models import PlayerRow

    players = (
        await session.execute(select(PlayerRow).where(PlayerRow.game_id == game.id))
    ).scalars().all()
    state = state_of(game)
    scenario = await session.scalar(select(GameRow.scenario).where(GameRow.id == game.id))
    abandoned = await rollbacks(session, game.id)
    records = [annotate(event_record(e), abandoned) for e in events]
    sealed_hidden = any(is_sealed(Event.from_record(r), state, viewer) for r in records)
    if sealed_hidden:
        records = [_redact(r) if is_sealed(Event.from_record(r), state, viewer) else r
                   for r in records]
    dice_info: dict[str, Any] = {"mode": game.dice["mode"]}
    if game.dice["mode"] == "scripted":
        dice_info["scripted"] = True
        if state.status == "finished":
            dice_info["script"] = game.dice.get("script", {})
    if game.dice["mode"] == "seeded" and state.status == "finished":
        dice_info["master_seed"] = game.dice["seed"]
    return {
        "format": "wif-referee-export/1",
        "game": {"id": game.id, "name": game.name, "status": state.status,
                 "version": game.version, "rules_version": game.rules_version},
        "scenario": scenario,
        "options": game.options,
        "dice": dice_info,
        "players": [{"id": p.id, "side": p.side, "name": p.name, "powers": p.powers,
                     "public_key": p.public_key, "active": p.active,
                     "keys": p.keys or [{"public_key": p.public_key, "from_seq": 0}]}
                    for p in players],
        "orders": [{**o.envelope, "first_event": o.first_event} for o in orders],
        "events": records,
        "revealed_seeds": {str(k): v for k, v in state.dice.revealed.items()},
        "state": view(state, Viewer(role="gm")),
        "complete": not sealed_hidden,
    }


_SUPPLY: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()


def supply(game: GameRow) -> dict[str, Any]:
    """Every land unit's supply (map engine), computed once per game version."""
    key = (game.id, game.version)
    cached = _SUPPLY.get(key)
    if cached is None:
        report = state_supply(state_of(game))
        cached = {uid: {k: v for k, v in to_data(status).items() if v not in (None, [], ())}
                  for uid, status in report.items()}
        _SUPPLY[key] = cached
        if len(_SUPPLY) > 256:
            _SUPPLY.popitem(last=False)
    else:
        _SUPPLY.move_to_end(key)
    return cached


_VIEWS: OrderedDict[tuple[str, int, Viewer, str], bytes] = OrderedDict()
_VIEWS_MAX_BYTES = 64 * 2**20
_views_bytes = 0


def state_view(game: GameRow, viewer: Viewer) -> bytes:
    """The member's view of the current state with every land unit's supply, as JSON,
    rendered once per game version and viewer: for a big game the view itself costs
    tens of milliseconds, and players read far more often than the game changes.
    (game id, version) names one committed state, as reads only see committed rows."""
    global _views_bytes
    flag = game.divergence if viewer.role == "gm" else None
    key = (game.id, game.version, viewer, str(flag.get("checked_at")) if flag else "")
    cached = _VIEWS.get(key)
    if cached is not None:
        _VIEWS.move_to_end(key)
        return cached
    body = view(state_of(game), viewer)
    body["supply"] = supply(game)
    body["game"]["version"] = game.version
    body["game"]["name"] = game.name
    if viewer.role == "gm":
        body["game"]["divergence"] = flag  # `service replay-check` (docs/game-master.md)
    rendered = orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)
    _VIEWS[key] = rendered
    _views_bytes += len(rendered)
    while _views_bytes > _VIEWS_MAX_BYTES and len(_VIEWS) > 1:
        _views_bytes -= len(_VIEWS.popitem(last=False)[1])
    return rendered
