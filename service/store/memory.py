"""The per-game caches of a process, bounded together (issue 33): states and parsed
scenarios (service/store/games.py), rendered views and supply, legal choices and
reorganization planners (service/referee), each game's entries held in one account.
When the accounts pass `CACHE_MB`, the games used least recently are forgotten whole
(every cache drops them) until they fit; a game not used for `CACHE_IDLE_SECONDS` is
forgotten at the next look. Every cache is a cache of committed data, so a forgotten
game costs its next request a rebuild, never a wrong answer.

Sizes are estimates: a rendered answer counts its bytes; a scenario, a state, a board,
a supply report or a planner counts from the map's hexes and the units, by the bytes
per hex and per unit measured with tracemalloc on generated maps of 2,000 to 20,000
hexes and 200 to 2,000 units (`estimate`). `/readyz` shows the figures
(docs/operating.md, "Memory").
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from typing_extensions import TypedDict

MB = 2**20
# Bytes per hex and per unit of what a game's caches hold (tracemalloc, see above).
PER = {
    "setup": (260, 400),      # the parsed scenario
    "state": (0, 200),        # a state (most of it shared with the states before)
    "board": (270, 100),      # a board: hexes, units, indexes
    "supply": (390, 1550),    # the supply report with its board and the units' views
}


def estimate(kind: str, hexes: int, units: int) -> int:
    """The bytes an object of `kind` ("setup", "state", "board", "supply") of a game
    with `hexes` hexes and `units` units holds, as measured."""
    per_hex, per_unit = PER[kind]
    return per_hex * hexes + per_unit * units


@dataclass
class _Account:
    sizes: dict[str, int] = field(default_factory=dict)
    used: float = 0.0

    @property
    def total(self) -> int:
        return sum(self.sizes.values())


class Budget:
    """The accounts of this process's games, least recently used first."""

    def __init__(self, limit: int = 256 * MB, idle: float = 1800.0) -> None:
        self.limit = limit
        self.idle = idle
        self.caches: dict[str, Callable[[str], None]] = {}
        self.games: OrderedDict[str, _Account] = OrderedDict()
        self.total = 0
        self.evicted = 0
        self.clock: Callable[[], float] = time.monotonic

    def configure(self, limit: int, idle: float) -> None:
        self.limit, self.idle = limit, idle
        self._trim("")

    def register(self, name: str, forget: Callable[[str], None]) -> None:
        """A cache named `name` that forgets a game with `forget(game_id)`."""
        self.caches[name] = forget

    def keep(self, game_id: str, name: str, size: int) -> None:
        """Cache `name` now holds `size` bytes for the game (0: nothing), used now."""
        account = self.games.get(game_id)
        if account is None:
            if size <= 0:
                return
            account = self.games[game_id] = _Account()
        self.total += size - account.sizes.get(name, 0)
        if size > 0:
            account.sizes[name] = size
        else:
            account.sizes.pop(name, None)
        self._used(game_id, account)
        self._trim(game_id)

    def touch(self, game_id: str) -> None:
        """The game was used now: it moves to the back of the line."""
        account = self.games.get(game_id)
        if account is not None:
            self._used(game_id, account)
        self._trim(game_id)

    def _used(self, game_id: str, account: _Account) -> None:
        account.used = self.clock()
        self.games.move_to_end(game_id)

    def _trim(self, keep: str) -> None:
        """Forget the least recently used games while over the limit, and those idle too
        long; never `keep` (the game being used)."""
        idle_since = self.clock() - self.idle
        while self.games:
            game_id, account = next(iter(self.games.items()))
            if game_id == keep or (self.total <= self.limit and account.used >= idle_since):
                return
            self.forget(game_id)

    def forget(self, game_id: str) -> None:
        """Every cache forgets the game."""
        account = self.games.pop(game_id, None)
        if account is None:
            return
        self.total -= account.total
        self.evicted += 1
        for forget in self.caches.values():
            forget(game_id)

    def sweep(self) -> None:
        """Forget the games idle too long (and any over the limit)."""
        self._trim("")

    def figures(self) -> MemoryFigures:
        """What the caches hold: games, estimated bytes by cache, the limit."""
        by_cache: dict[str, int] = {}
        for account in self.games.values():
            for name, size in account.sizes.items():
                by_cache[name] = by_cache.get(name, 0) + size
        return {"games": len(self.games), "bytes": self.total, "limit_bytes": self.limit,
                "idle_seconds": self.idle, "evicted_games": self.evicted,
                "by_cache": dict(sorted(by_cache.items()))}


class MemoryFigures(TypedDict):
    """A process's per-game caches (/readyz `memory`, docs/operating.md "Memory")."""

    games: int  # games with something cached
    bytes: int  # their estimated size
    limit_bytes: int  # CACHE_MB
    idle_seconds: float  # CACHE_IDLE_SECONDS: a game unused this long is forgotten
    evicted_games: int  # games forgotten since the process started
    by_cache: dict[str, int]  # estimated bytes by cache (states, views, options, planner...)


BUDGET = Budget()
