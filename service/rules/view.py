"""What each member sees: `view(state, viewer)` for the state and `event_view` for the
log. Players see their side's view; the GM sees everything but unrevealed dice seeds.
Sealed decisions (reroll answers) stay hidden from other sides until the window closes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NotRequired, Protocol, cast

from typing_extensions import TypedDict

from service.rules import state as st
from service.rules.awaiting import AwaitingEntry, SortieShown, awaiting
from service.rules.events import Event
from service.rules.modes import ModeView, ReserveMarkers, mode_view, reserve_markers
from service.rules.options import WeatherRow, dropout_policy
from service.rules.reorg import ReorgView, reorg_view
from service.rules.scenario import CombatRules
from service.rules.standing import StandingView, standing_view
from service.rules.state import PowerState, SideControl, State, Step
from service.rules.turn import Chit

Status = Literal["open", "active", "paused", "finished"]
# Who reads a view: a player (its side's view), the GM (everything) or a spectator (the
# public view: no side's sealed answers, no side's reorganization counters).
ViewerRole = Literal["player", "gm", "spectator"]


class PauseView(TypedDict):
    paused_at: str | None
    until: str | None
    max_hours: int | None


class Divergence(TypedDict):
    """A replay of the log that differs from the stored state (`python -m service
    replay-check`, docs/game-master.md): at event `seq`, after `after_seq` replayed the
    same; `what` and `path` say where; `stored` and `replayed` are the two values there,
    any JSON."""

    seq: int
    after_seq: int
    what: str
    path: str
    stored: Any
    replayed: Any
    event_kinds: list[str]
    logged_rules_versions: list[str]
    rules_version: str
    checked_at: str


class GameView(TypedDict):
    """The game: its status, dice mode, options (docs/rules-options.md) and weather
    table, what the referee does not model, and how each kind of combat is decided
    (`combat_results`: "table", "reported" by players, or "none" allowed); the server
    adds its name, version and whether the GM signs its acts."""

    id: str
    status: Status
    dice_mode: Literal["fair", "seeded", "scripted"]
    scripted: bool
    options: dict[str, Any]
    scenario: str
    pause: PauseView
    weather_table: list[WeatherRow]
    weather_table_from_turn: int | None
    not_modeled: list[str]
    combat_results: dict[str, str]
    name: NotRequired[str]
    version: NotRequired[int]
    gm_signs: NotRequired[bool]
    divergence: NotRequired[Divergence | None]


class TurnView(TypedDict):
    """Where the turn stands (seed 002): round, impulse, the phasing side and its step,
    the impulse order, the turn-end track and the round's weather."""

    number: int
    round: int
    impulse: int
    phasing_side: str | None
    step: Step
    order: list[str]
    turn_end_total: int
    turn_end_bonus: int
    threshold: int
    weather: WeatherRow | None
    impulses_taken: dict[str, int]
    step_started_at: str | None


class InitiativeView(TypedDict):
    """The initiative track (seed 002 Initiative Track): boxes 0-4 from the +2 box."""

    boxes: dict[str, int]
    last_turn_rank: list[str]
    dice: dict[str, int]
    totals: dict[str, int]
    ranking: list[str]
    chooser: str | None
    reroll_eligible: list[str]
    reroll_answered: list[str]
    reroll_answers: dict[str, bool]


class PowerView(TypedDict):
    """A power: its side, RPs it can still spend in this reorganization step, chits,
    BP figures (bounded by the scenario's `build_points`, or `bp_reported`: taken on the
    player's word), its fuel (None: the scenario has none, RULES-NOTES 30), who holds
    it, its declaration this impulse and its production."""

    side: str
    neutral: bool
    conquered: bool
    rps: int
    chits: int
    bp_spent_last_turn: int
    bp_on_rps: int
    holder: str | None
    declared: str | None
    chit: Chit | None
    production: dict[str, int] | None
    fuel: int | None
    build_points: int | None
    bp_reported: bool


# `class` is a Python keyword, so this part takes the functional syntax.
UnitClass = Literal["land", "air", "naval"]
_UnitClass = TypedDict("_UnitClass", {"class": UnitClass})


class UnitView(_UnitClass, ModeView):
    """A unit on the map: where it is, its counter's facts and its OCS mode."""

    power: str
    at: str
    type: str
    size: str | None
    cost: int
    face_up: bool
    shattered: bool
    mode: str | None
    orientation: str | None


class SeatView(TypedDict):
    player_id: str
    name: str
    powers: list[str]
    vacant: bool


class DropoutView(TypedDict):
    policy: str
    missed_deadlines: int
    missed: int
    dropped_out: bool
    mode: str | None


