"""A unit's legal choices now (issue 16): `service.rules.modes.unit_options` for one unit or
a side's units, a page at a time (issue 33), computed once per game version and process
(the board and the searches are shared by every unit of the version) and kept as
rendered JSON. Players see their own side's units; the GM any side's. And a combat's
odds before it is sent (issue 29): the referee's own computation, by a dry run of the
order.

A side's answer is a page: at most `limit` units (and `OPTIONS_PAGE_BYTES` of JSON),
those after `after` in id order, narrowed to some units (`units`) or to those within
`within` hexes of a hex (`near`); `next_after` names where the next page starts. A
version that changed nothing on the map (a standing order, a roll: `same_map`) keeps the
board and every unit's answer of the version before.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import orjson

from service.answers import CombatOdds, SideOptions, UnitOptions
from service.clock import rfc3339, utc_now
from service.referee import members
from service.referee.errors import Denied, NotFound
from service.rules import Actor, awaiting, combat_preview, position
from service.rules.awaiting import Position
from service.rules.board import Board, grid_of
from service.rules.modes import UnitChoices, unit_options
from service.rules.state import same_map
from service.store.games import Game
from service.store.memory import BUDGET, estimate
from service.store.threads import in_thread
from service.store.uow import UnitOfWork

_VERSIONS_PER_GAME = 2
PAGE_UNITS = 50  # a page's units unless the caller asks for fewer or more (at most 200)
PAGE_UNITS_MAX = 200
PAGE_BYTES = 1024 * 1024  # `OPTIONS_PAGE_BYTES`


@dataclass(frozen=True, slots=True)
class Page:
    """Which units of the side a page holds."""

    units: tuple[str, ...] = ()
    near: str | None = None
    within: int = 0
    after: str | None = None
    limit: int = PAGE_UNITS
    max_bytes: int = PAGE_BYTES


class _Version:
    """One committed state's options: its board, and every unit's answer so far (as
    data and as JSON), shared with the next versions while the map stays the same."""

    def __init__(self, game: Game, before: _Version | None = None) -> None:
        self.game = game
        self._board: Board | None = None
        self.units: dict[str, UnitChoices] = {}
        self.rendered: dict[str, bytes] = {}
        if before is not None:
            self._board, self.units, self.rendered = before._board, before.units, \
                before.rendered

    @property
    def board(self) -> Board:
        if self._board is None:
            self._board = Board.from_state(self.game.state)
        return self._board

    def unit(self, uid: str) -> UnitChoices:
        found = self.units.get(uid)
        if found is None:
            found = self.units[uid] = unit_options(self.game.state, uid, self.board)
        return found

    def unit_json(self, uid: str) -> bytes:
        """One unit's choices as JSON (the value in a side's page)."""
        found = self.rendered.get(uid)
        if found is None:
            found = self.rendered[uid] = orjson.dumps(self.unit(uid))
        return found

    @property
    def position(self) -> Position:
        return position(self.game.state)

    def size(self) -> int:
        scenario = self.game.setup.scenario
        board = estimate("board", len(scenario.map.hexes), len(self.game.state.units)) \
            if self._board is not None else 0
        return board + 4 * sum(len(body) for body in self.rendered.values())


# Per game, the newest versions' options, in the process's memory budget.
_GAMES: dict[str, OrderedDict[int, _Version]] = {}


def _forget(game_id: str) -> None:
    _GAMES.pop(game_id, None)


BUDGET.register("options", _forget)


def _version(game: Game) -> _Version:
    versions = _GAMES.setdefault(game.id, OrderedDict())
    found = versions.get(game.version)
    if found is None:
        newest = next(reversed(versions.values()), None)
        same = newest is not None and same_map(newest.game.state, game.state)
        found = versions[game.version] = _Version(game, newest if same else None)
        while len(versions) > _VERSIONS_PER_GAME:
            versions.popitem(last=False)
    return found


def _kept(game: Game) -> None:
    """The game's options in the memory budget (versions that share answers, once)."""
    shared = {id(v.rendered): v.size() for v in _GAMES.get(game.id, {}).values()}
    BUDGET.keep(game.id, "options", sum(shared.values()))


