"""Combat, overrun and barrage results as they hit a hex, reported in a `report`
order (seed 004: OCS 5.7d, OCS 5.8a, OCS 5.9, OCS 5.10; RULES-NOTES 31).

A combat item: ``{"by": "combat", "hex": "h21", "attackers": ["ger-arm-1"],
"results": [...]}``, results applied in order, each one of

- ``{"kind": "dg", "hex": "h21"}``: a DG result; `hex` defaults to the defender's
  and may be an attacker's hex (OCS 5.10a A).
- ``{"kind": "loss", "unit": "cw-inf-1", "steps": 1}``: step losses (steps default 1).
- ``{"kind": "eliminated", "units": ["cw-inf-1"]}``.
- ``{"kind": "retreat", "units": ["cw-inf-1"], "path": ["h11", "h01"], "losses": []}``:
  hex by hex; the second hex (OCS 5.10a B) and any hex in an enemy ZOC (OCS 5.10a C) turn the
  whole hex DG; units already DG entering an enemy ZOC lose a step, the owner naming
  the unit in `losses`, one per such hex, in order; Strat units entering an enemy ZOC
  are eliminated (OCS 5.8a).
- ``{"kind": "exploit", "units": ["ger-arm-1"], "rating": 3}``: Exploitation awarded
  to attackers in regular combat in the combat step, never to DG units, only to units
  whose Action Rating reaches the marker's number (OCS 5.9a, OCS 5.9b, OCS 5.10b C).
- ``{"kind": "ignored", "text": "Do1"}``: a result on the defender declined; still a
  result for OCS 5.7d.
- ``{"kind": "advance", "units": ["ger-arm-1"]}``: attackers enter the defender's hex
  once no enemy unit is left in it.
- ``{"kind": "shattered", "units": ["cw-inf-1"]}``: units of the combat are shattered:
  face down, they need two reorganizations (11.18; docs/rules-options.md).

Dice: a combat item may ask the referee to roll (``"dice": "2d6"``, no `results`): it
checks the attackers as above, logs the combat and rolls (purpose `combat`, in the log
with the roll's inputs, docs/dice.md); the combat then waits in its hex
(`ModeState.combats`) for the result the table reads from those dice, reported later as
``{"by": "combat", "hex": "h21", "results": [...]}`` without attackers (the rolled
combat's are used); that closes it. A side does not end the step while a combat of its
waits for its result; clean up drops any left.

A naval combat, ``{"by": "naval", "hex": "west-sea", "attackers": ["ger-dd-1"],
"results": [...]}``, in the action or combat step: the side's face-up naval units in
the sea area against the enemy's naval units there, with shattered, eliminated and
ignored results.

Any result on the defending stack in an overrun or regular combat first removes its
Reserve markers (OCS 5.7d). A DG trigger turns every combat unit in the hex DG and
removes their other mode markers (OCS 5.10, OCS 5.10a); Transport Points are exempt, an
Organic Truck in Reserve loses its marker (OCS 5.10c).

Retreats go hex by hex into adjacent hexes, never twice into one, never into enemy units
or neutral territory. Readings: the enemy ZOC of a retreat is not negated by friendly
units in the hex
(the board's `enemy_zoc`, as for OCS 5.7c and OCS 5.8a); a barrage has only DG, loss,
eliminated and ignored results; exploitation is earned only in the combat step.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from service.rules import state as st
from service.rules.board import NEUTRAL, NEUTRAL_RULE, Board
from service.rules.command import Command
from service.rules.errors import Refused
from service.rules.events import Event, EventKind
from service.rules.flow import Flow
from service.rules.modes import vocabulary as m
from service.rules.modes.bodies import CombatResult
from service.rules.modes.effective import effective, power_passed
from service.rules.modes.items import (
    held_unit,
    malformed,
    refuse,
    refuse_unit,
    strings,
    unknown_keys,
)
from service.rules.state import Evolver, Hit, OpenCombat, State

__all__ = ["BY_STEP", "CONSISTENCY", "Fight", "Fought", "check_attacker", "disorganize",
           "eliminate", "enemies_in", "lose_steps", "open_combats_refusal", "report_combat"]
_DICE: Final = re.compile(r"^([1-9])d([1-9][0-9]?)$")
# A combat reported as played must agree with the board: the OCS Combat phase is the
# results reported in the impulse's combat step (RULES-NOTES 31).
CONSISTENCY: Final = "RULES-NOTES 31"
TABLES: Final = "RULES-NOTES 32"  # the scenario's combat tables decide
BY: Final = ("overrun", "combat", "barrage", "naval")
BY_STEP: Final[Mapping[str, tuple[str, ...]]] = {
    st.ACTION: ("overrun", "naval"),
    st.REACTION: ("overrun", "barrage"),  # OCS 5.7b B
    st.COMBAT: ("combat", "barrage", "naval"),
    st.EXPLOITATION: ("overrun", "combat", "barrage"),  # OCS 5.7b A, OCS 5.9
}
_RESULT_KEYS: Final[Mapping[str, tuple[str, ...]]] = {
    "dg": ("kind", "hex"),
    "loss": ("kind", "unit", "steps"),
    "eliminated": ("kind", "units"),
    "retreat": ("kind", "units", "path", "losses"),
    "exploit": ("kind", "units", "rating"),
    "ignored": ("kind", "text"),
    "advance": ("kind", "units"),
    "shattered": ("kind", "units"),
}
_BARRAGE_RESULTS: Final = ("dg", "loss", "eliminated", "ignored")
_NAVAL_RESULTS: Final = ("shattered", "eliminated", "ignored")
_ONLY: Final[Mapping[str, tuple[str, ...]]] = {"barrage": _BARRAGE_RESULTS,
                                                "naval": _NAVAL_RESULTS}


def disorganize(f: Flow, hex_id: str, cause: str, rule: str, by: str) -> None:
    """A DG trigger in `hex_id`: every combat unit there turns DG, other markers go
    (OCS 5.10, OCS 5.10a); Transport Points are exempt and Organic Trucks lose a Reserve
    marker (OCS 5.10c)."""
    sc = f.state.setup.scenario
    turned: list[str] = []
    markers: dict[str, str] = {}
    trucks: list[str] = []
    for uid, u in sorted(f.state.units.items()):
        spec = sc.unit(uid)
        if u.at != hex_id or spec.ocs is None or not m.uses_modes(spec):
            continue
        if m.is_transport(spec):
            if u.mode == m.RESERVE:
                trucks.append(uid)
            continue
        if u.mode == m.DG:
            continue
        turned.append(uid)
        if u.mode in (m.RESERVE, m.STRAT, m.EXPLOIT):
            markers[uid] = str(u.mode)
    shown = ", ".join(turned) if turned else "no unit not already DG"
    f.emit("hex.disorganized", f"{hex_id} turns DG ({cause}, {rule}): {shown}"
           + (f"; markers removed: {', '.join(f'{u} {x}' for u, x in markers.items())}"
              if markers else "") + (f"; {', '.join(trucks)} lose Reserve" if trucks else "")
           + ".", {"hex": hex_id, "cause": cause, "rule": rule, "units": turned,
                   "markers_removed": markers, "trucks": trucks}, by=by)


def eliminate(f: Flow, uid: str, cause: str, rule: str, by: str) -> None:
    at = f.state.units[uid].at
    f.emit("unit.eliminated", f"{uid} is eliminated in {at} ({cause}, {rule}).",
           {"unit": uid, "hex": at, "cause": cause, "rule": rule}, by=by)


def lose_steps(f: Flow, uid: str, steps: int, cause: str, rule: str, by: str) -> None:
    f.emit("unit.step_lost", f"{uid} loses {steps} step{'s' if steps > 1 else ''} "
           f"({cause}, {rule}).",
           {"unit": uid, "steps": steps, "cause": cause, "rule": rule}, by=by)


def check_attacker(s: State, uid: str, by: str, path: str) -> None:
    """Whether `uid` may take part in this overrun, combat or barrage now (the RulesError
    it meets if not)."""
    unit = s.units[uid]
    spec = s.setup.scenario.unit(uid)
    step = s.step
    if spec.unit_class != "land" or spec.ocs is None or not m.uses_modes(spec):
        raise refuse_unit("report/not_a_fighter", uid, "uses no modes and has no combat "
                          "values", rule="OCS 5.1", path=path)
    if m.is_transport(spec):
        raise refuse_unit("report/not_a_fighter", uid, "is Transport Points, not a combat "
                          "unit", rule="OCS 5.5c", path=path)
    if not unit.face_up:
        raise refuse_unit("report/face_down", uid, "is face down: it cannot move, overrun "
                          "or attack", rule="RULES-NOTES 27", path=path)
    if unit.mode == m.RESERVE:
        raise refuse_unit("report/reserve", uid, "is in Reserve Mode: it cannot attack, "
                          "overrun or barrage until released", rule="OCS 5.7", path=path)
    if unit.mode == m.STRAT:
        raise refuse_unit("report/strat", uid, "is in Strat Mode: it cannot attack, overrun "
                          "or barrage", rule="OCS 5.8", path=path)
    if by == "overrun" and unit.mode == m.DG:
        raise refuse_unit("report/dg", uid, "is in DG Mode: it cannot overrun", rule="OCS 5.10b",
                          path=path)
    if step in (st.ACTION, st.COMBAT) and power_passed(s, unit.power):
        raise refuse_unit("report/power_passed", uid, f"belongs to {unit.power}, which passed "
                          "this impulse", rule="seed 002 Effects of Passing", path=path)
    release = s.modes.release
    current = release is not None and release.step == step and uid in release.units
    if step == st.REACTION:
        if unit.released != st.REACTION:
            raise refuse_unit("report/not_released", uid, "was not released in this Reaction "
                              "step: only released Reserves act in it", rule="OCS 5.7b",
                              path=path)
        if by == "overrun" and not current:
            raise refuse_unit("report/release_over", uid, "was released before the release "
                              "in progress: its movement and overruns are over (one release "
                              "at a time)", rule="OCS 5.7b", path=path)
    if step == st.EXPLOITATION:
        if unit.mode != m.EXPLOIT and unit.released != st.EXPLOITATION:
            raise refuse_unit("report/cannot_exploit", uid, "is neither in Exploitation Mode "
                              "nor released in this step: it does not act in the "
                              "Exploitation step", rule="OCS 5.9", path=path)
        if by == "overrun" and unit.released == st.EXPLOITATION and not current:
            raise refuse_unit("report/release_over", uid, "was released before the release "
                              "in progress: its movement and overruns are over (one release "
                              "at a time)", rule="OCS 5.7b", path=path)
    eff = effective(s, uid)
    assert eff is not None
    if by == "barrage" and eff["barrage"] <= 0:
        raise refuse_unit("report/no_barrage", uid, "has no barrage rating to barrage with",
                          rule="OCS 5.10b", path=path)
    if by != "barrage" and eff["attack"] <= 0:
        raise refuse_unit("report/no_strength", uid, "has no attack strength", rule="OCS 5.2",
                          path=path)


@dataclass(frozen=True, slots=True)
class Fought:
    """An overrun, combat or barrage checked and logged, for its table to decide."""

    by: str
    hex: str
    attackers: tuple[str, ...]
    defenders: tuple[str, ...]


def enemies_in(state: State, hex_id: str, side: str) -> list[str]:
    sc = state.setup.scenario
    powers = state.side_powers(side)
    return sorted(
        uid for uid, u in state.units.items()
        if u.at == hex_id and sc.unit(uid).unit_class == "land"
        and any(sc.at_war(u.power, p) for p in powers)
    )


def _dice(item: Mapping[str, object], path: str) -> tuple[str, int, int] | None:
    spec = item.get("dice")
    if spec is None:
        return None
    match = _DICE.match(spec) if isinstance(spec, str) else None
    if match is None or not 2 <= int(match.group(2)) <= 20:
        raise malformed("dice are NdM with N 1-9 and M 2-20, e.g. 2d6", path=f"{path}/dice")
    if item.get("results"):
        raise malformed("a combat the referee rolls for has no results yet: report them "
                        "once the dice are rolled", path=f"{path}/results")
    return str(spec), int(match.group(1)), int(match.group(2))


# long: an item's checks (shape, step, the rolled combat it continues, attackers) in order.
def report_combat(f: Flow, c: Command, side: str, item: object, path: str) -> Fought | None:
    """One overrun, combat or barrage and its results, in order; or its dice rolled by
    the referee; or the results of a combat rolled before. Where the scenario's table
    decides it, only its attackers are checked and logged: the fight is returned for the
    referee to resolve (`service.rules.modes.resolve`)."""
    if not isinstance(item, Mapping):
        raise malformed("expected {by, hex, attackers, results}", path=path)
    unknown_keys(item, ("by", "hex", "attackers", "results", "dice"), path)
    by = item.get("by")
    if by not in BY:
        raise malformed(f"by must be one of {', '.join(BY)}", path=f"{path}/by")
    assert isinstance(by, str)
    hex_id = item.get("hex")
    sc = f.state.setup.scenario
    where = sc.map.is_sea if by == "naval" else sc.map.is_hex
    if not isinstance(hex_id, str) or not where(hex_id):
        what = "sea area (a naval combat is fought at sea)" if by == "naval" else "hex"
        raise malformed(f"unknown {what} {hex_id!r}", path=f"{path}/hex",
                        code="order/unknown_hex")
    step = f.state.step
    if by not in BY_STEP[step]:
        rule = "OCS 5.7b" if step == st.REACTION else "RULES-NOTES 31"
        raise refuse("report/not_this_step", f"no {by} in the {step} step: it allows "
                     f"{', '.join(BY_STEP[step])}", rule=rule, path=f"{path}/by")
    how = sc.combat.how(by)
    if how == "none":
        raise refuse("report/no_table", f"the scenario has no {by} table and does not let "
                     "players report results (its combat.results is tables); the GM may "
                     "set the game's combat section (admin.edit combat)",
                     rule=TABLES, path=f"{path}/by")
    if f.state.modes.resolution is not None:
        pending = f.state.modes.resolution
        raise refuse("report/combat_pending", f"the {pending.by} on {pending.hex} is being "
                     "resolved: one combat at a time", rule=TABLES, path=path)
    if how == "table" and ("dice" in item or "results" in item):
        raise refuse("report/table_decides", f"the scenario's {by} table decides this "
                     f"{by}: name the attackers only, the referee rolls and applies the "
                     "result", rule=TABLES,
                     path=f"{path}/{'dice' if 'dice' in item else 'results'}")
    dice = _dice(item, path)
    results = item.get("results", [])
    if not isinstance(results, list):
        raise malformed("expected a list of results", path=f"{path}/results")
    rolled = f.state.modes.combats.get(hex_id)
    if rolled is not None:
        _rolled_results(f, c, side, item, rolled, hex_id, results, path)
        return None
    if "attackers" not in item:
        raise malformed("name the attackers (only a combat the referee rolled for goes on "
                        "without them)", path=f"{path}/attackers")
    attackers = strings(item.get("attackers"), f"{path}/attackers")
    if by == "naval":
        _naval_combat(f, c, side, hex_id, attackers, results, path)
        return None
    defenders = enemies_in(f.state, hex_id, side)
    if not defenders:
        raise refuse("report/no_enemy", f"{hex_id} holds no enemy land unit of {side}",
                     rule=CONSISTENCY, path=f"{path}/hex")
    neighbours = set(sc.map.neighbours(hex_id))
    stacks: set[str] = set()
    for j, name in enumerate(attackers):
        apath = f"{path}/attackers/{j}"
        spec, unit = held_unit(f.state, c, name, apath)
        check_attacker(f.state, name, by, apath)
        if by != "barrage" and unit.at not in neighbours:
            raise refuse_unit("report/not_adjacent", name, f"in {unit.at} is not next to "
                              f"{hex_id}", rule=CONSISTENCY, path=apath)
        if not any(sc.at_war(unit.power, f.state.units[d].power) for d in defenders):
            raise refuse_unit("report/not_at_war", name, f"belongs to {unit.power}, which is "
                              f"at war with no unit in {hex_id}", rule=CONSISTENCY, path=apath)
        stacks.add(unit.at)
    if by == "overrun" and len(stacks) > 1:
        raise refuse("report/overrun_stack", "an overrun is made by one stack; the attackers "
                     f"stand in {', '.join(sorted(stacks))}", rule=CONSISTENCY,
                     path=f"{path}/attackers")
    f.emit("combat.reported", f"{side}: {by} on {hex_id} by {', '.join(attackers)} "
           f"(defending: {', '.join(defenders)}).",
           {"side": side, "step": step, "by": by, "hex": hex_id, "attackers": attackers,
            "defenders": defenders, **({"dice": dice[0]} if dice else {})}, by=c.actor.id)
    if how == "table":
        return Fought(by, hex_id, tuple(attackers), tuple(defenders))
    if dice is not None:
        _roll(f, c, side, by, hex_id, attackers, defenders, dice)
        return None
    fight = Fight(f, c.actor.id, side, by, hex_id, attackers, defenders)
    for k, result in enumerate(results):
        fight.apply(result, f"{path}/results/{k}")
    return None


def _roll(f: Flow, c: Command, side: str, by: str, hex_id: str, attackers: list[str],
          defenders: list[str], dice: tuple[str, int, int]) -> None:
    """The referee rolls the combat's dice (purpose `combat`); the combat waits in its
    hex for the result the table reads from them."""
    spec, count, faces = dice
    roll = f.roll("combat", count, faces, text=f"{side}'s {by} on {hex_id}: {spec}",
                  by=c.actor.id, label=f"{by} on {hex_id}")
    values = list(roll.values)
    f.emit("combat.rolled", f"{by.capitalize()} on {hex_id}: {spec} rolled "
           f"{', '.join(map(str, values))} (total {sum(values)}); report the result.",
           {"side": side, "step": f.state.step, "by": by, "hex": hex_id,
            "attackers": attackers, "defenders": defenders, "dice": spec, "values": values},
           by=c.actor.id)


def _rolled_results(f: Flow, c: Command, side: str, item: Mapping[str, object],
                    rolled: OpenCombat, hex_id: str, results: list[CombatResult],
                    path: str) -> None:
    """The results of a combat the referee rolled for, which then closes."""
    shown = ", ".join(map(str, rolled.values))
    if "attackers" in item or item.get("dice") is not None or item.get("by") != rolled.by:
        raise refuse("report/combat_rolled", f"the {rolled.by} on {hex_id} was rolled "
                     f"({rolled.dice}: {shown}) and waits for its results: report them "
                     f"with by {rolled.by!r} and no attackers or dice", rule=CONSISTENCY,
                     path=path)
    if rolled.side != side or rolled.step != f.state.step:
        raise refuse("report/combat_rolled", f"the {rolled.by} on {hex_id} belongs to "
                     f"{rolled.side}'s {rolled.step} step", rule=CONSISTENCY, path=path)
    if not results:
        raise malformed("the rolled combat needs its results", path=f"{path}/results")
    fight = Fight(f, c.actor.id, side, rolled.by, hex_id, rolled.attackers, rolled.defenders)
    for k, result in enumerate(results):
        fight.apply(result, f"{path}/results/{k}")
    f.emit("combat.closed", f"The {rolled.by} on {hex_id} ({rolled.dice}: {shown}) is "
           "resolved.", {"hex": hex_id, "by": rolled.by}, by=c.actor.id)


def open_combats_refusal(state: State, side: str) -> Refused | None:
    """The refusal of `done` while a combat of `side` rolled in this step waits for its
    result, or while a combat the table decides waits for a side's choice."""
    res = state.modes.resolution
    if res is not None:
        asked = f": {res.question.side} is asked" if res.question is not None else ""
        return refuse("combat/choice_pending", f"the {res.by} on {res.hex} is being "
                      f"resolved{asked}; {side} is done once it is", rule=TABLES, path="/body")
    waiting = sorted(h for h, x in state.modes.combats.items()
                     if x.side == side and x.step == state.step)
    if not waiting:
        return None
    first = state.modes.combats[waiting[0]]
    return refuse("report/combat_waiting", f"the {first.by} on {waiting[0]} was rolled "
                  f"({first.dice}: {', '.join(map(str, first.values))}) and waits for its "
                  f"results: report them before {side} is done"
                  + (f" (and on {', '.join(waiting[1:])})" if len(waiting) > 1 else ""),
                  rule=CONSISTENCY, path="/body")


