"""Every choice a unit has now (issue 16): the modes it may take and why it may not take
the others (OCS 5.3-5.8), the hexes its moves may end in with what each costs and the
path, where transport may take it, and whether it may attack (and where), be released
(OCS 5.7b) or exploit (OCS 5.9). Clients offer these and nothing else.

Each choice listed is one the orders accept, because the same checks make the lists:
`check_change` (the `mode` order), `check_may_move`, `walk_route` and `transport_route`
(moves in a `report`), `check_attacker` (its combats), `check_release` (the `release`
order). Where a unit may not act, the answer says why, with the rule.

Reserve markers (OCS 5.4a, `markers`): the mode choices count the side's markers and say
whether a change into Reserve would take a new one (and when none is left, that the unit
must join a Reserve stack or leave Reserve before its movement ends); a Reserve unit's
moves are those the `report` order accepts with the markers the side has, each saying
whether it takes a new one, the others listed as refused with the rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NotRequired, cast

from typing_extensions import TypedDict

from service.rules import state as st
from service.rules.airspace import AirChoices, air_choices
from service.rules.board import Board
from service.rules.errors import RulesError
from service.rules.modes import vocabulary as m
from service.rules.modes.bodies import Mode, Orientation
from service.rules.modes.change import check_change
from service.rules.modes.effective import effective, power_passed
from service.rules.modes.markers import Markers, ReserveMarkers
from service.rules.modes.movement import Mover, ma_rule, mover, reachable
from service.rules.modes.release import check_release
from service.rules.modes.report import check_may_move
from service.rules.modes.results import BY_STEP, check_attacker
from service.rules.modes.transport import destinations
from service.rules.state import State

__all__ = ["UnitChoices", "side_options", "unit_options"]


class Why(TypedDict):
    """Why a choice is not legal: the refusal's code and rule, and the reason."""

    code: str
    rule: str | None
    reason: str


class _Mode(TypedDict):
    mode: Mode
    orientation: Orientation | None


class ModeChoice(_Mode):
    """A mode change; into Reserve, whether it takes a new Reserve marker, and, when the
    side has none left, what the unit must then do (OCS 5.4a)."""

    needs_marker: NotRequired[bool]
    marker_note: NotRequired[str]


class ModeRefused(_Mode, Why):
    pass


class ModeChoices(TypedDict):
    """Every mode change (OCS 5.3-5.8): those the `mode` order takes, and the others; the
    side's Reserve markers (OCS 5.4a)."""

    legal: list[ModeChoice]
    illegal: list[ModeRefused]
    why: NotRequired[Why]
    reserve_markers: NotRequired[ReserveMarkers]


class Allowance(TypedDict):
    """What the unit may move in this step: its MA, the MP used and left, the rule that
    sets it, and how it pays for terrain."""

    ma: float
    used: float
    left: float
    rule: str
    move_class: str


class HexChoice(TypedDict):
    """A hex a move may end in: what its hexes cost (`mp`), what the move spends, the
    path (the hexes entered), and why it spends more than it costs."""

    to: str
    mp: float
    spends: float
    path: list[str]
    notes: NotRequired[list[str]]
    needs_marker: NotRequired[bool]


class HexRefused(Why):
    """A hex the unit reaches but may not end a move in: a Reserve unit's move that would
    leave its side short of Reserve markers (OCS 5.4a)."""

    to: str


class TransportChoice(TypedDict):
    carrier: str | None
    to: list[str]
    spends: float


class MoveChoices(TypedDict):
    mp: Allowance | None
    may: bool
    why: Why | None
    hexes: list[HexChoice]
    transport: dict[str, list[TransportChoice]]
    refused: NotRequired[list[HexRefused]]


class AttackBy(TypedDict):
    """One way to attack: whether it may, and where (None: any hex holding enemy units,
    for a barrage)."""

    may: bool
    hexes: NotRequired[list[str] | None]
    why: NotRequired[Why]


class AttackChoices(TypedDict):
    may: bool
    why: Why | None
    by: dict[str, AttackBy]


