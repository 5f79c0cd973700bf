"""The state of a game: frozen values, changed only by `evolve`.

`Setup` is what never changes after creation (scenario, options, dice mode); it rides
along with the state but is not part of a snapshot. The exceptions are the GM's edits:
the map's (hex control, port damage) and a combat section set for a game without
combat tables (docs/game-master.md "Rules versions"). They are kept in the state
(`map_edits`, `combat_section`) and the setup's scenario is the created scenario with
them applied (`with_map_edits`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Final, Literal, get_args

from service.rules.codec import from_data
from service.rules.events import Event
from service.rules.options import WeatherRow
from service.rules.scenario import HEXSIDE_FEATURES, TERRAINS, Scenario, read_combat


@dataclass(frozen=True, slots=True)
class Release:
    """The release in progress (OCS 5.7b): only these units may still move and overrun;
    releasing more ends their movement."""

    side: str
    step: str
    units: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OpenCombat:
    """A combat, overrun or barrage whose dice the referee rolled, waiting for the result
    the table reads from them (a later `report`); cleared at clean up."""

    side: str
    step: str
    by: str
    attackers: tuple[str, ...]
    defenders: tuple[str, ...]
    dice: str
    values: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Task:
    """One thing a table's result still does to a combat (`service.rules.modes.resolve`):
    its `kind`, whose units (`who`: attacker or defender), how many steps or hexes
    (`value`; a retreat's option hexes in `extra` and the step losses due with it in
    `due`), and once a player chose (`chosen`): the units named (`units`), or the
    retreat's path and the units named for its enemy-ZOC losses (`losses`)."""

    kind: str
    who: str = ""
    value: int = 0
    extra: int = 0
    path: tuple[str, ...] = ()
    losses: tuple[str, ...] = ()
    units: tuple[str, ...] = ()
    chosen: bool = False
    due: int = 0


@dataclass(frozen=True, slots=True)
class Question:
    """What a combat's result leaves to a side (docs/api.md "Combat choices"): which of
    `units` take `count` step losses (`losses`), whether and where the `units` retreat
    (`retreat`: one of `paths`, at least `count` hexes), or which of `units` advance
    (`advance`); the answer given when nobody does (`default`), when it was asked, and
    the hexes of the retreat paths in an enemy ZOC (`zoc`)."""

    kind: str
    side: str
    of: str
    count: int
    units: tuple[str, ...]
    paths: tuple[tuple[str, ...], ...] = ()
    default: tuple[str, ...] = ()
    asked_at: str = ""
    text: str = ""
    zoc: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Resolution:
    """A combat, overrun or barrage the referee is deciding by its table: the cell it
    read (`code`), what is left to apply in order (`tasks`) and the question a side must
    answer before it goes on. The game waits for that answer (step `combat.choice`)."""

    side: str
    defender: str
    step: str
    by: str
    hex: str
    attackers: tuple[str, ...]
    defenders: tuple[str, ...]
    code: str
    tasks: tuple[Task, ...] = ()
    question: Question | None = None


@dataclass(frozen=True, slots=True)
class Hit:
    """How often a side's units were attacked (an overrun, combat, barrage or naval
    combat reported against them) over the game, and the newest attack: what a
    standing order's `unit_attacked` stop compares with what it saw (issue 20)."""

    count: int
    by: str
    hex: str
    attacker: str
    turn: int
    impulse: int


@dataclass(frozen=True, slots=True)
class ModeState:
    """Side-wide mode bookkeeping: the release in progress, the units eliminated (by
    result or OCS 5.8a) with the hex they were eliminated in (they leave `units`), the
    combats rolled and waiting for their results, by hex, the attacks each side's
    units suffered (`hits`, by side), and the combat the referee is deciding by its
    table (`resolution`)."""

    release: Release | None = None
    eliminated: dict[str, str] = field(default_factory=dict)
    combats: dict[str, OpenCombat] = field(default_factory=dict)
    hits: dict[str, Hit] = field(default_factory=dict)
    resolution: Resolution | None = None