def _naval_combat(f: Flow, c: Command, side: str, sea: str, attackers: list[str],
                  results: list[CombatResult], path: str) -> None:
    """A naval combat in sea area `sea` (docs/rules-options.md): the side's face-up naval
    units there against the enemy's naval units there; results shatter, eliminate or
    are declined. The attackers have attacked: they turn face down at clean up."""
    s = f.state
    sc = s.setup.scenario
    powers = s.side_powers(side)
    for j, name in enumerate(attackers):
        apath = f"{path}/attackers/{j}"
        spec, unit = held_unit(s, c, name, apath)
        if spec.unit_class != "naval" or unit.at != sea:
            raise refuse_unit("report/not_at_sea", name, f"is not a naval unit in sea area "
                              f"{sea}", rule=CONSISTENCY, path=apath)
        if not unit.face_up:
            raise refuse_unit("report/face_down", name, "is face down: it cannot fight",
                              rule="RULES-NOTES 27", path=apath)
        if power_passed(s, unit.power):
            raise refuse_unit("report/power_passed", name, f"belongs to {unit.power}, which "
                              "passed this impulse", rule="seed 002 Effects of Passing", path=apath)
    defenders = sorted(uid for uid, u in s.units.items()
                       if u.at == sea and sc.unit(uid).unit_class == "naval"
                       and any(sc.at_war(u.power, p) for p in powers))
    if not defenders:
        raise refuse("report/no_enemy", f"sea area {sea} holds no enemy naval unit of {side}",
                     rule=CONSISTENCY, path=f"{path}/hex")
    f.emit("combat.reported", f"{side}: naval combat in {sea} by {', '.join(attackers)} "
           f"(defending: {', '.join(defenders)}).",
           {"side": side, "step": s.step, "by": "naval", "hex": sea, "attackers": attackers,
            "defenders": defenders}, by=c.actor.id)
    fight = Fight(f, c.actor.id, side, "naval", sea, attackers, defenders)
    for k, result in enumerate(results):
        fight.apply(result, f"{path}/results/{k}")


