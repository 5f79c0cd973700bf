"""What each event's `data` says, by kind: one registry (`EVENT_DATA`) of the rules' event
kinds and the shape of their data. The API publishes it as the `EventRecord` union the
log, the stream, the answers and the exports share (docs/api.md, "The log"); a test
holds it to `EventKind` and every event the suite's games log to its shape.

A new event kind takes one entry here (its data's TypedDict). A kind whose data a
reader may see sealed (another side's answer while its window is open) takes its data
or `Sealed`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from service.rules.air import Flight, Placement
from service.rules.events import EventKind
from service.rules.gm import HexChange, PowerEdit, UnitEdit
from service.rules.modes import Mode, OddsShown, Orientation
from service.rules.options import WeatherRow
from service.rules.reorg import PathShown, ReorgBody, ReorgItem
from service.rules.standing import Spend, StopBody
from service.rules.state import Action, AirWindow, Step
from service.rules.turn import Chit

Sides = list[str]


class Sealed(TypedDict):
    """Another side's answer while its window is open: who answered, nothing more."""

    side: str
    sealed: Literal[True]


class Reasoned(TypedDict):
    reason: str


# ---------------------------------------------------------------------- the game and its seats


class GameCreatedData(TypedDict):
    """The game as created: the scenario (its hash), the options, the dice, the sides."""

    name: str
    scenario: str
    title: str
    scenario_hash: str
    options: dict[str, Any]  # the game options (docs/rules-options.md)
    dice_mode: Literal["fair", "seeded", "scripted"]
    dice_algorithm: str
    sides: Sides
    gm_public_key: str | None


class SeatTakenData(TypedDict):
    player_id: str
    side: str
    name: str
    powers: list[str]


class NoData(TypedDict):
    """Nothing more to say than the event's kind."""


class GamePausedData(Reasoned):
    hours: int
    until: str


class GameResumedData(Reasoned):
    until: NotRequired[str]


class DeadlinesSetData(Reasoned):
    deadlines: dict[str, int | None]


class DeadlinePassedData(TypedDict):
    step: Step
    deadline: str
    sides: Sides


class DefaultForcedData(Reasoned):
    step: Step


class SideDroppedOutData(Reasoned):
    side: str
    policy: str


class SideData(TypedDict):
    side: str


class SideRestoredData(Reasoned):
    side: str


class StateEditedData(Reasoned):
    """The GM's edits; `combat`: the combat section set (every field given)."""

    units: dict[str, UnitEdit]
    hexes: dict[str, HexChange]
    powers: dict[str, PowerEdit]
    combat: NotRequired[dict[str, Any]]


class KeyReplacedData(Reasoned):
    """A player's new signing key: by the GM, or (`by` "player") by the player itself
    with its current key's consent."""

    player_id: str
    side: str
    public_key: str
    consented: bool
    effective_at: str | None
    by: NotRequired[Literal["player"]]


class SeatReopenedData(Reasoned):
    player_id: str
    side: str
    powers: list[str]


class SeatSubstitutedData(TypedDict):
    player_id: str
    old_player_id: str
    side: str
    name: str
    powers: list[str]


class GmPlayedData(Reasoned):
    side: str
    kind: str
    body: dict[str, Any]  # that order kind's body
    salt: NotRequired[str]  # a sealed answer's (a reroll), as a player's is salted
    first_window: NotRequired[int]  # a reroll standing order armed: sealed until it closes


class RollbackProposedData(Reasoned):
    """A rollback to `to_seq` (the start of `turn`.`impulse`) waiting for the sides in
    `needs`: it would abandon the events `abandons` (but `kept`) and `rolls` rolls."""

    proposal: int
    to_seq: int
    turn: int
    impulse: int
    abandons: list[int]
    kept: list[int]
    rolls: int
    needs: Sides
    requested_by: str | None
    state: dict[str, Any]  # the state to restore, in the log's encoding (the replay's)


class ProposalSideData(TypedDict):
    proposal: int
    side: str


class RollbackWithdrawnData(Reasoned):
    proposal: int


class GameRolledBackData(Reasoned):
    proposal: int | None
    to_seq: int
    turn: int
    impulse: int
    abandons: list[int]
    kept: list[int]
    rolls: int
    consents: Sides
    state: dict[str, Any]  # the state restored, in the log's encoding (the replay's)


class ImportSource(TypedDict):
    rules_version: str | None
    version: int | None
    events: int
    dice_mode: str | None


class GameImportedData(TypedDict):
    source: ImportSource
    seeds_elsewhere: list[int]


