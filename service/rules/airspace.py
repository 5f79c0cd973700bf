"""Who could meet an ATR mission (11.18.1 steps 1-6; docs/rules-options.md "ATR
missions"): the fighters that reach a hex, the AA units that fire over it, the potential
target hexes of a side's air reorganization, and whether an ATR item of a `reorg` order
may arrive at once.

A fighter (type FTR with a scenario `air.range`) flies from the hex it stands on (its
base), face up, to any hex within its range; it may patrol, escort or intercept only
where the scenario has an air-to-air table. AA fire comes from the face-up units with an
AA factor of the sides at war with the flying side in the target hex and the hexes next
to it, where the scenario has an AA table. With option `reorg.atr_interception` off (a
game created before it too) a mission simply arrives (RULES-NOTES 29).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from typing_extensions import TypedDict

from service.rules.scenario import ATR, air_range, air_to_air, is_fighter
from service.rules.state import AirMission, State

READING: Final = "RULES-NOTES 34"
OPTION_OFF: Final = ("ATR interception is off in this game (option reorg.atr_interception, "
                     "RULES-NOTES 29): the mission arrives.")


def interception_on(state: State) -> bool:
    """Option `reorg.atr_interception` (absent in games created before it: off)."""
    return bool(state.setup.options["reorg"].get("atr_interception", False))


def enemy_sides(state: State, side: str) -> tuple[str, ...]:
    """The sides at war with `side`, in the scenario's order."""
    sc = state.setup.scenario
    mine = state.side_powers(side)
    out = []
    for other in state.setup.sides:
        if other == side:
            continue
        theirs = state.side_powers(other)
        if any(q in sc.power(p).at_war_with or p in sc.power(q).at_war_with
               for p in mine for q in theirs):
            out.append(other)
    return tuple(out)


def _flying(state: State) -> set[str]:
    return set() if state.air is None else {s.unit for s in state.air.sorties}


@dataclass(frozen=True, slots=True)
class Reach:
    """An aircraft that can fly to a hex: from its base, `distance` hexes of `range`."""

    unit: str
    side: str
    at: str
    distance: int
    range: int


def fighters(state: State, side: str) -> list[tuple[str, str, int]]:
    """The fighters of `side` that may fly now (11.18.1): face up, on a hex (based), with
    a range, not in the air already; (unit, base, range) in id order. None where the
    scenario has no air-to-air table."""
    sc = state.setup.scenario
    if sc.combat.air is None:
        return []
    flying = _flying(state)
    out = []
    for uid in sorted(state.units):
        u = state.units[uid]
        spec = sc.unit(uid)
        rng = air_range(spec)
        if not is_fighter(spec) or rng is None or not u.face_up or uid in flying \
                or not sc.map.is_hex(u.at) or sc.side_of_power(u.power) != side:
            continue
        out.append((uid, u.at, rng))
    return out


def reach(state: State, side: str, hexes: tuple[str, ...] | list[str]) -> dict[str, list[str]]:
    """For each fighter of `side` that may fly, the hexes of `hexes` within its range."""
    m = state.setup.scenario.map
    out: dict[str, list[str]] = {}
    for uid, base, rng in fighters(state, side):
        found = [h for h in hexes if m.distance(base, h) <= rng]
        if found:
            out[uid] = found
    return out


def atr_base(state: State, aid: str) -> str | None:
    """Where an ATR flies from: the hex it stands on, else its scenario base."""
    sc = state.setup.scenario
    a, spec = state.units[aid], sc.unit(aid)
    if sc.map.is_hex(a.at):
        return a.at
    return spec.atr.base if spec.atr is not None else None


def atrs(state: State, side: str) -> list[str]:
    """The face-up ATRs of `side` not in the air, in id order."""
    sc = state.setup.scenario
    flying = _flying(state)
    return [uid for uid in sorted(state.units) if sc.unit(uid).type == ATR
            and state.units[uid].face_up and uid not in flying
            and sc.side_of_power(state.units[uid].power) == side
            and atr_base(state, uid) is not None]


def atr_targets(state: State, aid: str) -> dict[str, list[str]]:
    """The hexes ATR `aid` can fly to with the face-down units of its side there (11.18.1:
    within its range from its base), by hex."""
    sc = state.setup.scenario
    base = atr_base(state, aid)
    spec = sc.unit(aid)
    side = sc.side_of_power(state.units[aid].power)
    out: dict[str, list[str]] = {}
    if base is None or spec.atr is None:
        return out
    for uid in sorted(state.units):
        u = state.units[uid]
        if (u.face_up and not u.shattered) or not sc.map.is_hex(u.at) \
                or sc.side_of_power(u.power) != side:
            continue
        if sc.map.distance(base, u.at) <= spec.atr.range:
            out.setdefault(u.at, []).append(uid)
    return out