class Fight:
    """The running combat: who is in it, and whether the defender got a result yet."""

    def __init__(self, f: Flow, actor: str, side: str, by: str, hex_id: str,
                 attackers: Sequence[str], defenders: Sequence[str], *,
                 contact: bool = False) -> None:
        self.f, self.actor, self.side, self.by, self.hex = f, actor, side, by, hex_id
        self.attackers, self.defenders = tuple(attackers), tuple(defenders)
        self.touched = contact

    def present(self, names: Sequence[str]) -> list[str]:
        return [u for u in names if u in self.f.state.units]

    def _member(self, name: object, path: str, among: Sequence[str]) -> str:
        if not isinstance(name, str):
            raise malformed("expected a unit id", path=path)
        if name not in self.present(among):
            gone = name in self.f.state.modes.eliminated
            raise refuse("report/not_in_combat", f"{name} "
                         + ("was eliminated" if gone else "is not in this combat")
                         + f" (attackers {', '.join(self.attackers)}; defenders in "
                         f"{self.hex} {', '.join(self.defenders)})", rule=CONSISTENCY,
                         path=path, unit=name)
        return name

    def contact(self) -> None:
        """OCS 5.7d: the defending stack receives a result in an overrun or combat."""
        if self.touched or self.by == "barrage":
            return
        self.touched = True
        reserves = [u for u in self.present(self.defenders)
                    if self.f.state.units[u].mode == m.RESERVE]
        if reserves:
            self.f.emit("reserve.removed", f"{', '.join(reserves)} in {self.hex} lose their "
                        "Reserve marker: the stack received a result (OCS 5.7d).",
                        {"hex": self.hex, "units": reserves, "rule": "OCS 5.7d"}, by=self.actor)

    def apply(self, result: object, path: str) -> None:
        if not isinstance(result, Mapping):
            raise malformed("expected {kind, ...}", path=path)
        kind = result.get("kind")
        if kind not in _RESULT_KEYS:
            raise malformed(f"kind must be one of {', '.join(_RESULT_KEYS)}",
                            path=f"{path}/kind")
        assert isinstance(kind, str)
        unknown_keys(result, _RESULT_KEYS[kind], path)
        only = _ONLY.get(self.by)
        if only is not None and kind not in only:
            raise refuse(f"report/{self.by}_result", f"a {self.by} combat has no {kind} "
                         f"result; its results are {', '.join(only)}", rule=CONSISTENCY,
                         path=f"{path}/kind")
        getattr(self, f"_{kind}")(result, path)

    def _dg(self, r: CombatResult, path: str) -> None:
        hex_id = r.get("hex", self.hex)
        state = self.f.state
        attacker_hexes = {state.units[u].at for u in self.present(self.attackers)}
        if hex_id != self.hex and hex_id not in attacker_hexes:
            raise refuse("report/dg_hex", f"a DG result hits the defender's hex {self.hex} "
                         "or an attacker's hex, not "
                         f"{hex_id}", rule=CONSISTENCY, path=f"{path}/hex")
        assert isinstance(hex_id, str)
        if hex_id == self.hex:
            self.contact()
        disorganize(self.f, hex_id, f"{self.by} result", "OCS 5.10a A", self.actor)

    def _loss(self, r: CombatResult, path: str) -> None:
        uid = self._member(r.get("unit"), f"{path}/unit", self.attackers + self.defenders)
        steps = r.get("steps", 1)
        if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= 20:
            raise malformed("steps must be an integer 1-20", path=f"{path}/steps", unit=uid)
        if uid in self.defenders:
            self.contact()
        lose_steps(self.f, uid, steps, f"{self.by} result", "OCS 5.10a", self.actor)

    def _eliminated(self, r: CombatResult, path: str) -> None:
        names = strings(r.get("units"), f"{path}/units")
        for i, name in enumerate(names):
            self._member(name, f"{path}/units/{i}", self.attackers + self.defenders)
        if any(u in self.defenders for u in names):
            self.contact()
        for name in names:
            eliminate(self.f, name, f"{self.by} result", CONSISTENCY, self.actor)

    def _shattered(self, r: CombatResult, path: str) -> None:
        """A result shatters units of the combat: face down and shattered, they need two
        reorganizations (11.18; docs/rules-options.md)."""
        names = strings(r.get("units"), f"{path}/units")
        for i, name in enumerate(names):
            self._member(name, f"{path}/units/{i}", self.attackers + self.defenders)
        if any(u in self.defenders for u in names):
            self.contact()
        self.f.emit("units.shattered", f"{', '.join(names)} in the {self.by} on {self.hex} "
                    "are shattered: face down, they need two reorganizations (11.18).",
                    {"units": names, "hex": self.hex, "cause": f"{self.by} result",
                     "rule": "11.18"}, by=self.actor)

    def _ignored(self, r: CombatResult, path: str) -> None:
        text = r.get("text", "")
        if not isinstance(text, str) or len(text) > 200:
            raise malformed("text is a note of at most 200 characters", path=f"{path}/text")
        self.contact()
        self.f.emit("combat.result_ignored", f"A result on {self.hex} is declined"
                    f"{': ' + text if text else ''} (it still counts for OCS 5.7d).",
                    {"hex": self.hex, "text": text}, by=self.actor)

    def _advance(self, r: CombatResult, path: str) -> None:
        names = strings(r.get("units"), f"{path}/units")
        for i, name in enumerate(names):
            self._member(name, f"{path}/units/{i}", self.attackers)
        left = enemies_in(self.f.state, self.hex, self.side)
        if left:
            raise refuse("report/hex_held", f"{self.hex} still holds {', '.join(left)}: no "
                         "advance into it", rule=CONSISTENCY, path=path)
        self.f.emit("units.advanced", f"{', '.join(names)} advance into {self.hex}.",
                    {"units": names, "to": self.hex}, by=self.actor)

    def _exploit(self, r: CombatResult, path: str) -> None:
        state = self.f.state
        if self.by != "combat" or state.step != st.COMBAT:
            raise refuse("report/no_exploitation", "Exploitation Mode is earned in regular "
                         "combat in the combat step only", rule="OCS 5.9a", path=f"{path}/kind")
        rating = r.get("rating")
        if rating not in (2, 3, 4) or isinstance(rating, bool):
            raise malformed("rating is the Exploit marker's number: 2, 3 or 4",
                            path=f"{path}/rating", rule="OCS 5.9b")
        assert isinstance(rating, int)
        names = strings(r.get("units"), f"{path}/units")
        for i, name in enumerate(names):
            upath = f"{path}/units/{i}"
            self._member(name, upath, self.attackers)
            unit = state.units[name]
            if unit.mode == m.DG:
                raise refuse_unit("report/dg_no_exploit", name, "is in DG Mode and cannot "
                                  "earn Exploitation Mode", rule="OCS 5.10b", path=upath)
            if unit.mode not in (m.COMBAT, m.MOVE):
                raise refuse_unit("report/no_exploitation", name, f"is in {unit.mode} mode: "
                                  "only Combat and Move Mode units earn Exploitation",
                                  rule="OCS 5.9a", path=upath)
            eff = effective(state, name)
            assert eff is not None
            if eff["action_rating"] < rating:
                raise refuse_unit("report/action_rating", name, f"has Action Rating "
                                  f"{eff['action_rating']}, below the Exploit marker's "
                                  f"{rating}", rule="OCS 5.9b", path=upath)
        self.f.emit("units.exploit_awarded",
                    f"{', '.join(names)} gain Exploitation Mode (marker {rating}).",
                    {"units": names, "rating": rating, "hex": self.hex}, by=self.actor)

    # long: a retreat's checks and its effects (OCS 5.8a, OCS 5.10a B and C) in rule order.
    def _retreat(self, r: CombatResult, path: str) -> None:
        f = self.f
        names = strings(r.get("units"), f"{path}/units")
        for i, name in enumerate(names):
            self._member(name, f"{path}/units/{i}", self.attackers + self.defenders)
        starts = {f.state.units[u].at for u in names}
        if len(starts) > 1:
            raise refuse("report/retreat_stack", "units retreating together start in one "
                         f"hex, not {', '.join(sorted(starts))}", rule=CONSISTENCY,
                         path=f"{path}/units")
        hexes = strings(r.get("path"), f"{path}/path", what="hex ids")
        # One step per enemy-ZOC hex entered by units already DG (OCS 5.10a C), in the
        # order entered: a lone DG unit entering two owes two, so a unit may be named again.
        losses = strings(r.get("losses", []), f"{path}/losses", empty=True, distinct=False)
        if any(u in self.defenders for u in names):
            self.contact()
        sc = f.state.setup.scenario
        previous = starts.pop()
        visited = {previous}
        owed = list(losses)
        for k, hex_id in enumerate(hexes, start=1):
            hpath = f"{path}/path/{k - 1}"
            if not sc.map.is_hex(hex_id):
                raise malformed(f"unknown hex {hex_id!r}", path=hpath, code="order/unknown_hex")
            if hex_id not in sc.map.neighbours(previous):
                raise refuse("report/retreat_path", f"{hex_id} is not next to {previous}",
                             rule=CONSISTENCY, path=hpath)
            if hex_id in visited:
                raise refuse("report/retreat_path", f"a retreat never enters a hex twice: "
                             f"{hex_id} is on it already", rule=CONSISTENCY, path=hpath)
            visited.add(hex_id)
            movers = self.present(names)
            if not movers:
                raise refuse("report/retreat_path", f"no unit is left to retreat into "
                             f"{hex_id}", rule=CONSISTENCY, path=hpath)
            power = f.state.units[movers[0]].power
            board = Board.from_state(f.state)
            if board.enemy_occupied(hex_id, power):
                raise refuse("report/retreat_path", f"{hex_id} holds enemy units: no "
                             "retreat into it", rule=CONSISTENCY, path=hpath)
            if board.stance(power).territory[board.at(hex_id)] == NEUTRAL:
                raise refuse("report/retreat_path", f"{hex_id} is neutral territory: no "
                             "retreat into it", rule=NEUTRAL_RULE, path=hpath)
            zoc = board.enemy_zoc(hex_id, power)
            was_dg = [u for u in movers if f.state.units[u].mode == m.DG]
            f.emit("units.retreated", f"{', '.join(movers)} retreat from {previous} to "
                   f"{hex_id}{' (enemy ZOC)' if zoc else ''}.",
                   {"units": movers, "from": previous, "to": hex_id, "hexes": k,
                    "enemy_zoc": zoc}, by=self.actor)
            if zoc:
                for uid in movers:
                    if f.state.units[uid].mode == m.STRAT:
                        eliminate(f, uid, f"Strat Mode unit retreated into an enemy ZOC in "
                                   f"{hex_id}", "OCS 5.8a", self.actor)
                was_dg = self.present(was_dg)
                if was_dg:
                    if not owed:
                        raise refuse("report/retreat_loss", f"{', '.join(was_dg)} were "
                                     f"already DG and retreated into an enemy ZOC in "
                                     f"{hex_id}: name the unit that loses a step in losses",
                                     rule="OCS 5.10a", path=f"{path}/losses")
                    chosen = owed.pop(0)
                    if chosen not in was_dg:
                        raise refuse("report/retreat_loss", f"{chosen} cannot take the step "
                                     f"loss in {hex_id}: it must be one of "
                                     f"{', '.join(was_dg)}", rule="OCS 5.10a",
                                     path=f"{path}/losses/{len(losses) - len(owed) - 1}",
                                     unit=chosen)
                    lose_steps(f, chosen, 1, f"already DG, retreated into an enemy ZOC in "
                                f"{hex_id}", "OCS 5.10a C", self.actor)
            if k == 2:
                disorganize(f, hex_id, "retreated two hexes", "OCS 5.10a B", self.actor)
            elif zoc:
                disorganize(f, hex_id, "retreated into an enemy ZOC", "OCS 5.10a C", self.actor)
            previous = hex_id
        if owed:
            raise refuse("report/retreat_loss", f"{', '.join(owed)} named for step losses "
                         "that no retreat into an enemy ZOC caused", rule="OCS 5.10a",
                         path=f"{path}/losses")