class Permission(TypedDict):
    may: bool
    why: Why | None


class ExploitChoice(Permission):
    earn: NotRequired[bool]


# `class` is a Python keyword, so this part takes the functional syntax.
_UnitClass = TypedDict("_UnitClass", {"class": str})


class UnitChoices(_UnitClass):
    """A unit's choices now (issue 16): `GET .../units/{unit}/options`; an air unit's
    part in ATR missions (11.18.1) under `air`."""

    unit: str
    name: str
    side: str
    power: str
    at: str
    type: str
    mode: str | None
    orientation: str | None
    face_up: bool
    step: str
    modes: ModeChoices
    moves: MoveChoices
    attack: AttackChoices
    release: Permission
    exploit: ExploitChoice
    air: NotRequired[AirChoices]


# Every mode change a unit might ask for: (mode, orientation; None: its own).
CANDIDATES: Final = ((m.COMBAT, m.COMBAT), (m.MOVE, m.MOVE), (m.RESERVE, m.COMBAT),
                     (m.RESERVE, m.MOVE), (m.STRAT, m.MOVE), (m.EXPLOIT, None),
                     (m.DG, m.COMBAT), (m.DG, m.MOVE))


def _why(error: RulesError) -> Why:
    reason = error.errors[0][1] if error.errors else error.message
    return {"code": error.code, "rule": error.rule, "reason": reason}


def _problem(check: Callable[..., object], *args: object) -> Why | None:
    """The refusal `check(*args)` raises, as {code, rule, reason}; None if it passes."""
    try:
        check(*args)
    except RulesError as error:
        return _why(error)
    return None


def _acting(state: State, side: str, steps: tuple[str, ...], what: str, rule: str
            ) -> Why | None:
    """Why `side` gives no order of `what` now (the step, its turn in it), or None."""
    t = state.turn
    if t.step not in steps:
        return {"code": "order/wrong_step", "rule": rule,
                "reason": f"{what} belong to the {' or '.join(steps)} step; this is the "
                          f"{t.step} step"}
    if side not in t.step_sides or side in t.sides_done:
        done = side in t.sides_done
        return {"code": "order/not_your_turn", "rule": st.step_rule(t.step),
                "reason": f"{side} is {'done with' if done else 'not in'} the {t.step} step"}
    if t.step == st.REACTION:
        first = next(x for x in t.step_sides if x not in t.sides_done)
        if first != side:
            return {"code": "order/not_your_turn", "rule": "RULES-NOTES 31",
                    "reason": f"{first} reacts first"}
    return None


def _modes(state: State, board: Board, uid: str, side: str) -> ModeChoices:
    unit = state.units[uid]
    legal: list[ModeChoice] = []
    illegal: list[ModeRefused] = []
    step = _acting(state, side, (st.ACTION,), "mode changes", "OCS 5.4")
    markers = Markers.of(state, board, side)
    for mode, orientation in CANDIDATES:
        given = orientation if orientation is not None else unit.orientation
        problem = step or _problem(check_change, state, board, uid, mode, given)
        if problem is not None:
            illegal.append({"mode": cast(Mode, mode),
                            "orientation": cast(Orientation | None, given), **problem})
            continue
        choice: ModeChoice = {"mode": cast(Mode, mode),
                              "orientation": cast(Orientation | None, given)}
        if mode == m.RESERVE:
            choice["needs_marker"] = markers.change_needs_marker(state, uid)
            if choice["needs_marker"] and markers.shown["left"] == 0:
                choice["marker_note"] = (
                    f"needs a new Reserve marker and {side} has none left: before its "
                    "movement ends it must join a Reserve stack or leave Reserve (OCS 5.4a)")
        legal.append(choice)
    return {"legal": legal, "illegal": illegal, "reserve_markers": markers.shown}