# ---------------------------------------------------------------------- dice (docs/dice.md)


class DiceCommittedData(TypedDict):
    chain: int
    from_turn: int
    anchor: str
    length: int


class DiceRecommittedData(DiceCommittedData, Reasoned):
    pass


class DiceRolledData(TypedDict):
    """A roll and its inputs: die `j` of roll `index` of `turn` (docs/dice.md)."""

    turn: int
    index: int
    purpose: str
    faces: int
    values: list[int]
    source: Literal["fair", "seeded", "scripted"]
    trigger: str
    scripted: int
    label: NotRequired[str]


class DiceRevealedData(TypedDict):
    turn: int
    seed: str


# ---------------------------------------------------------------------- the turn (seed 002)


class TurnData(TypedDict):
    turn: int


class InitiativeRolledData(TypedDict):
    dice: dict[str, int]
    boxes: dict[str, int]
    totals: dict[str, int]
    reroll: bool


class RerollAnsweredData(TypedDict):
    side: str
    demand: bool
    salt: str


class RerollClosedData(TypedDict):
    answers: dict[str, bool]
    demanded: Sides
    boxes: dict[str, int]


class InitiativeRankedData(TypedDict):
    ranking: Sides


class InitiativeChosenData(TypedDict):
    side: str
    position: Literal["first", "last", "before", "after", "remaining"]
    slot: int


class TurnOrderSetData(TypedDict):
    order: Sides


class RoundBeganData(TypedDict):
    round: int


class WeatherTableSetData(Reasoned):
    table: list[WeatherRow] | None
    from_turn: int | None


class ImpulseBeganData(TypedDict):
    impulse: int
    side: str


class StepBeganData(TypedDict):
    step: Step
    sides: Sides
    chooser: NotRequired[str]
    positions: NotRequired[list[str]]


class StepSkippedData(Reasoned):
    step: Step
    skipped: NotRequired[list[Step]]


class SideSkippedData(Reasoned):
    side: str
    step: Step


class PowerDeclaredData(TypedDict):
    power: str
    action: Action
    chit: Chit | None


class SideDoneData(TypedDict):
    side: str
    step: Step


class ImpulseCleanedUpData(TypedDict):
    side: str
    units: list[str]


class RpsGrantedData(TypedDict):
    rps: dict[str, int]


class TurnEndRolledData(TypedDict):
    side: str
    values: list[int]
    bonus_per_die: int
    added: int
    total: int
    threshold: int
    last_die: int
    certain: bool
    ends: bool


class ImpulseEndedData(TypedDict):
    side: str
    impulses_taken: int


class TurnEndedData(TypedDict):
    turn: int
    impulses_taken: dict[str, int]


class InitiativeShiftedData(TypedDict):
    before: dict[str, int]
    boxes: dict[str, int]
    rank: Sides


class ProductionSubmittedData(TypedDict):
    """A power's production: the BPs spent and those on RPs, checked against the
    scenario's `build_points` when it gives them (`reported`: taken as the player said)."""

    power: str
    bp_spent: int
    bp_on_rps: int
    next_turn_rps: int
    build_points: NotRequired[int | None]
    reported: NotRequired[bool]


class Production(TypedDict):
    bp_spent: int
    bp_on_rps: int


class ProductionAppliedData(TypedDict):
    powers: dict[str, Production]


# ---------------------------------------------------------------------- reorganization (11.18)


class ReorganizedData(TypedDict):
    """One item of a `reorg` order: what it cost and used, and the path for people."""

    period: str
    power: str
    unit: str | None
    method: str
    item: ReorgItem
    cost: int
    full_cost: int
    rps_left: int
    provider: str | None
    path: PathShown | None
    uses: dict[str, int]
    dispensed: list[list[str]]
    flips: list[str]
    expends: str | None
    repairs: str | None
    isolated: str | None
    shattered: bool
    notes: list[str]
    fuel: NotRequired[int]  # the fuel the item spent, when the scenario has fuel (RULES-NOTES 30)
    fuel_left: NotRequired[int]  # the paying power's stock after it


class RpsLapsedData(TypedDict):
    power: str
    amount: int
    side: str
    step: Step


# ---------------------------------------------------------------------- OCS modes (seed 004)


class ModeSet(TypedDict):
    mode: Mode | None
    orientation: Orientation | None


# `from` is a Python keyword: the keys named so take the functional syntax.
_ModeFrom = TypedDict("_ModeFrom", {"from": ModeSet})


