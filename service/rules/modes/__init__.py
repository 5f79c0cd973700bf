"""OCS modes (seed 004, OCS 5.0; RULES-NOTES 18, 20, 27, 28, 31, 32): mode changes,
releases, reports of what was played on the table, combat results, the combats the
scenario's tables decide and the choices they leave to players, and effective values.
"""

from service.rules.modes import vocabulary
from service.rules.modes.bodies import (
    CombatChooseBody,
    Mode,
    ModeBody,
    Orientation,
    ReleaseBody,
    ReportBody,
)
from service.rules.modes.change import EVOLVE as _CHANGE_EVOLVE
from service.rules.modes.change import change_modes, movement_end_refusal
from service.rules.modes.choice import no_choice
from service.rules.modes.choose import (
    CHOICE_STEPS,
    STANDING_ANSWERS,
    answer_by_default,
    answer_by_standing,
    choose,
)
from service.rules.modes.effective import ModeView, effective, mode_view
from service.rules.modes.face_down import EVOLVE as _FACE_DOWN_EVOLVE
from service.rules.modes.face_down import face_down_at_clean_up
from service.rules.modes.legal import UnitChoices, side_options, unit_options
from service.rules.modes.markers import ReserveMarkers, reserve_markers
from service.rules.modes.odds import OddsShown
from service.rules.modes.release import EVOLVE as _RELEASE_EVOLVE
from service.rules.modes.release import release_reserves
from service.rules.modes.report import EVOLVE as _REPORT_EVOLVE
from service.rules.modes.report import file_report
from service.rules.modes.resolve import EVOLVE as _RESOLVE_EVOLVE
from service.rules.modes.resolve import PreviewShown, preview
from service.rules.modes.results import EVOLVE as _RESULTS_EVOLVE
from service.rules.modes.results import open_combats_refusal
from service.rules.modes.vocabulary import MODES, ORIENTATIONS, impulse_marks_cleared

EVOLVE = {**_CHANGE_EVOLVE, **_RELEASE_EVOLVE, **_REPORT_EVOLVE, **_RESULTS_EVOLVE,
          **_FACE_DOWN_EVOLVE, **_RESOLVE_EVOLVE}

__all__ = [
    "CHOICE_STEPS", "EVOLVE", "MODES", "ORIENTATIONS", "STANDING_ANSWERS", "CombatChooseBody",
    "Mode", "ModeBody", "ModeView", "OddsShown", "Orientation", "PreviewShown", "answer_by_default",
    "answer_by_standing", "choose", "preview",
    "ReleaseBody", "ReportBody", "ReserveMarkers", "UnitChoices", "change_modes", "effective",
    "face_down_at_clean_up", "file_report", "impulse_marks_cleared", "mode_view",
    "movement_end_refusal", "no_choice", "open_combats_refusal", "release_reserves",
    "reserve_markers", "side_options", "unit_options", "vocabulary",
]