@dataclass(frozen=True, slots=True)
class Sortie:
    """An aircraft flying in an air reorganization mission (11.18.1): the unit, the hex it
    flew to from its base (where it stands), why (`patrol`, `atr`, `escort`, `intercept`,
    `counter`), its side, and what became of it (`fate`: "", "lost" or "aborted")."""

    unit: str
    hex: str
    role: str
    side: str
    fate: str = ""


@dataclass(frozen=True, slots=True)
class AirQuestion:
    """What an air-to-air result leaves to a side (11.18.1 step 5): which of `units`, its
    aircraft in the combat over `hex` (against side `against`), are `lost` and which
    `aborted`; the answer given when nobody does (`default`: the lost first, then the
    aborted), when it was asked, the question in words."""

    side: str
    hex: str
    against: str
    lost: int
    aborted: int
    units: tuple[str, ...]
    default: tuple[str, ...]
    asked_at: str
    text: str


@dataclass(frozen=True, slots=True)
class AirMission:
    """An air reorganization mission of `side` (11.18.1; docs/rules-options.md "ATR
    missions"): the window open (`air.patrol`, `air.flight`, `air.intercept`,
    `air.counter`, `air.choice`; "" while the referee resolves), the sides it awaits
    and those that answered, when it opened, the potential target hexes of step 1,
    the power paying for the flight's reorganization and its items (unit, ATR), every
    aircraft in the air, the air-to-air combats fought ("hex|side"), the losses the
    last one's result still deals (side, lost, aborted) and the question they ask."""

    side: str
    window: str
    sides: tuple[str, ...] = ()
    answered: tuple[str, ...] = ()
    opened_at: str = ""
    targets: tuple[str, ...] = ()
    power: str | None = None
    items: tuple[tuple[str, str], ...] = ()
    sorties: tuple[Sortie, ...] = ()
    fought: tuple[str, ...] = ()
    due: tuple[tuple[str, int, int], ...] = ()
    question: AirQuestion | None = None


@dataclass(frozen=True, slots=True)
class Stop:
    """A stop condition of a standing order (docs/api.md "Standing orders"): when it
    holds as the order would answer, the order is disarmed instead, with the reason.
    `within`: the initiative difference of `initiative_close`."""

    kind: str
    within: int | None = None


@dataclass(frozen=True, slots=True)
class Standing:
    """A standing order (issue 20): the server answers `step` for `side` when the game
    awaits it there, until a stop holds or a player disarms it. Armed by `player`'s
    signed `standing` order `seq` (None when the GM armed it for a side it plays).
    `demand` is the answer of an `initiative.reroll` standing order, and
    `first_window` the turn whose reroll window it first answers (its arming is sealed
    from the other sides until that window closes). `hits_seen`: the side's attack
    count (`ModeState.hits`) when it was armed or last answered; `adjacent_seen`: the
    enemy units then next to one of the side's Reserve units ("enemy>reserve").
    A `final_reorganization` order spends before its `done`: the `reorg` bodies of
    `plan`, then, with `spend` "cheapest", the cheapest legal way for every unit still
    face down ("none": orders armed before issue 30 only answered `done`). `answer`:
    what a standing order for a combat choice answers (`combat.retreat`: "retreat" or
    "losses", ...; docs/api.md "Combat choices")."""

    side: str
    step: str
    player: str
    seq: int | None
    stops: tuple[Stop, ...] = ()
    demand: bool = False
    first_window: int = 0
    hits_seen: int = 0
    adjacent_seen: tuple[str, ...] = ()
    spend: str = "none"
    plan: tuple[dict[str, Any], ...] = ()
    answer: str | None = None