def _moves(state: State, board: Board, mv: Mover, side: str) -> MoveChoices:
    unit = mv.unit
    mp: Allowance = {"ma": mv.step_ma, "used": mv.used, "left": mv.allowance, "rule": ma_rule(unit),
          "move_class": mv.ground.move_class}
    problem = _acting(state, side, (st.ACTION, st.REACTION, st.EXPLOITATION), "moves",
                      "RULES-NOTES 31") or _problem(check_may_move, state, mv.uid, unit,
                                                    "/body/moves/0")
    if problem is None and mv.allowance <= 0:
        problem = {"code": "report/mp", "rule": ma_rule(unit),
                   "reason": f"has no MP left in this step ({mv.used:g} of {mv.step_ma:g} "
                             "used)"}
    if problem is not None:
        return {"mp": mp, "may": False, "why": problem, "hexes": [], "transport": {}}
    hexes: list[HexChoice] = []
    refused: list[HexRefused] = []
    for to, r in reachable(mv).items():
        entry: HexChoice = {"to": to, "mp": r.cost, "spends": r.charge, "path": list(r.hexes)}
        if r.notes:
            entry["notes"] = list(r.notes)
        if unit.mode == m.RESERVE:
            needs, short = Markers.of(state, board, side).move(state, mv.uid, to)
            if short is not None:
                refused.append({"to": to, "code": "report/reserve_markers", "rule": "OCS 5.4a",
                                "reason": f"{short} after this move; a stack's Reserve units "
                                          "share one marker"})
                continue
            entry["needs_marker"] = needs
        hexes.append(entry)
    transport: dict[str, list[TransportChoice]] = {
        kind: [{"carrier": carrier or None, "to": ends, "spends": mv.allowance}
               for carrier, ends in by_carrier.items()]
        for kind, by_carrier in destinations(mv).items()}
    may = bool(hexes or transport)
    out: MoveChoices = {"mp": mp, "may": may, "why": None, "hexes": hexes,
                        "transport": transport}
    if unit.mode == m.RESERVE:
        out["refused"] = refused
        if not may and refused:
            out["why"] = {"code": refused[0]["code"], "rule": refused[0]["rule"],
                          "reason": refused[0]["reason"]}
    return out


def _attack(state: State, board: Board, uid: str, side: str) -> AttackChoices:
    step = state.step
    problem = _acting(state, side, (st.ACTION, st.REACTION, st.COMBAT, st.EXPLOITATION),
                      "attacks", "RULES-NOTES 31")
    if problem is not None:
        return {"may": False, "why": problem, "by": {}}
    unit = state.units[uid]
    stance = board.stance(unit.power)
    sc = state.setup.scenario
    near = sorted(board.grid.ids[i] for i in board.grid.nbrs[board.at(unit.at)]
                  if i in stance.enemy_land)
    near = [h for h in near if any(sc.at_war(unit.power, state.units[u].power)
                                   for u in board.units_in(h) if u in board.unit_hex)]
    kinds: dict[str, AttackBy] = {}
    for by in BY_STEP[step]:
        if by == "naval":
            continue
        why = _problem(check_attacker, state, uid, by, "/body/combats/0")
        if sc.combat.how(by) == "none":  # no table, and players may not report (issue 29)
            why = {"code": "report/no_table", "rule": "RULES-NOTES 32",
                   "reason": f"the scenario has no {by} table and does not let players "
                             "report results; the GM may set the game's combat section"}
        if why is not None:
            kinds[by] = {"may": False, "why": why}
        elif by == "barrage":
            kinds[by] = {"may": True, "hexes": None}  # any hex holding enemy land units
        elif near:
            kinds[by] = {"may": True, "hexes": near}
        else:
            kinds[by] = {"may": False, "hexes": [], "why": {
                "code": "report/not_adjacent", "rule": "RULES-NOTES 31",
                "reason": "no enemy unit next to it"}}
    return {"may": any(k["may"] for k in kinds.values()), "why": None, "by": kinds}


def _release(state: State, uid: str, side: str) -> Permission:
    problem = _acting(state, side, (st.REACTION, st.EXPLOITATION), "releases", "OCS 5.7b") \
        or _problem(check_release, state, uid)
    return {"may": problem is None, "why": problem}


