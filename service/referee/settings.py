"""A player's own settings, kept with its seat and set through its token (issue 16):
`confirm_lapse` (default false) asks that the `done` of a reorganization step that
leaves RPs unspent carry `"confirm_lapse": true`, so that no RP lapses by a slip."""

from __future__ import annotations

from collections.abc import Mapping

from service.answers import PlayerSettings, SettingsShown
from service.referee import members
from service.store.uow import UnitOfWork


def _shown(stored: Mapping[str, object] | None) -> SettingsShown:
    return {"confirm_lapse": bool((stored or {}).get("confirm_lapse", False))}


async def player_settings(uow: UnitOfWork, game_id: str, token: str) -> PlayerSettings:
    player = (await members.member(uow, game_id, token)).require_player()
    return {"player_id": player.id, "settings": _shown(player.settings)}


async def set_player_settings(uow: UnitOfWork, game_id: str, token: str,
                              changes: Mapping[str, object]) -> PlayerSettings:
    """Change the caller's settings named in `changes` (the API checked their types)."""
    player = (await members.member(uow, game_id, token)).require_player()
    settings = _shown({**_shown(player.settings), **{
        k: v for k, v in changes.items() if v is not None}})
    await uow.players.update(game_id, player.id, settings=dict(settings))
    return {"player_id": player.id, "settings": settings}