@dataclass(frozen=True, slots=True)
class Held:
    """What a `steps` order holds for later (issue 20): `done` for `side` in each of its
    steps of impulse `impulse` of turn `turn` after `after` up to `through`, unless a
    stop holds first. Named by `player`'s `seq` like a standing order."""

    side: str
    player: str
    seq: int | None
    turn: int
    impulse: int
    after: str
    through: str
    stops: tuple[Stop, ...] = ()
    hits_seen: int = 0
    adjacent_seen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StandingState:
    """The standing orders armed, by side and step, and what `steps` orders hold, by
    side."""

    orders: dict[str, dict[str, Standing]] = field(default_factory=dict)
    held: dict[str, Held] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ReorgState:
    """Reorganization's memory.

    Per period: `reorganized` units (a unit is reorganized at most once per impulse,
    11.18; a shattered one thus needs two periods), capacity `used` by key (see
    `service.rules.reorg_methods`: "port:1333", "corps:1227", "hq:cw-hq-monty",
    "rail:cw", ...), and how each provider unit `dispensed` RPs ("hq", "secondary",
    "primary", "atr:<hex flown to>", "trs", "expended:<hex>"); a hex whose supply
    units made it a source that dispensed (a city, an HQ's hex) is "propped".
    Per turn: `isolated`, the period in which each out-of-communication primary source
    dispensed RPs (11.18.5: once per turn).
    For good: `repaired_ports` (RULES-NOTES 23)."""

    period: str = ""
    reorganized: tuple[str, ...] = ()
    used: dict[str, int] = field(default_factory=dict)
    dispensed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    isolated: dict[str, str] = field(default_factory=dict)
    repaired_ports: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RailState:
    """Rail moves used per major power in `period` (`rail_period`): by the moves
    reported with transport "rail" and by railway reorganization (11.18.6, "any
    unused rail moves"). Counters of another period are spent ones: `State.rail_used`
    reads them as 0, so nothing needs resetting when an impulse begins."""

    period: str = ""
    used: dict[str, int] = field(default_factory=dict)


# Step names in turn order (docs/api.md).
Step = Literal[
    "join", "initiative.reroll", "initiative.choose", "declare", "action", "reaction",
    "combat", "exploitation", "reorganization", "final_reorganization", "production",
    "finished",
]
# What an order's `step` and `position.step` name: a step, `consent` while a rollback
# proposal waits for the sides' consent (docs/game-master.md), `combat.choice` while
# a combat's result waits for a side's choice (docs/api.md "Combat choices"), or a
# window of an air reorganization mission (11.18.1; docs/api.md "ATR missions").
AirWindow = Literal["air.patrol", "air.flight", "air.intercept", "air.counter", "air.choice"]
AIR_WINDOWS: tuple[AirWindow, ...] = get_args(AirWindow)
PositionStep = Literal[Step, "consent", "combat.choice", AirWindow]
JOIN: Final = "join"
REROLL: Final = "initiative.reroll"
CHOOSE: Final = "initiative.choose"
DECLARE: Final = "declare"
ACTION: Final = "action"
REACTION: Final = "reaction"
COMBAT: Final = "combat"
EXPLOITATION: Final = "exploitation"
REORGANIZATION: Final = "reorganization"
FINAL_REORGANIZATION: Final = "final_reorganization"
PRODUCTION: Final = "production"
FINISHED: Final = "finished"
STEPS: tuple[Step, ...] = get_args(Step)
SIDE_STEPS: tuple[Step, ...] = (REROLL, ACTION, REACTION, COMBAT, EXPLOITATION,
                                REORGANIZATION, FINAL_REORGANIZATION)
POWER_STEPS: tuple[Step, ...] = (DECLARE, PRODUCTION)


# Seed 002: bonuses of the five initiative boxes, left to right; the first three allow
# a reroll attempt.
BOX_BONUS = (2, 1, 0, 0, 0)
REROLL_BOXES = 3


def step_rule(step: str) -> str | None:
    """The rule that puts an order in its step, cited when an order comes at the wrong
    step or from a side the step does not ask: the initiative's (seed 002), the
    reorganization's (11.18), an impulse's OCS phases (RULES-NOTES 31); production and
    the joining of seats follow no rules text."""
    if step in (REROLL, CHOOSE):
        return "seed 002 Initiative Track"
    if step in (REORGANIZATION, FINAL_REORGANIZATION):
        return "11.18"
    if step in (DECLARE, ACTION, REACTION, COMBAT, EXPLOITATION):
        return "RULES-NOTES 31"
    return None
Action = Literal["pass", "land", "air", "naval", "combined"]
ACTIONS: tuple[Action, ...] = get_args(Action)
ChitKind = Literal["air", "land", "naval", "combined", "reorganize_hqs", "reorganize_units"]
CHIT_KINDS: tuple[ChitKind, ...] = get_args(ChitKind)