def _exploit(state: State, uid: str, side: str) -> ExploitChoice:
    """Whether the unit moves and fights in this impulse's Exploitation step (OCS 5.9,
    OCS 5.7b A), and in the combat step whether it may earn Exploitation Mode (OCS 5.9a,
    5.9b, 5.10b C)."""
    unit = state.units[uid]
    eff = effective(state, uid)
    phasing = side == state.turn.phasing_side
    why: Why | None = None
    if not phasing or power_passed(state, unit.power) or not unit.face_up:
        why = {"code": "report/cannot_exploit", "rule": "OCS 5.9",
               "reason": "only the phasing side's face-up units of powers that did not pass "
                         "exploit"}
    elif unit.mode == m.RESERVE:
        why = {"code": "report/cannot_exploit", "rule": "OCS 5.7b",
               "reason": "in Reserve Mode: it exploits once released in the Exploitation "
                         "step"}
    elif unit.mode != m.EXPLOIT and unit.released != st.EXPLOITATION:
        why = {"code": "report/cannot_exploit", "rule": "OCS 5.9",
               "reason": f"is in {unit.mode} mode: only Exploitation Mode units and "
                         "released Reserves act in the Exploitation step"}
    out: ExploitChoice = {"may": why is None, "why": why}
    if state.step == st.COMBAT and phasing and eff is not None:
        earn = unit.mode in (m.COMBAT, m.MOVE) and eff["action_rating"] >= 2 and eff["can_attack"]
        out["earn"] = earn
    return out


# long: one entry per kind of choice, in the order a client shows them.
def unit_options(state: State, uid: str, board: Board | None = None) -> UnitChoices:
    """The unit's choices now (see the module docstring)."""
    board = board or Board.from_state(state)
    unit = state.units[uid]
    sc = state.setup.scenario
    spec = sc.unit(uid)
    side = sc.side_of_power(unit.power)
    on_map = sc.map.is_hex(unit.at)
    if spec.unit_class != "land" or spec.ocs is None or not m.uses_modes(spec) or not on_map:
        what = {"air": "air units fly missions (report them in missions)",
                "naval": "naval units move by sea; their moves and combats are the "
                         "table's (report them)"}.get(spec.unit_class,
                                                       "it uses no modes (OCS 5.1)")
        none: Why = {"code": "options/none", "rule": "OCS 5.1", "reason": what}
        modes: ModeChoices = {"legal": [], "illegal": [], "why": none}
        moves: MoveChoices = {"mp": None, "may": False, "why": none, "hexes": [],
                              "transport": {}}
        attack: AttackChoices = {"may": False, "why": none, "by": {}}
        release: Permission = {"may": False, "why": none}
        exploit: ExploitChoice = {"may": False, "why": none}
    else:
        modes = _modes(state, board, uid, side)
        moves = _moves(state, board, mover(state, board, uid), side)
        attack = _attack(state, board, uid, side)
        release = _release(state, uid, side)
        exploit = _exploit(state, uid, side)
    choices = cast(UnitChoices, {
        "unit": uid, "name": sc.unit_name(uid), "side": side, "power": unit.power,
        "at": unit.at, "class": spec.unit_class, "type": spec.type, "mode": unit.mode,
        "orientation": unit.orientation, "face_up": unit.face_up, "step": state.step,
        "modes": modes, "moves": moves, "attack": attack, "release": release,
        "exploit": exploit})
    if spec.unit_class == "air":
        choices["air"] = air_choices(state, uid)  # ATR missions (11.18.1)
    return choices


def side_options(state: State, side: str, board: Board | None = None
                 ) -> dict[str, UnitChoices]:
    """`unit_options` of every unit of `side`, in id order, on one board."""
    board = board or Board.from_state(state)
    sc = state.setup.scenario
    return {uid: unit_options(state, uid, board) for uid in sorted(state.units)
            if sc.side_of_power(state.units[uid].power) == side}