def potential_targets(state: State, side: str) -> tuple[str, ...]:
    """Step 1's potential target hexes: where a face-up ATR of `side` could fly to
    reorganize a face-down unit, sorted."""
    hexes: set[str] = set()
    for aid in atrs(state, side):
        hexes.update(atr_targets(state, aid))
    return tuple(sorted(hexes))


def aa_over(state: State, side: str, hex_id: str) -> list[tuple[str, int]]:
    """The AA units firing over `hex_id` at an ATR of `side` (11.18.1 step 6, RULES-NOTES
    34): face-up units of the sides at war with it, with an AA factor, in the hex or next
    to it; (unit, factor) in id order. None where the scenario has no AA table."""
    return list(Airspace.of(state).opposition(side, hex_id).aa)


@dataclass(frozen=True, slots=True)
class Opposition:
    """What could meet an ATR of `side` over `hex`: enemy fighters that reach it (on
    patrol or intercepting) and the AA units that would fire."""

    side: str
    hex: str
    fighters: tuple[Reach, ...]
    aa: tuple[tuple[str, int], ...]

    def __bool__(self) -> bool:
        return bool(self.fighters or self.aa)

    def words(self) -> str:
        parts = []
        if self.fighters:
            parts.append("fighters " + ", ".join(
                f"{r.unit} of {r.side} ({r.distance} of {r.range} hexes from {r.at})"
                for r in self.fighters) + " can patrol or intercept there")
        if self.aa:
            parts.append("AA " + ", ".join(f"{u} (factor {n})" for u, n in self.aa)
                         + " fires there")
        return "; ".join(parts)


@dataclass(frozen=True, slots=True, eq=False)
class Airspace:
    """Who could meet an ATR in one position, indexed once (a reorganization order or a
    planner checks many ATR items): by side, the fighters that may fly (unit, base,
    range) and the face-up AA units (unit, hex, factor)."""

    state: State
    fighters: dict[str, tuple[tuple[str, str, int], ...]]
    aa: dict[str, tuple[tuple[str, str, int], ...]]

    @classmethod
    def of(cls, state: State) -> Airspace:
        sc = state.setup.scenario
        on = interception_on(state)
        fighting: dict[str, list[tuple[str, str, int]]] = {}
        firing: dict[str, list[tuple[str, str, int]]] = {}
        if on and sc.combat.air is not None:
            for side in state.setup.sides:
                fighting[side] = fighters(state, side)
        if on and sc.combat.aa is not None:
            for uid in sorted(state.units):
                u, spec = state.units[uid], sc.unit(uid)
                if spec.aa > 0 and u.face_up and sc.map.is_hex(u.at):
                    firing.setdefault(sc.side_of_power(u.power), []).append((uid, u.at, spec.aa))
        return cls(state, {k: tuple(v) for k, v in fighting.items()},
                   {k: tuple(v) for k, v in firing.items()})

    def opposition(self, side: str, hex_id: str) -> Opposition:
        """Who could meet an ATR of `side` over `hex_id`: the enemies' fighters within
        range, their AA in the hex or next to it."""
        m = self.state.setup.scenario.map
        near = {hex_id, *m.neighbours(hex_id)}
        found: list[Reach] = []
        aa: list[tuple[str, int]] = []
        for enemy in enemy_sides(self.state, side):
            for uid, base, rng in self.fighters.get(enemy, ()):
                d = m.distance(base, hex_id)
                if d <= rng:
                    found.append(Reach(uid, enemy, base, d, rng))
            aa += [(uid, n) for uid, at, n in self.aa.get(enemy, ()) if at in near]
        return Opposition(side, hex_id, tuple(found), tuple(sorted(aa)))


def opposition(state: State, side: str, hex_id: str) -> Opposition:
    """Who could meet an ATR of `side` over `hex_id` now."""
    return Airspace.of(state).opposition(side, hex_id)


def flew_this_step(state: State, side: str) -> bool:
    """Whether `side` already flew its air reorganization in this step (once a step:
    11.18.1 step 2 flies "all your selected ATRs"; counted as "air:<side>" among the
    step's reorganization counters)."""
    t = state.turn
    period = f"{t.number}/{t.impulse}/{t.step}"
    return state.reorg.period == period and state.reorg.used.get(f"air:{side}", 0) > 0