def _units(state: State, names: Sequence[str], **changes: Any) -> State:
    units = dict(state.units)
    for uid in names:
        units[uid] = replace(units[uid], **changes)
    return replace(state, units=units)


def _combat(state: State, e: Event) -> State:
    """The attackers attacked; each side whose units were attacked counts one more hit
    (what a standing order's `unit_attacked` stop looks at)."""
    sc = state.setup.scenario
    hit = {sc.side_of_power(state.units[uid].power) for uid in e.data["defenders"]
           if uid in state.units} - {e.data["side"]}
    hits = dict(state.modes.hits)
    for side in sorted(hit):
        old = hits.get(side)
        hits[side] = Hit(count=(old.count if old else 0) + 1, by=str(e.data["by"]),
                         hex=str(e.data["hex"]), attacker=str(e.data["side"]),
                         turn=state.turn.number, impulse=state.turn.impulse)
    state = replace(state, modes=replace(state.modes, hits=hits))
    return _units(state, e.data["attackers"], attacked=True)


def _disorganized(state: State, e: Event) -> State:
    state = _units(state, e.data["units"], mode=m.DG)
    units = dict(state.units)
    for uid in e.data["trucks"]:
        units[uid] = replace(units[uid], mode=units[uid].orientation)
    return replace(state, units=units)


