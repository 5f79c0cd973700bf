"""The game master and the game's life outside the turn (docs/game-master.md): seats,
pause, deadlines and the clock, dropouts and civil disorder, edits, key replacement,
rollback with consent, import.
"""

from service.rules.gm.bodies import (
    ActBody,
    ConsentBody,
    DeadlinesBody,
    DropoutBody,
    EditBody,
    HexChange,
    KeyAct,
    KeyBody,
    PauseBody,
    PowerEdit,
    ReasonBody,
    ReopenAct,
    RollbackBody,
    UnitEdit,
    WeatherBody,
)
from service.rules.gm.common import RULE, reason_of, side_named, with_reason
from service.rules.gm.dropouts import EVOLVE as _DROPOUTS_EVOLVE
from service.rules.gm.dropouts import declare_dropout, play_civil_disorder
from service.rules.gm.edits import EVOLVE as _EDITS_EVOLVE
from service.rules.gm.edits import edit
from service.rules.gm.lifecycle import EVOLVE as _LIFECYCLE_EVOLVE
from service.rules.gm.lifecycle import (
    clock_expired,
    create,
    end,
    force_defaults,
    pause,
    resume,
    set_deadlines,
    take_seat,
)
from service.rules.gm.rollback import EVOLVE as _ROLLBACK_EVOLVE
from service.rules.gm.rollback import (
    KEPT_KINDS,
    consent,
    import_game,
    refuse_if_proposal,
    rollback,
    rolled_back_state,
    withdraw,
)
from service.rules.gm.seats import EVOLVE as _SEATS_EVOLVE
from service.rules.gm.seats import new_key, reopen_seat, replace_key, substitute

EVOLVE = {**_LIFECYCLE_EVOLVE, **_DROPOUTS_EVOLVE, **_EDITS_EVOLVE, **_SEATS_EVOLVE,
          **_ROLLBACK_EVOLVE}

__all__ = [
    "ActBody", "ConsentBody", "DeadlinesBody", "DropoutBody", "EditBody", "HexChange",
    "KeyAct", "KeyBody", "PauseBody", "PowerEdit", "ReasonBody", "ReopenAct", "RollbackBody",
    "UnitEdit", "WeatherBody",
    "EVOLVE", "KEPT_KINDS", "RULE", "clock_expired", "consent", "create", "declare_dropout", "edit",
    "end", "force_defaults", "import_game", "new_key", "pause", "play_civil_disorder", "reason_of",
    "refuse_if_proposal", "reopen_seat", "replace_key", "resume", "rollback",
    "rolled_back_state", "set_deadlines", "side_named", "substitute", "take_seat",
    "with_reason", "withdraw",
]