async def unit_choices(uow: UnitOfWork, game_id: str, token: str, unit: str) -> bytes:
    """Every choice `unit` has now, and why it has not the others, as JSON."""
    m = await members.member(uow, game_id, token)
    game = await uow.games.with_state(m.row)
    state = game.state
    found = state.units.get(unit)
    if found is None:
        gone = unit in state.modes.eliminated
        raise NotFound("options/unknown_unit", f"{unit} was eliminated" if gone else
                       f"no unit {unit!r} is in the game", errors=[("/unit", "unknown unit")])
    side = state.setup.scenario.side_of_power(found.power)
    if m.player is not None and m.player.side != side:
        raise Denied("options/not_your_unit", f"{unit} is a unit of {side}: players see "
                     "their own side's options", errors=[("/unit", "another side's unit")])
    version = _version(game)
    answer: UnitOptions = {**version.unit(unit), "position": version.position,
                           "version": game.version}
    body = orjson.dumps(answer)
    _kept(game)
    return body


def _selected(game: Game, side: str, page: Page) -> list[str]:
    """The side's units the page may hold, in id order."""
    state = game.state
    sc = state.setup.scenario
    ids = sorted(uid for uid, u in state.units.items() if sc.side_of_power(u.power) == side)
    if page.units:
        unknown = [u for u in page.units if u not in state.units]
        if unknown:
            raise NotFound("options/unknown_unit", f"no unit {unknown[0]!r} is in the game",
                           errors=[("/units", f"unknown unit {u}") for u in unknown])
        wanted = set(page.units)
        ids = [uid for uid in ids if uid in wanted]
    if page.near is not None:
        grid = grid_of(sc.map)
        centre = grid.index.get(page.near)
        if centre is None:
            raise NotFound("options/unknown_hex", f"no hex {page.near!r} on the map",
                           errors=[("/near", "unknown hex")])
        ids = [uid for uid in ids if (at := grid.index.get(state.units[uid].at)) is not None
               and grid.distance(centre, at) <= page.within]
    if page.after is not None:
        ids = [uid for uid in ids if uid > page.after]
    return ids


async def side_choices(uow: UnitOfWork, game_id: str, token: str, side: str | None,
                       page: Page | None = None) -> bytes:
    """A page of the units of `side` with their choices, as JSON: a player's own side by
    default, for the GM the side awaited first (or the scenario's first)."""
    page = page or Page()
    m = await members.member(uow, game_id, token)
    game = await uow.games.with_state(m.row)
    sides = game.setup.sides
    if side is None:
        if m.player is not None:
            side = m.player.side
        else:
            side = next((a["side"] for a in awaiting(game.state)), sides[0])
    if side not in sides:
        raise NotFound("options/unknown_side", f"no side {side!r} in this game",
                       errors=[("/side", f"one of {', '.join(sides)}")])
    if m.player is not None and m.player.side != side:
        raise Denied("options/not_your_side", f"players see their own side's options, not "
                     f"{side}'s", errors=[("/side", "another side")])
    version = _version(game)
    ids = _selected(game, side, page)
    head: SideOptions = {"position": version.position, "version": game.version,
                         "side": side, "units": {}, "total": len(ids), "next_after": None}
    parts: list[bytes] = []
    # The head as it will be, `next_after` naming the longest id it may name.
    size = len(orjson.dumps(head)) + max((len(orjson.dumps(u)) for u in ids), default=0)
    for uid in ids[:page.limit]:
        part = orjson.dumps(uid) + b":" + version.unit_json(uid)
        if parts and size + len(part) + 1 > page.max_bytes:
            break
        parts.append(part)
        size += len(part) + 1
    if len(parts) < len(ids):
        head["next_after"] = ids[len(parts) - 1]
    _kept(game)
    return _with_units(head, parts)


def _with_units(head: SideOptions, parts: Sequence[bytes]) -> bytes:
    """The answer's JSON with the units' JSON spliced in (rendered once per unit)."""
    shell = orjson.dumps(head)
    marker = b'"units":{}'
    at = shell.index(marker) + len(marker) - 1
    return shell[:at] + b",".join(parts) + shell[at:]


async def combat_odds(uow: UnitOfWork, game_id: str, token: str, by: str, hex_id: str,
                      attackers: list[str]) -> bytes:
    """What a combat of the caller's side would fight at now (a dry run of its `report`,
    refused as the order would be), as JSON."""
    m = await members.member(uow, game_id, token)
    if m.player is None:
        raise Denied("options/players_only", "a combat's odds are a player's dry run: the "
                     "GM playing a side sees them in the log once it is fought",
                     errors=[("/", "not a player")])
    game = await uow.games.with_state(m.row)
    state = game.state
    actor = Actor(id=m.player.id, role="player", side=m.player.side,
                  powers=tuple(m.player.powers))
    preview = await in_thread(combat_preview, state, actor,
                              {"by": by, "hex": hex_id, "attackers": attackers},
                              rfc3339(utc_now()))
    answer: CombatOdds = {**preview, "position": position(state), "version": game.version}
    return orjson.dumps(answer)