@dataclass(frozen=True, slots=True)
class Setup:
    """`scenario` is the scenario in play: the created one (`base`, None when no map
    edit applies) with the GM's map edits."""

    game_id: str
    scenario: Scenario
    options: dict[str, Any]
    dice_mode: Literal["fair", "seeded", "scripted"]
    base: Scenario | None = field(default=None, compare=False)

    @property
    def sides(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.scenario.sides)

    def original(self) -> Setup:
        """The setup as created, without map edits."""
        if self.base is None:
            return self
        return Setup(self.game_id, self.base, self.options, self.dice_mode)


@dataclass(frozen=True, slots=True)
class Seat:
    """A player's seat. `vacant`: the GM reopened it for a substitute (the player's
    token is revoked); the powers stay with the seat until the substitute joins."""

    player_id: str
    side: str
    name: str
    powers: tuple[str, ...]
    vacant: bool = False


@dataclass(frozen=True, slots=True)
class HexEdit:
    """A hex's control and port damage as the GM set them (over the scenario's)."""

    controller: str | None
    port_damaged: bool


@dataclass(frozen=True, slots=True)
class SideControl:
    """Who plays a side: its players (`mode` None), or after a dropout the side's
    policy: "gm" (the GM plays it), "substitute" (awaiting a substitute player) or
    "civil_disorder" (default orders, at once). `missed` counts the deadlines the side
    missed in a row (clock-forced defaults)."""

    missed: int = 0
    mode: str | None = None


@dataclass(frozen=True, slots=True)
class Proposal:
    """A rollback past revealed dice, waiting for the consent of `needs`. It would
    restore the state after event `to_seq` (the start of impulse `impulse` of turn
    `turn`) and abandon events `abandons` (first, last) except those in `kept`;
    `restore` is that state's plain data, so the last consent completes the rollback
    like any other order."""

    number: int
    to_seq: int
    turn: int
    impulse: int
    reason: str
    needs: tuple[str, ...]
    abandons: tuple[int, int]
    rolls: int
    kept: tuple[int, ...] = ()
    requested_by: str | None = None
    consented: tuple[str, ...] = ()
    restore: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class UnitState:
    """A unit on the map. `mode` and `orientation` are OCS's (seed 004, OCS 5.2), apart
    from WiF's face up / down (RULES-NOTES 18); `steps_lost` counts step losses
    reported. The rest is what the unit did this impulse, cleared at clean up:
    `mode_changed` (OCS 5.4, once as it begins to move), `moved`, `attacked`, `released`
    (the step it was released in, OCS 5.7b) and `mp_used` in step `mp_step`."""

    power: str
    at: str
    face_up: bool
    shattered: bool
    mode: str | None = None
    orientation: str | None = None
    steps_lost: int = 0
    mode_changed: bool = False
    moved: bool = False
    attacked: bool = False
    released: str | None = None
    mp_used: float = 0.0
    mp_step: str | None = None


@dataclass(frozen=True, slots=True)
class PowerState:
    side: str
    neutral: bool
    conquered: bool
    bp_spent_last_turn: int
    bp_on_rps: int
    chits: int
    rps: int = 0
    holder: str | None = None
    declared: str | None = None
    chit: dict[str, Any] | None = None
    production: dict[str, int] | None = None
    fuel: int | None = None  # the scenario's fuel (RULES-NOTES 30); None: no fuel in it


@dataclass(frozen=True, slots=True)
class InitiativeState:
    boxes: dict[str, int]
    last_turn_rank: tuple[str, ...]
    dice: dict[str, int] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    rerolled: bool = False
    eligible: tuple[str, ...] = ()
    answers: dict[str, bool] = field(default_factory=dict)
    ranking: tuple[str, ...] = ()
    slots: tuple[str | None, ...] = ()
    chooser: str | None = None


@dataclass(frozen=True, slots=True)
class TurnState:
    threshold: int
    number: int = 0
    round: int = 0
    impulse: int = 0
    phasing_side: str | None = None
    step: Step = JOIN
    order: tuple[str, ...] = ()
    turn_end_total: int = 0
    turn_end_bonus: int = 0  # of the total, what passing powers added (seed 002)
    weather: WeatherRow | None = None
    impulses_taken: dict[str, int] = field(default_factory=dict)
    step_sides: tuple[str, ...] = ()
    sides_done: tuple[str, ...] = ()
    step_started_at: str | None = None