class ModeChangedData(_ModeFrom):
    unit: str
    side: str
    hex: str
    mode: Mode
    orientation: Orientation


class ReservesReleasedData(TypedDict):
    side: str
    step: Step
    units: list[str]
    orientations: dict[str, Orientation]


class ReportFiledData(TypedDict):
    side: str
    step: Step
    moves: int
    works: int
    missions: int
    combats: int
    face_down: int


_Moved = TypedDict("_Moved", {"from": str})


class UnitMovedData(_Moved):
    """A move: `mp` charged against the allowance, `cost` the terrain's, the path and
    how it went; a carrier's own move names the unit it is `carrying`."""

    unit: str
    to: str
    mp: float
    transport: str | None
    path: list[str]
    step: Step
    cost: NotRequired[float]
    filled: NotRequired[bool]
    notes: NotRequired[list[str]]
    seas: NotRequired[list[str]]
    carrier: NotRequired[str]
    rail_power: NotRequired[str]
    carrying: NotRequired[str]


class UnitWorkedData(TypedDict):
    unit: str
    work: str
    hex: str


class CombatData(TypedDict):
    side: str
    step: Step
    by: Literal["overrun", "combat", "barrage", "naval"]
    hex: str
    attackers: list[str]
    defenders: list[str]


class CombatReportedData(CombatData):
    dice: NotRequired[str]


class CombatRolledData(CombatData):
    dice: str
    values: list[int]


class TaskShown(TypedDict):
    """One thing a table's result still does to a combat: its kind, whose units, how
    many steps or hexes (`value`; a retreat's option hexes `extra`, the losses due with
    it `due`), and once chosen the units, path and enemy-ZOC losses named."""

    kind: str
    who: str
    value: int
    extra: int
    path: list[str]
    losses: list[str]
    units: list[str]
    chosen: bool
    due: int


class Effect(TypedDict):
    kind: str
    value: int


class CombatResolvedData(TypedDict):
    """A combat the scenario's table decided: the odds, the roll (none for an automatic
    overrun), the cell read (`code`, `row`, `effects`) and what it still does (`tasks`)."""

    side: str
    defender: str
    step: Step
    by: Literal["overrun", "combat", "barrage", "naval"]
    hex: str
    attackers: list[str]
    defenders: list[str]
    odds: OddsShown
    surprise: str | None
    values: list[int]
    total: int | None
    code: str
    effects: list[Effect]
    tasks: list[TaskShown]
    dice: NotRequired[str]
    row: NotRequired[str]


class QuestionShown(TypedDict):
    """What a combat's result leaves to a side (docs/api.md "Combat choices")."""

    kind: str
    side: str
    of: str
    count: int
    units: list[str]
    paths: list[list[str]]
    default: list[str]
    asked_at: str
    text: str
    zoc: list[str]


class CombatAskedData(TypedDict):
    hex: str
    question: QuestionShown
    tasks: list[TaskShown]


class CombatAnsweredData(TypedDict):
    """A side's answer (`how`: by its order, its standing order, the default): the units
    or the retreat's path, and the enemy-ZOC losses named with a retreat."""

    hex: str
    kind: str
    side: str
    answer: list[str]
    losses: list[str]
    how: str
    tasks: list[TaskShown]


class NoRetreatData(TypedDict):
    hex: str
    units: list[str]
    rule: str


class CombatClosedData(TypedDict):
    """A combat ended: a table's result code, and for an overrun whether it emptied the
    hex (`succeeded`); a reported one says neither."""

    hex: str
    by: str
    code: NotRequired[str]
    succeeded: NotRequired[bool]


class ResultIgnoredData(TypedDict):
    hex: str
    text: str


class Caused(TypedDict):
    """Why it happened (a combat result, clean up, a mission) and the rule."""

    cause: str
    rule: str


class HexDisorganizedData(Caused):
    hex: str
    units: list[str]
    markers_removed: dict[str, str]  # the mode marker taken off, by unit
    trucks: list[str]


class ReserveRemovedData(TypedDict):
    hex: str
    units: list[str]
    rule: str


_Retreated = TypedDict("_Retreated", {"from": str})


class UnitsRetreatedData(_Retreated):
    units: list[str]
    to: str
    hexes: int
    enemy_zoc: bool


class UnitsAdvancedData(TypedDict):
    units: list[str]
    to: str


class StepLostData(Caused):
    unit: str
    steps: int


class EliminatedData(Caused):
    unit: str
    hex: str


class ExploitAwardedData(TypedDict):
    units: list[str]
    rating: int
    hex: str


