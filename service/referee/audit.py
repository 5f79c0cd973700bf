"""Replaying stored games: the current state and every snapshot must equal the fold of
the log from the scenario's initial state (docs/operating.md, "Layout").

`replay_check` runs that replay for every game in play under the code now running
(`python -m service replay-check`): when the rules changed in a way that changes what
a logged event means, it reports the first place the replay diverges and flags the
game to its GM. Nothing is rewritten: the game keeps its snapshots.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from service.clock import rfc3339, utc_now
from service.rules import RULES_VERSION, Event, evolve, initial_state
from service.rules.codec import to_data
from service.rules.state import state_from_data
from service.store.games import Game
from service.store.uow import UnitOfWork

IN_PLAY = ("open", "active", "paused")


@dataclass
class Divergence:
    """The replay first differs from what is stored at event `seq` (a snapshot, or the
    current state), after agreeing at event `after_seq`: the diverging event is in
    (after_seq, seq]. `what` says where and `path` which value differs."""

    game_id: str
    seq: int
    what: str
    after_seq: int = 0
    path: str = ""
    stored: Any = None
    replayed: Any = None
    kinds: tuple[str, ...] = ()
    rules_versions: tuple[str, ...] = ()

    def flag(self) -> dict[str, Any]:
        return {"seq": self.seq, "after_seq": self.after_seq, "what": self.what,
                "path": self.path, "stored": self.stored, "replayed": self.replayed,
                "event_kinds": list(self.kinds), "logged_rules_versions": list(
                    self.rules_versions), "rules_version": RULES_VERSION,
                "checked_at": rfc3339(utc_now())}

    def text(self) -> str:
        return (f"game {self.game_id}: diverges at event {self.seq} (after event "
                f"{self.after_seq}, which replays the same; events between: "
                f"{', '.join(self.kinds) or 'none'}): {self.what}; {self.path}: stored "
                f"{self.stored!r}, replayed {self.replayed!r} (events logged under rules "
                f"version {', '.join(self.rules_versions) or '?'}; now {RULES_VERSION})")


def first_difference(stored: object, replayed: object, path: str = ""
                     ) -> tuple[str, object, object] | None:
    """The first path (a JSON pointer) where two plain values differ."""
    if isinstance(stored, dict) and isinstance(replayed, dict):
        for key in sorted(set(stored) | set(replayed), key=str):
            found = first_difference(stored.get(key), replayed.get(key), f"{path}/{key}")
            if found is not None:
                return found
        return None
    if isinstance(stored, list) and isinstance(replayed, list) and len(stored) == len(replayed):
        for i, (a, b) in enumerate(zip(stored, replayed, strict=True)):
            found = first_difference(a, b, f"{path}/{i}")
            if found is not None:
                return found
        return None
    return None if stored == replayed else (path or "/", stored, replayed)


async def replay_game(uow: UnitOfWork, game: Game) -> Divergence | None:
    """The first place where the stored game (every snapshot, and the current state as
    this process loads it) and the replay of its log disagree."""
    current = game.state
    state = initial_state(current.setup)
    snapshots = await uow.log.snapshots(game.id)
    last = agreed = 0
    kinds: list[str] = []
    versions: set[str] = set()
    for record in await uow.log.since(game.id, 0):
        state = evolve(state, Event.from_record(record))
        last = record["seq"]
        kinds.append(record["kind"])
        versions.add(record["rules_version"])
        stored = snapshots.get(last)
        if stored is None:
            continue
        # Read through today's codec: fields added since the snapshot take their defaults.
        normalized = to_data(state_from_data(stored, current.setup))
        diff = first_difference(normalized, to_data(state))
        if diff is not None:
            return Divergence(game.id, last, "snapshot differs from the replay",
                              agreed, *diff, tuple(dict.fromkeys(kinds)),
                              tuple(sorted(versions)))
        agreed, kinds, versions = last, [], set()
    diff = first_difference(to_data(current), to_data(state))
    if diff is not None:
        return Divergence(game.id, last, "current state differs from the replay", agreed,
                          *diff, tuple(dict.fromkeys(kinds)), tuple(sorted(versions)))
    return None


async def replay_all(uow: UnitOfWork) -> list[Divergence]:
    found = []
    for game in await uow.games.in_play(None, None):
        divergence = await replay_game(uow, game)
        if divergence is not None:
            found.append(divergence)
    return found


@dataclass
class Checked:
    """A game replayed; `created_under`: the rules version it was created under, and
    `no_combat`: whether its land combats are refused for want of a combat section."""

    game_id: str
    events: int
    divergence: Divergence | None
    created_under: str = RULES_VERSION
    no_combat: bool = False

    def text(self) -> str:
        found = self.divergence.text() if self.divergence is not None else \
            f"game {self.game_id}: ok ({self.events} events replay to the stored state)"
        if self.created_under != RULES_VERSION:
            found += (f"; created under rules version {self.created_under} (now "
                      f"{RULES_VERSION}): `verify` of this release checks its export only "
                      "in part (its older events are not decided again)")
        if self.no_combat:
            found += ("; its scenario has no combat section: land combats are refused until "
                      "its GM sets one (admin.edit `combat`, docs/game-master.md \"Rules "
                      "versions\")")
        return found


def _no_combat(game: Game) -> bool:
    """Land combats refused: no table decides them and players may not report them."""
    rules = game.state.setup.scenario.combat
    return all(rules.how(by) == "none" for by in ("overrun", "combat", "barrage"))


async def replay_check(uow: UnitOfWork, game_ids: Iterable[str] | None = None
                       ) -> list[Checked]:
    """Replay every game in play (or `game_ids`) under the current rules; flag the games
    that diverge to their GM (`games.divergence`) and clear the flag of those that no
    longer do. Snapshots and events are never changed."""
    ids = None if game_ids is None else list(game_ids)
    out = []
    for game in await uow.games.in_play(IN_PLAY, ids):
        divergence = await replay_game(uow, game)
        flag = None if divergence is None else divergence.flag()
        if flag is not None or game.row.divergence is not None:
            await uow.games.update(game.id, divergence=flag)
        out.append(Checked(game.id, game.head_seq, divergence, game.row.rules_version,
                           _no_combat(game)))
    return out