class SideView(TypedDict):
    """Who plays a side: its seats, and its dropout policy and state; its Reserve markers
    (OCS 5.4a: the scenario's limit, those its stacks in Reserve use, those left)."""

    players: list[SeatView]
    dropout: DropoutView
    reserve_markers: ReserveMarkers


class ProposalView(TypedDict):
    number: int
    turn: int
    impulse: int
    reason: str
    abandons: list[int]
    rolls: int
    needs: list[str]
    consented: list[str]
    requested_by: str | None


class RollbackView(TypedDict):
    proposal: ProposalView | None


class ChainView(TypedDict):
    chain: int
    from_turn: int
    anchor: str
    length: int


class DiceView(TypedDict):
    """The dice commitments and revealed seeds (docs/dice.md)."""

    commitments: dict[str, str]
    revealed: dict[str, str]
    rolls_this_turn: int
    chains: list[ChainView]


class MeView(TypedDict):
    role: ViewerRole
    player_id: str | None
    side: str | None
    powers: list[str]


class HexEditView(TypedDict):
    controller: str | None
    port_damaged: bool | None


class AirView(TypedDict):
    """An air reorganization mission in progress (11.18.1; docs/api.md "ATR missions"):
    whose, the window open ("" while the referee resolves) and the sides it awaits, the
    potential target hexes, the flight's reorganization (unit, ATR) paid by `power`,
    every aircraft in the air and the air-to-air combats fought. Every side sees it."""

    side: str
    window: str
    sides: list[str]
    answered: list[str]
    targets: list[str]
    power: str | None
    items: list[list[str]]
    sorties: list[SortieShown]
    fought: list[str]


class StateView(TypedDict):
    """What a member sees of the state (docs/api.md "The state"); the server adds the
    chain's head, every land unit's supply and the caller's webhook."""

    game: GameView
    turn: TurnView
    initiative: InitiativeView
    awaiting: list[AwaitingEntry]
    powers: dict[str, PowerView]
    units: dict[str, UnitView]
    reorg: ReorgView
    minors: dict[str, str]
    eliminated: dict[str, str]
    map_edits: dict[str, HexEditView]
    sides: dict[str, SideView]
    rollback: RollbackView
    standing: StandingView
    air: AirView | None
    deadlines: dict[str, int]
    dice: DiceView
    me: MeView


@dataclass(frozen=True, slots=True)
class Viewer:
    role: ViewerRole
    player_id: str | None = None
    side: str | None = None
    powers: tuple[str, ...] = ()


SEALED_KINDS = ("initiative.reroll_answered", "standing.answered", "standing.armed",
                "gm.played")


def _reorg_side(viewer: Viewer) -> str | None:
    """Whose reorganization counters the viewer sees: the GM every side's (None), a
    player its side's, a spectator none ("" is no side's)."""
    if viewer.role == "gm":
        return None
    return viewer.side or ""


def _unit_view(uid: str, state: State) -> UnitView:
    unit = state.units[uid]
    spec = state.setup.scenario.unit(uid)
    return {
        "power": unit.power,
        "at": unit.at,
        "class": cast(UnitClass, spec.unit_class),
        "type": spec.type,
        "size": spec.size,
        "cost": spec.cost,
        "face_up": unit.face_up,
        "shattered": unit.shattered,
        "mode": unit.mode,
        "orientation": unit.orientation,
        **mode_view(state, uid),
    }


def _unit_context(state: State) -> tuple[object, ...]:
    """What a unit's view reads besides the unit itself and its counter: the step, the
    phasing side, and each power's side and declaration (whether it passed)."""
    return (state.turn.step, state.turn.phasing_side,
            tuple((p, ps.side, ps.declared) for p, ps in state.powers.items()))


@dataclass(frozen=True, slots=True, eq=False)
class UnitViews:
    """The units' part of a state view (the same for every viewer) with what it was
    computed from; `recomputed` counts the units whose view was computed afresh."""

    state: State
    context: tuple[object, ...]
    views: dict[str, UnitView]
    recomputed: int


def unit_views(state: State, previous: UnitViews | None = None) -> UnitViews:
    """Every unit's view in `state`. Given the views of another state of the same game,
    a unit that did not change keeps its view, unless the step, the phasing side or a
    power's declaration changed (its effective values depend on them: then all are
    computed again)."""
    context = _unit_context(state)
    if previous is None or previous.context != context \
            or previous.state.setup.scenario is not state.setup.scenario:
        views = {uid: _unit_view(uid, state) for uid in state.units}
        return UnitViews(state, context, views, len(views))
    before, kept = previous.state.units, previous.views
    views = {}
    fresh = 0
    for uid, unit in state.units.items():
        old = before.get(uid)
        if old is unit or (old is not None and old == unit):
            views[uid] = kept[uid]
        else:
            views[uid] = _unit_view(uid, state)
            fresh += 1
    return UnitViews(state, context, views, fresh)