class TurnedFaceDownData(TypedDict):
    units: list[str]
    cause: NotRequired[str]
    rule: NotRequired[str]


class ShatteredData(Caused):
    units: list[str]
    hex: str


class FlewMissionData(TypedDict):
    unit: str
    to: str
    base: str | None
    mission: str
    result: Literal["shattered", "eliminated"] | None
    step: Step


# ---------------------------------------------------------------------- standing orders (issue 20)


class StandingNamed(TypedDict):
    """The standing order (or held steps) by the side, step, kind, and the order that
    armed it (`player`, `seq`)."""

    side: str
    step: str
    kind: Literal["standing", "steps"]
    player: str
    seq: int | None


class StandingArmedData(StandingNamed):
    """Armed: its stops and, by step, the reroll's answer (`demand`, sealed until its
    `first_window` closes) or how the final reorganization spends (`spend`, `plan`); a
    `steps` order's holding (`turn`, `impulse`, `after`)."""

    stops: list[StopBody]
    hits_seen: int
    demand: NotRequired[bool]
    salt: NotRequired[str]  # the referee's, so that the hash does not tell the demand
    spend: NotRequired[Spend]
    plan: NotRequired[list[ReorgBody]]
    first_window: NotRequired[int]
    turn: NotRequired[int]
    impulse: NotRequired[int]
    after: NotRequired[str]
    patrols: NotRequired[list[Placement]]  # a standing combat air patrol (11.18.1 step 1)
    # a combat choice's standing answer (docs/api.md "Combat choices", RULES-NOTES 32)
    answer: NotRequired[Literal["default", "retreat", "losses", "advance", "stay"]]


class StandingDisarmedData(StandingNamed, Reasoned):
    stop: str | None  # the stop that held (its kind), or null: disarmed by hand


# ---------------------------------------------------------------------- ATR missions (issue 31)


class AirMissionBeganData(TypedDict):
    """A side flies air reorganization (11.18.1): the potential target hexes."""

    side: str
    targets: list[str]


class AirWindowData(TypedDict):
    """A window of the mission, the flying side's (`side`), and the rule (its step)."""

    window: AirWindow
    side: str
    rule: str


class AirWindowOpenedData(AirWindowData):
    sides: list[str]
    hexes: list[str]  # where its fighters may fly


class AirWindowSkippedData(AirWindowData, Reasoned):
    pass


class AirAnsweredBy(TypedDict):
    """Who answered a window (`side`) and how: `chosen`, `default, by ...`, `standing
    order`."""

    side: str
    window: AirWindow
    how: str


class AirPatrolledData(AirAnsweredBy):
    patrols: list[Placement]


class AirFlownData(AirAnsweredBy):
    power: str | None
    flights: list[Flight]
    escorts: list[Placement]


class AirInterceptedData(AirAnsweredBy):
    interceptors: list[Placement]


class AirEffect(TypedDict):
    kind: str
    value: int | None


class AirRoll(TypedDict):
    """A table read: the column and the odds in words, the dice, the total, the row, the
    cell's codes and what they mean."""

    column: str
    text: str
    dice: str
    values: list[int]
    total: int
    row: str
    code: str
    effects: list[AirEffect]


class AirDue(TypedDict):
    """Aircraft a side still loses and aborts by the result."""

    side: str
    lost: int
    aborted: int


class AirCombatData(AirRoll):
    """An air-to-air combat over `hex` (11.18.1 step 5): the enemy side's fighters
    (`interceptors`, their factors: `attack`) against the mission's aircraft (`defence`),
    and the losses due."""

    side: str
    hex: str
    against: str
    key: str
    interceptors: list[str]
    mission: list[str]
    attack: int
    defence: int
    due: list[AirDue]


class AirQuestionData(TypedDict):
    side: str
    hex: str
    against: str
    lost: int
    aborted: int
    units: list[str]
    default: list[str]
    asked_at: str
    text: str


class AirAskedData(TypedDict):
    window: AirWindow
    question: AirQuestionData


class AirLossesData(TypedDict):
    """A side's aircraft lost and aborted over `hex`, and how they were named."""

    side: str
    hex: str
    lost: list[str]
    aborted: list[str]
    how: str


class AirAaFiredData(AirRoll):
    """AA fire on an ATR (11.18.1 step 6): the units firing, their factors' sum, and what
    became of it ("", `aborted`, `eliminated`)."""

    atr: str
    hex: str
    units: list[str]
    strength: int
    result: Literal["", "aborted", "eliminated"]