def _reserve_removed(state: State, e: Event) -> State:
    units = dict(state.units)
    for uid in e.data["units"]:
        units[uid] = replace(units[uid], mode=units[uid].orientation)
    return replace(state, units=units)


def _step_lost(state: State, e: Event) -> State:
    uid = e.data["unit"]
    unit = state.units[uid]
    return _units(state, [uid], steps_lost=unit.steps_lost + int(e.data["steps"]))


def _eliminated(state: State, e: Event) -> State:
    uid = e.data["unit"]
    units = {k: v for k, v in state.units.items() if k != uid}
    eliminated = {**state.modes.eliminated, uid: e.data["hex"]}
    return replace(state, units=units, modes=replace(state.modes, eliminated=eliminated))


def _retreated(state: State, e: Event) -> State:
    return _units(state, e.data["units"], at=e.data["to"])


def _advanced(state: State, e: Event) -> State:
    return _units(state, e.data["units"], at=e.data["to"])


def _exploit(state: State, e: Event) -> State:
    return _units(state, e.data["units"], mode=m.EXPLOIT)


def _combat_rolled(state: State, e: Event) -> State:
    d = e.data
    waiting = OpenCombat(side=d["side"], step=d["step"], by=d["by"],
                         attackers=tuple(d["attackers"]), defenders=tuple(d["defenders"]),
                         dice=d["dice"], values=tuple(d["values"]))
    combats = {**state.modes.combats, d["hex"]: waiting}
    return replace(state, modes=replace(state.modes, combats=combats))


def _combat_closed(state: State, e: Event) -> State:
    """A rolled combat has its results, or the referee resolved one by its table."""
    combats = {h: x for h, x in state.modes.combats.items() if h != e.data["hex"]}
    res = state.modes.resolution
    if res is not None and res.hex == e.data["hex"]:
        res = None
    return replace(state, modes=replace(state.modes, combats=combats, resolution=res))


EVOLVE: dict[EventKind, Evolver] = {
    "combat.reported": _combat,
    "hex.disorganized": _disorganized,
    "reserve.removed": _reserve_removed,
    "unit.step_lost": _step_lost,
    "unit.eliminated": _eliminated,
    "units.retreated": _retreated,
    "units.advanced": _advanced,
    "units.exploit_awarded": _exploit,
    "combat.rolled": _combat_rolled,
    "combat.closed": _combat_closed,
}