def view(state: State, viewer: Viewer, units: UnitViews | None = None) -> StateView:
    """What `viewer` sees of the state (docs/api.md): everything but other sides' sealed
    answers while their window is open; the GM sees every side's reorganization.
    `units`: `unit_views` of this state (or an equal one), when the caller keeps them
    between versions."""
    return {
        "game": _game_view(state),
        "turn": _turn_view(state),
        "initiative": _initiative_view(state, viewer),
        "awaiting": awaiting(state),
        "powers": {p: _power_view(ps, state.setup.scenario.power(p).build_points)
                   for p, ps in state.powers.items()},
        "units": dict((units or unit_views(state)).views),
        "reorg": reorg_view(state, _reorg_side(viewer)),
        "minors": {m.id: m.controller for m in state.setup.scenario.minors},
        "eliminated": dict(state.modes.eliminated),
        "map_edits": {h: {"controller": e.controller, "port_damaged": e.port_damaged}
                      for h, e in state.map_edits.items()},
        "sides": _sides_view(state),
        "rollback": {"proposal": None if state.proposal is None else {
            "number": state.proposal.number, "turn": state.proposal.turn,
            "impulse": state.proposal.impulse, "reason": state.proposal.reason,
            "abandons": list(state.proposal.abandons), "rolls": state.proposal.rolls,
            "needs": list(state.proposal.needs), "consented": list(state.proposal.consented),
            "requested_by": state.proposal.requested_by}},
        "standing": standing_view(state, viewer.side, everyone=viewer.role == "gm"),
        "air": _air_view(state),
        "deadlines": dict(state.deadlines),
        "dice": {
            "commitments": {str(k): v for k, v in state.dice.commitments.items()},
            "revealed": {str(k): v for k, v in state.dice.revealed.items()},
            "rolls_this_turn": state.dice.rolls_this_turn,
            "chains": [{"chain": c.number, "from_turn": c.from_turn, "anchor": c.anchor,
                        "length": c.length} for c in state.dice.chains],
        },
        "me": {
            "role": viewer.role,
            "player_id": viewer.player_id,
            "side": viewer.side,
            "powers": list(viewer.powers),
        },
    }


def _game_view(state: State) -> GameView:
    setup = state.setup
    return {
        "id": setup.game_id,
        "status": state.status,
        "dice_mode": setup.dice_mode,
        "scripted": setup.dice_mode == "scripted",
        "options": setup.options,
        "scenario": setup.scenario.id,
        "pause": {"paused_at": state.paused_at, "until": state.pause_until,
                  "max_hours": setup.options.get("game", {}).get("max_pause_hours")},
        "weather_table": state.weather_table(),
        "weather_table_from_turn": state.weather_pending[0] if state.weather_pending
        else None,
        "not_modeled": [
            *interception_flags(setup.options, setup.scenario.combat),
            *(["fuel costs when reorganizing: this scenario gives no fuel (RULES-NOTES 30)"]
              if setup.scenario.fuel is None else []),
            *reported_flags(setup.scenario.combat),
        ],
        "combat_results": {by: setup.scenario.combat.how(by) for by in COMBAT_KINDS},
    }


COMBAT_KINDS = ("overrun", "combat", "barrage", "naval")


def interception_flags(options: dict[str, Any], rules: CombatRules) -> list[str]:
    """What every view and export says of ATR missions (11.18.1 steps 1-6): off by the
    game's option (RULES-NOTES 29), or flown without air combat or AA fire where the
    scenario has no table for them (RULES-NOTES 34)."""
    if not options["reorg"].get("atr_interception", False):
        return ["ATR interception: off in this game, an ATR mission simply arrives (option "
                "reorg.atr_interception, RULES-NOTES 29)"]
    missing = [what for what, table in (("air-to-air", rules.air), ("AA", rules.aa))
               if table is None]
    if not missing:
        return []
    return [f"ATR interception without {' or '.join(missing)}: the scenario has no "
            f"{' or '.join(missing)} table (RULES-NOTES 34)"]


def _air_view(state: State) -> AirView | None:
    m = state.air
    if m is None:
        return None
    return {"side": m.side, "window": m.window, "sides": list(m.sides),
            "answered": list(m.answered), "targets": list(m.targets), "power": m.power,
            "items": [[u, a] for u, a in m.items],
            "sorties": [{"unit": x.unit, "hex": x.hex, "role": x.role, "side": x.side,
                         "fate": x.fate} for x in m.sorties],
            "fought": list(m.fought)}