class AirMissionEndedData(TypedDict):
    """Step 8: the aircraft that return to base face down; what was not reorganized."""

    side: str
    returned: list[str]
    note: str


# Every event kind and the shape of its data.
EVENT_DATA: Mapping[EventKind, object] = {
    "game.created": GameCreatedData,
    "seat.taken": SeatTakenData,
    "game.started": NoData,
    "game.paused": GamePausedData,
    "game.resumed": GameResumedData,
    "game.ended": Reasoned,
    "deadlines.set": DeadlinesSetData,
    "deadline.passed": DeadlinePassedData,
    "default.forced": DefaultForcedData,
    "side.dropped_out": SideDroppedOutData,
    "side.returned": SideData,
    "side.restored": SideRestoredData,
    "state.edited": StateEditedData,
    "player.key_replaced": KeyReplacedData,
    "seat.reopened": SeatReopenedData,
    "seat.substituted": SeatSubstitutedData,
    "gm.played": GmPlayedData,
    "rollback.proposed": RollbackProposedData,
    "rollback.consented": ProposalSideData,
    "rollback.refused": ProposalSideData,
    "rollback.withdrawn": RollbackWithdrawnData,
    "game.rolled_back": GameRolledBackData,
    "game.imported": GameImportedData,
    "dice.committed": DiceCommittedData,
    "dice.rolled": DiceRolledData,
    "dice.revealed": DiceRevealedData,
    "dice.recommitted": DiceRecommittedData,
    "turn.began": TurnData,
    "initiative.rolled": InitiativeRolledData,
    "initiative.reroll_answered": RerollAnsweredData | Sealed,
    "initiative.reroll_closed": RerollClosedData,
    "initiative.ranked": InitiativeRankedData,
    "initiative.chosen": InitiativeChosenData,
    "turn.order_set": TurnOrderSetData,
    "round.began": RoundBeganData,
    "weather.set": WeatherRow,
    "weather.table_set": WeatherTableSetData,
    "impulse.began": ImpulseBeganData,
    "step.began": StepBeganData,
    "step.skipped": StepSkippedData,
    "side.skipped": SideSkippedData,
    "power.declared": PowerDeclaredData,
    "side.done": SideDoneData,
    "impulse.cleaned_up": ImpulseCleanedUpData,
    "rps.granted": RpsGrantedData,
    "turn_end.rolled": TurnEndRolledData,
    "impulse.ended": ImpulseEndedData,
    "turn.ended": TurnEndedData,
    "initiative.shifted": InitiativeShiftedData,
    "production.submitted": ProductionSubmittedData,
    "production.applied": ProductionAppliedData,
    "unit.reorganized": ReorganizedData,
    "port.repaired": ReorganizedData,
    "rps.lapsed": RpsLapsedData,
    "unit.mode_changed": ModeChangedData,
    "reserves.released": ReservesReleasedData,
    "report.filed": ReportFiledData,
    "unit.moved": UnitMovedData,
    "unit.worked": UnitWorkedData,
    "combat.reported": CombatReportedData,
    "combat.result_ignored": ResultIgnoredData,
    "hex.disorganized": HexDisorganizedData,
    "reserve.removed": ReserveRemovedData,
    "units.retreated": UnitsRetreatedData,
    "units.advanced": UnitsAdvancedData,
    "unit.step_lost": StepLostData,
    "unit.eliminated": EliminatedData,
    "units.exploit_awarded": ExploitAwardedData,
    "units.turned_face_down": TurnedFaceDownData,
    "units.shattered": ShatteredData,
    "unit.flew_mission": FlewMissionData,
    "combat.rolled": CombatRolledData,
    "combat.closed": CombatClosedData,
    "combat.resolved": CombatResolvedData,
    "combat.asked": CombatAskedData,
    "combat.answered": CombatAnsweredData,
    "combat.no_retreat": NoRetreatData,
    "standing.armed": StandingArmedData | Sealed,
    "standing.answered": StandingNamed | Sealed,
    "standing.disarmed": StandingDisarmedData,
    "air.mission_began": AirMissionBeganData,
    "air.window_opened": AirWindowOpenedData,
    "air.window_skipped": AirWindowSkippedData,
    "air.patrolled": AirPatrolledData,
    "air.flown": AirFlownData,
    "air.intercepted": AirInterceptedData,
    "air.combat_resolved": AirCombatData,
    "air.asked": AirAskedData,
    "air.answered": AirLossesData,
    "air.losses_taken": AirLossesData,
    "air.aa_fired": AirAaFiredData,
    "air.mission_ended": AirMissionEndedData,
}