@dataclass(frozen=True, slots=True)
class Chain:
    """A hash chain of turn seeds (docs/dice.md): chain `number` (0 from the game's
    creation, then one per new commitment) covers `length` turns from `from_turn`;
    `anchor` is the hash its first seed hashes to."""

    number: int
    from_turn: int
    anchor: str
    length: int

    def covers(self, turn: int) -> bool:
        return self.from_turn <= turn < self.from_turn + self.length


@dataclass(frozen=True, slots=True)
class DiceState:
    """The dice record: the chains, what each turn's seed must hash to (`commitments`:
    the chain's anchor, or the seed revealed the turn before), the seeds revealed, the
    rolls of this turn, the GM's script used, and the `trigger` of the last roll (for a
    roll no signed command makes: a deadline's default). `elsewhere`: turns whose seed
    stayed on the server the game was imported from."""

    rolls_this_turn: int = 0
    script_used: dict[str, int] = field(default_factory=dict)
    chains: tuple[Chain, ...] = ()
    commitments: dict[int, str] = field(default_factory=dict)
    revealed: dict[int, str] = field(default_factory=dict)
    trigger: str = ""
    elsewhere: tuple[int, ...] = ()

    def chain_of(self, turn: int) -> Chain | None:
        """The newest chain that covers `turn`."""
        return next((c for c in reversed(self.chains) if c.covers(turn)), None)


@dataclass(frozen=True, slots=True)
class State:
    status: Literal["open", "active", "paused", "finished"]
    turn: TurnState
    initiative: InitiativeState
    powers: dict[str, PowerState]
    units: dict[str, UnitState]
    seats: dict[str, Seat] = field(default_factory=dict)
    dice: DiceState = field(default_factory=DiceState)
    deadlines: dict[str, int] = field(default_factory=dict)
    paused_at: str | None = None
    weather_override: list[WeatherRow] | None = None
    weather_pending: tuple[int, list[WeatherRow] | None] | None = None
    reorg: ReorgState = field(default_factory=ReorgState)
    modes: ModeState = field(default_factory=ModeState)
    pause_until: str | None = None
    map_edits: dict[str, HexEdit] = field(default_factory=dict)
    # The combat section the GM set (the scenario format's JSON), None: the scenario's.
    combat_section: dict[str, Any] | None = None
    dropouts: dict[str, SideControl] = field(default_factory=dict)
    proposal: Proposal | None = None
    proposals: int = 0
    rail: RailState = field(default_factory=RailState)
    standing: StandingState = field(default_factory=StandingState)
    air: AirMission | None = None
    setup: Setup = field(default=None, metadata={"transient": True}, compare=False)  # type: ignore[assignment]

    @property
    def step(self) -> Step:
        return self.turn.step

    def side_powers(self, side: str) -> tuple[str, ...]:
        """The side's powers in scenario order (stored dicts do not keep their order)."""
        return tuple(p.id for p in self.setup.scenario.powers if p.side == side)

    def weather_table(self) -> list[WeatherRow]:
        table: list[WeatherRow] = self.setup.options["weather"]["table"]
        return self.weather_override or table

    def rail_used(self, power: str) -> int:
        """Rail moves major power `power` used in the current impulse (11.18.6)."""
        if self.rail.period != rail_period(self.turn):
            return 0
        return self.rail.used.get(power, 0)

    def rail_left(self, power: str) -> int:
        """11.18.6: major power `power`'s rail moves for the impulse (the scenario's
        `rail_moves`) less those used by moves and railway reorganization."""
        return max(0, self.setup.scenario.power(power).rail_moves - self.rail_used(power))

    def with_rail_move(self, power: str) -> State:
        """The state once major power `power` used one more rail move (11.18.6)."""
        period = rail_period(self.turn)
        used = dict(self.rail.used) if self.rail.period == period else {}
        used[power] = used.get(power, 0) + 1
        return replace(self, rail=RailState(period, used))