def reported_flags(rules: CombatRules) -> list[str]:
    """What every view and export says of results the referee does not decide: "combat
    results reported by players" for the kinds without a table, where the scenario lets
    players report them (docs/scenario.md "Combat: the tables")."""
    land = [by for by in COMBAT_KINDS[:3] if rules.how(by) == "reported"]
    flags = [f"combat results reported by players ({', '.join(land)}: the scenario has no "
             "table for them)"] if land else []
    return [*flags, "naval combat results reported by players (the format has no naval "
                    "table)"]


def _turn_view(state: State) -> TurnView:
    t = state.turn
    return {
        "number": t.number,
        "round": t.round,
        "impulse": t.impulse,
        "phasing_side": t.phasing_side,
        "step": t.step,
        "order": list(t.order),
        "turn_end_total": t.turn_end_total,
        "turn_end_bonus": t.turn_end_bonus,
        "threshold": t.threshold,
        "weather": t.weather,
        "impulses_taken": dict(t.impulses_taken),
        "step_started_at": t.step_started_at,
    }


def _initiative_view(state: State, viewer: Viewer) -> InitiativeView:
    """Sealed reroll answers (RULES-NOTES 16) are shown to their own side only, until
    the window closes."""
    ini = state.initiative
    reroll_open = state.turn.step == st.REROLL
    answers = {
        side: demand for side, demand in ini.answers.items()
        if viewer.role == "gm" or side == viewer.side or not reroll_open
    }
    return {
        "boxes": dict(ini.boxes),
        "last_turn_rank": list(ini.last_turn_rank),
        "dice": dict(ini.dice),
        "totals": dict(ini.totals),
        "ranking": list(ini.ranking),
        "chooser": ini.chooser,
        "reroll_eligible": list(ini.eligible),
        "reroll_answered": [s for s in ini.eligible if s in ini.answers],
        "reroll_answers": answers,
    }


def _power_view(ps: PowerState, build_points: int | None) -> PowerView:
    return {
        "side": ps.side,
        "neutral": ps.neutral,
        "conquered": ps.conquered,
        "rps": ps.rps,
        "chits": ps.chits,
        "bp_spent_last_turn": ps.bp_spent_last_turn,
        "bp_on_rps": ps.bp_on_rps,
        "holder": ps.holder,
        "declared": ps.declared,
        "chit": cast(Chit | None, ps.chit),
        "production": ps.production,
        "fuel": ps.fuel,
        "build_points": build_points,
        "bp_reported": build_points is None,
    }


def _sides_view(state: State) -> dict[str, SideView]:
    """Who plays each side: its seats, and its dropout policy and state."""
    out: dict[str, SideView] = {}
    for side in state.setup.sides:
        policy, limit = dropout_policy(state.setup.options, side)
        control = state.dropouts.get(side, SideControl())
        out[side] = {
            "players": [{"player_id": s.player_id, "name": s.name, "powers": list(s.powers),
                         "vacant": s.vacant}
                        for s in state.seats.values() if s.side == side],
            "dropout": {"policy": policy, "missed_deadlines": limit, "missed": control.missed,
                        "dropped_out": control.mode is not None, "mode": control.mode},
            "reserve_markers": reserve_markers(state, side),
        }
    return out


class _TurnNow(Protocol):
    @property
    def number(self) -> int: ...
    @property
    def step(self) -> str: ...


class Now(Protocol):
    """What sealing depends on: the game's status, its turn's number and step. A state,
    or what a server keeps of one (its summary) where it does not hold the state."""

    @property
    def status(self) -> str: ...
    @property
    def turn(self) -> _TurnNow: ...


def is_sealed(event: Event, state: Now, viewer: Viewer) -> bool:
    """A reroll answer, signed or given by a standing order (`standing.answered`), is
    sealed from other sides while its window is still open, and so is the GM's answer
    for a side it plays (`gm.played`); the arming of a reroll standing order, by its side
    (`standing.armed`) or by the GM (`gm.played`), until the first window it answers has
    closed (issue 20). Nothing is sealed in a finished game.
    """
    if event.kind not in SEALED_KINDS or viewer.role == "gm" or state.status == "finished":
        return False
    if event.data.get("side") == viewer.side:
        return False
    if event.kind == "gm.played":
        if event.data.get("kind") != "initiative.reroll" and "first_window" not in event.data:
            return False  # first_window: a reroll standing order the GM armed
    elif event.kind != "initiative.reroll_answered" and event.data.get("step") != st.REROLL:
        return False
    t = state.turn
    if "first_window" in event.data:  # a reroll standing order armed, by its side or the GM
        first = int(event.data.get("first_window", 0))
        return t.number < first or (t.number == first and t.step == st.REROLL)
    return t.step == st.REROLL and event.turn == t.number