def atr_check(state: State, aid: str, target: str, *, flying: bool,
              airspace: Airspace | None = None) -> tuple[str, str | None]:
    """How an ATR item to `target` stands (11.18.1): (a note for the log, None) when it
    dispenses now, or ("", why not) when it must fly as a mission first. `flying`: the
    item is checked as its flight takes off (step 2); `airspace`: the position's, if the
    caller has it."""
    if not interception_on(state):
        return OPTION_OFF, None
    m = state.air
    if m is not None and m.window == "":
        for s in m.sorties:
            if s.unit == aid and s.role == "atr" and s.hex == target and s.fate == "":
                return (f"ATR {aid} flew its mission to {target} and came through (11.18.1 "
                        "step 7)."), None
    if flying:
        return "", None
    side = state.setup.scenario.side_of_power(state.units[aid].power)
    opp = (airspace or Airspace.of(state)).opposition(side, target)
    if not opp:
        return (f"No enemy fighter can reach {target} and no AA fires there: the mission "
                "meets nobody (11.18.1 steps 1-6)."), None
    if flew_this_step(state, side):
        return "", (f"{opp.words()}, and {side} already flew its air reorganization this "
                    "step (11.18.1: all its ATRs fly at once)")
    return "", (f"{opp.words()}: fly it as an air reorganization mission (order air.begin), "
                "so that they may patrol, intercept and fire (11.18.1 steps 1-6)")


def target_hexes(m: AirMission) -> list[str]:
    """The hexes the flight flies to (step 2), sorted."""
    return sorted({s.hex for s in m.sorties if s.role == "atr"})


def enemy_over(m: AirMission, hexes: Sequence[str]) -> list[str]:
    """The target hexes with enemy fighters over them (patrolling or intercepting)."""
    return [h for h in hexes if any(s.hex == h and s.side != m.side and s.fate == ""
                                    for s in m.sorties)]


def window_hexes(m: AirMission, window: str) -> list[str]:
    """Where `window`'s fighters may fly: the potential target hexes (patrol, escorts),
    the flight's target hexes (the enemies' interception), those with enemy fighters
    over them (the flying side's interception)."""
    if window == "air.counter":
        return enemy_over(m, target_hexes(m))
    if window == "air.intercept":
        return target_hexes(m)
    return list(m.targets)


class ReachShown(TypedDict):
    """A fighter that could fly to the hex: whose, from where, how far of its range."""

    unit: str
    side: str
    at: str
    distance: int
    range: int


class AaShown(TypedDict):
    unit: str
    factor: int


class OppositionShown(TypedDict):
    """Who could meet an ATR over `hex` (11.18.1 steps 1-6): the enemy fighters that
    reach it and the AA that fires there; `opposed`: the ATR must fly its mission
    (`air.begin`) rather than arrive at once."""

    hex: str
    opposed: bool
    fighters: list[ReachShown]
    aa: list[AaShown]


def opposition_shown(state: State, side: str, hex_id: str,
                     airspace: Airspace | None = None) -> OppositionShown:
    opp = (airspace or Airspace.of(state)).opposition(side, hex_id)
    return {"hex": hex_id, "opposed": bool(opp),
            "fighters": [{"unit": r.unit, "side": r.side, "at": r.at, "distance": r.distance,
                          "range": r.range} for r in opp.fighters],
            "aa": [{"unit": u, "factor": n} for u, n in opp.aa]}


class MissionShown(TypedDict):
    """A mission an ATR could fly now: the hex, the face-down units there, and who
    could meet it."""

    hex: str
    units: list[str]
    opposition: OppositionShown


class AirChoices(TypedDict):
    """An air unit's part in ATR missions now (11.18.1): its range and air-to-air factor;
    for an ATR, the missions it could fly; for a fighter, whether it may fly in the
    window its side is awaited in, and where (or why not)."""

    range: int | None
    air_to_air: int
    interception: bool
    missions: list[MissionShown]
    window: str | None
    hexes: list[str]
    why: str | None


def air_choices(state: State, uid: str) -> AirChoices:
    """What air unit `uid` may do in ATR missions now."""
    sc = state.setup.scenario
    spec = sc.unit(uid)
    unit = state.units[uid]
    side = sc.side_of_power(unit.power)
    out: AirChoices = {"range": air_range(spec), "air_to_air": air_to_air(spec),
                       "interception": interception_on(state), "missions": [],
                       "window": None, "hexes": [], "why": None}
    if spec.type == ATR and uid in atrs(state, side):
        space = Airspace.of(state)
        out["missions"] = [{"hex": h, "units": units,
                            "opposition": opposition_shown(state, side, h, space)}
                           for h, units in sorted(atr_targets(state, uid).items())]
    m = state.air
    if not is_fighter(spec):
        return out
    if m is None or m.window in ("", "air.choice") or side not in m.sides \
            or side in m.answered:
        out["why"] = "no window of an ATR mission awaits its side now"
        return out
    out["window"] = m.window
    found = reach(state, side, window_hexes(m, m.window)).get(uid)
    if found:
        out["hexes"] = found
    else:
        out["why"] = "it cannot fly in this window: face down, in the air already, " \
                     "without a range, or no hex of the window is within its range"
    return out