# What changes when nothing on the map does: standing orders (issue 20), the dice a
# `roll` draws, deadlines, seats, rollback proposals. No unit's legal choices (OCS
# 5.3-5.9), reorganization plan (11.18) or supply reads them.
OFF_THE_MAP: Final = frozenset({"standing", "dice", "deadlines", "seats", "proposal",
                                "proposals"})
_ON_THE_MAP: Final = tuple(f.name for f in fields(State)
                           if f.name not in OFF_THE_MAP and f.name != "setup")


def same_map(before: State, after: State) -> bool:
    """Whether `after` differs from `before` (a state of the same game) only off the
    map (`OFF_THE_MAP`): then every unit's legal choices and plans are the same, and
    what was computed for `before` holds for `after` (a standing order bumps a game's
    version but costs the opponent nothing)."""
    if before.setup is not after.setup:
        return False
    for name in _ON_THE_MAP:
        a, b = getattr(before, name), getattr(after, name)
        if a is not b and a != b:
            return False
    return True


def rail_period(turn: TurnState) -> str:
    """Whose rail moves count together: those of one impulse ("3/7": turn 3, impulse 7:
    its movement and the reorganization step at its end); the final reorganization
    step of a turn has its own ("3/final")."""
    if turn.step == FINAL_REORGANIZATION:
        return f"{turn.number}/final"
    return f"{turn.number}/{turn.impulse}"


def with_map_edits(setup: Setup, edits: Mapping[str, HexEdit],
                   combat: Mapping[str, Any] | None = None) -> Setup:
    """`setup` whose scenario is the created one with the GM's map `edits` applied and,
    when given, the `combat` section the GM set (checked when it was set)."""
    base = setup.base or setup.scenario
    if not edits and combat is None:
        return setup.original()
    scenario = base
    if edits:
        hexes = tuple(
            replace(h, controller=e.controller, port_damaged=e.port_damaged)
            if (e := edits.get(h.id)) is not None else h
            for h in base.map.hexes
        )
        scenario = replace(scenario, map=replace(base.map, hexes=hexes))
    if combat is not None:
        scenario = replace(scenario, combat=read_combat(combat, "combat", TERRAINS,
                                                        HEXSIDE_FEATURES, []))
    return Setup(setup.game_id, scenario, setup.options, setup.dice_mode, base=base)


def state_from_data(data: Mapping[str, object], setup: Setup) -> State:
    """A state from its plain data (a snapshot), with the GM's edits it records."""
    state = from_data(State, data, setup=setup.original())
    if state.map_edits or state.combat_section is not None:
        state = replace(state, setup=with_map_edits(setup, state.map_edits,
                                                    state.combat_section))
    return state


def initial_state(setup: Setup) -> State:
    """The state before anyone joined: every power free, the scenario's units in place."""
    setup = setup.original()
    sc = setup.scenario
    powers = {
        p.id: PowerState(
            side=p.side,
            neutral=p.neutral,
            conquered=p.conquered,
            bp_spent_last_turn=p.bp_spent_last_turn,
            bp_on_rps=p.bp_on_rps,
            chits=p.chits,
            fuel=None if sc.fuel is None else sc.fuel.start(p.id),
        )
        for p in sc.powers
    }
    units = {
        u.id: UnitState(
            power=u.power,
            at=u.at,
            face_up=u.face_up,
            shattered=u.shattered,
            mode=u.ocs.mode if u.ocs else None,
            orientation=u.ocs.orientation if u.ocs else None,
        )
        for u in sc.units
    }
    initiative = InitiativeState(
        boxes={s.id: s.initiative_box for s in sc.sides},
        last_turn_rank=tuple(sc.initiative_last_turn),
    )
    turn = TurnState(
        threshold=int(setup.options["turn_end"]["threshold"]),
        impulses_taken={s.id: 0 for s in sc.sides},
    )
    return State(
        status="open",
        turn=turn,
        initiative=initiative,
        powers=powers,
        units=units,
        setup=setup,
    )


# How one fact changes the state: each package's `EVOLVE` table maps event kinds to
# these (`service.rules.evolve`).
Evolver = Callable[[State, Event], State]
