"""Who must act, as the API shows it: the rules' `awaiting` entries, where a step's
choices depend on the map, pointing to the endpoint that lists them (docs/api.md,
"Who must act"): the side's legal moves, modes, attacks and releases in the action,
reaction, combat and exploitation steps, its air units' part in an ATR mission's
windows (11.18.1); a unit's reorganization plan (a URI template
with `{unit}`) in the reorganization steps."""

from __future__ import annotations

from service.rules import State, awaiting
from service.rules.awaiting import AwaitingEntry

MAP_STEPS = ("action", "reaction", "combat", "exploitation", "air.patrol", "air.flight",
             "air.intercept", "air.counter")
REORG_STEPS = ("reorganization", "final_reorganization")


def linked(entries: list[AwaitingEntry], game_id: str) -> list[AwaitingEntry]:
    """`entries` with `options` where the step's choices are listed by an endpoint."""
    out: list[AwaitingEntry] = []
    for entry in entries:
        if entry["step"] in MAP_STEPS:
            entry = {**entry, "options": f"/v1/games/{game_id}/options?side={entry['side']}"}
        elif entry["step"] in REORG_STEPS:
            entry = {**entry, "options": f"/v1/games/{game_id}/reorg/options?unit={{unit}}"}
        out.append(entry)
    return out


def awaited(state: State) -> list[AwaitingEntry]:
    """Who must act now, with where to find the choices."""
    return linked(awaiting(state), state.setup.game_id)
