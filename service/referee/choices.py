"""A unit's legal choices now (issue 16): `service.rules.modes.unit_options` for one unit or
every unit of a side, computed once per game version and process (the board and the
searches are shared by every unit of the version) and kept as rendered JSON. Players
see their own side's units; the GM any side's. And a combat's odds before it is sent
(issue 29): the referee's own computation, by a dry run of the order."""

from __future__ import annotations

from collections import OrderedDict

import orjson

from service.answers import CombatOdds, SideOptions, UnitOptions
from service.clock import rfc3339, utc_now
from service.referee import members
from service.referee.errors import Denied, NotFound
from service.rules import Actor, awaiting, combat_preview, position
from service.rules.awaiting import Position
from service.rules.board import Board
from service.rules.modes import UnitChoices, unit_options
from service.store.games import Game
from service.store.uow import UnitOfWork

_MAX_VERSIONS = 8


class _Version:
    """One committed state's options: its board, and the answers given so far."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._board: Board | None = None
        self.units: dict[str, UnitChoices] = {}
        self.sides: dict[str, bytes] = {}

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

    @property
    def position(self) -> Position:
        return position(self.game.state)

    def side(self, side: str) -> bytes:
        found = self.sides.get(side)
        if found is None:
            state = self.game.state
            sc = state.setup.scenario
            units = {uid: self.unit(uid) for uid in sorted(state.units)
                     if sc.side_of_power(state.units[uid].power) == side}
            answer: SideOptions = {"position": self.position, "version": self.game.version,
                                   "side": side, "units": units}
            found = self.sides[side] = orjson.dumps(answer)
        return found


_VERSIONS: OrderedDict[tuple[str, int], _Version] = OrderedDict()


def _version(game: Game) -> _Version:
    key = (game.id, game.version)
    found = _VERSIONS.get(key)
    if found is None:
        found = _VERSIONS[key] = _Version(game)
        if len(_VERSIONS) > _MAX_VERSIONS:
            _VERSIONS.popitem(last=False)
    else:
        _VERSIONS.move_to_end(key)
    return found


async def unit_choices(uow: UnitOfWork, game_id: str, token: str, unit: str) -> bytes:
    """Every choice `unit` has now, and why it has not the others, as JSON."""
    m = await members.member(uow, game_id, token)
    state = m.game.state
    found = state.units.get(unit)
    if found is None:
        gone = unit in state.modes.eliminated
        raise NotFound("options/unknown_unit", f"{unit} was eliminated" if gone else
                       f"no unit {unit!r} is in the game", errors=[("/unit", "unknown unit")])
    side = state.setup.scenario.side_of_power(found.power)
    if m.player is not None and m.player.side != side:
        raise Denied("options/not_your_unit", f"{unit} is a unit of {side}: players see "
                     "their own side's options", errors=[("/unit", "another side's unit")])
    version = _version(m.game)
    answer: UnitOptions = {**version.unit(unit), "position": version.position,
                           "version": m.game.version}
    return orjson.dumps(answer)


async def side_choices(uow: UnitOfWork, game_id: str, token: str, side: str | None) -> bytes:
    """Every unit of `side` with its choices, as JSON: a player's own side by default,
    for the GM the side awaited first (or the scenario's first)."""
    m = await members.member(uow, game_id, token)
    sides = m.game.setup.sides
    if side is None:
        if m.player is not None:
            side = m.player.side
        else:
            side = next((a["side"] for a in awaiting(m.game.state)), sides[0])
    if side not in sides:
        raise NotFound("options/unknown_side", f"no side {side!r} in this game",
                       errors=[("/side", f"one of {', '.join(sides)}")])
    if m.player is not None and m.player.side != side:
        raise Denied("options/not_your_side", f"players see their own side's options, not "
                     f"{side}'s", errors=[("/side", "another side")])
    return _version(m.game).side(side)


async def combat_odds(uow: UnitOfWork, game_id: str, token: str, by: str, hex_id: str,
                      attackers: list[str]) -> bytes:
    """What a combat of the caller's side would fight at now (a dry run of its `report`,
    refused as the order would be), as JSON."""
    m = await members.member(uow, game_id, token)
    if m.player is None:
        raise Denied("options/players_only", "a combat's odds are a player's dry run: the "
                     "GM playing a side sees them in the log once it is fought",
                     errors=[("/", "not a player")])
    state = m.game.state
    actor = Actor(id=m.player.id, role="player", side=m.player.side,
                  powers=tuple(m.player.powers))
    preview = combat_preview(state, actor, {"by": by, "hex": hex_id, "attackers": attackers},
                             rfc3339(utc_now()))
    answer: CombatOdds = {**preview, "position": position(state), "version": m.game.version}
    return orjson.dumps(answer)
