"""A combat, overrun or barrage decided by the scenario's table (docs/api.md "Combats the
referee decides"; the tables: docs/scenario.md): the odds from the effective values
(`service.rules.modes.odds`), a surprise roll where the table has one, the combat roll
(purpose `combat`), the cell, and its results applied in order. What the rules leave to
a player becomes a question (`Question`, step `combat.choice`): which units take step
losses (their owner), whether the defenders take option losses as hexes of retreat and
by which path (the defender), which attackers advance (the attacker). A question with
one possible answer is not asked.

The order results are applied in (RULES-NOTES 32): the attackers' losses, DG and
shattering; then the defenders': eliminated, or their retreat chosen, their losses
(those the result demands and the options not retreated), the retreat itself (the
checks and effects of a reported retreat: OCS 5.8a, OCS 5.10a B, OCS 5.10a C), DG,
shattering; then Exploitation Mode for the attackers (OCS 5.9a, OCS 5.9b, OCS 5.10b C)
and their advance into an emptied hex. Any result on the defenders of an overrun or
combat first removes their Reserve markers (OCS 5.7d). A unit that has lost as many
steps as it has (the scenario's `ocs.steps`) is eliminated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from typing_extensions import TypedDict

from service.rules import state as st
from service.rules.board import NEUTRAL, Board
from service.rules.combat import Effect, Outcome, read, threshold
from service.rules.command import Command
from service.rules.events import Event, EventKind
from service.rules.flow import Flow
from service.rules.modes import vocabulary as m
from service.rules.modes.effective import effective
from service.rules.modes.items import acting_side, refuse
from service.rules.modes.odds import OddsShown, Reckoning, reckon
from service.rules.modes.results import (
    TABLES,
    Fight,
    Fought,
    disorganize,
    eliminate,
    enemies_in,
    lose_steps,
    report_combat,
)
from service.rules.scenario import OverrunRule
from service.rules.state import Evolver, Question, Resolution, State, Task

__all__ = ["EVOLVE", "PreviewShown", "answered", "default_answer", "paths_from", "preview",
           "proceed", "resolve", "steps_left", "task_data"]
RULE: Final = "RULES-NOTES 32"


def steps_left(state: State, uid: str) -> int:
    spec = state.setup.scenario.unit(uid)
    steps = spec.ocs.steps if spec.ocs is not None else 1
    return max(0, steps - state.units[uid].steps_lost)


def _side_of(state: State, uid: str) -> str:
    return state.setup.scenario.side_of_power(state.units[uid].power)


def _tasks(effects: Sequence[Effect], by: str, advance: str) -> tuple[Task, ...]:
    """The results of a cell in the order they are applied (RULES-NOTES 32)."""
    n: dict[str, int] = {}
    for e in effects:
        n[e.kind] = n.get(e.kind, 0) + (e.value or 1)
    out: list[Task] = []
    if n.get("attacker_eliminated"):
        out.append(Task("eliminate", "attacker"))
    elif n.get("attacker_loss"):
        out.append(Task("losses", "attacker", n["attacker_loss"]))
    if n.get("attacker_dg"):
        out.append(Task("dg", "attacker"))
    if n.get("attacker_shattered"):
        out.append(Task("shatter", "attacker"))
    if n.get("defender_eliminated"):
        out.append(Task("eliminate", "defender"))
    elif n.get("defender_option") or n.get("defender_retreat"):
        out.append(Task("retreat", "defender", n.get("defender_retreat", 0),
                        n.get("defender_option", 0), due=n.get("defender_loss", 0)))
    elif n.get("defender_loss"):
        out.append(Task("losses", "defender", n["defender_loss"]))
    if n.get("defender_dg"):
        out.append(Task("dg", "defender"))
    if n.get("defender_shattered"):
        out.append(Task("shatter", "defender"))
    if n.get("exploit"):
        out.append(Task("exploit", "attacker", max(e.value or 0 for e in effects
                                                   if e.kind == "exploit")))
    if by == "combat" and (advance == "vacated" or n.get("advance")):
        out.append(Task("advance", "attacker"))
    return tuple(out)


def _touches_defender(tasks: Sequence[Task]) -> bool:
    return any(t.who == "defender" for t in tasks)


def _overrun(r: Reckoning, rule: OverrunRule, path: str) -> bool:
    """The overrun rule: refused below its minimum; True when it is automatic."""
    by = r.table.columns.by
    value = r.odds.value
    low = threshold(by, rule.minimum) if rule.minimum else None
    if low is not None and value is not None and value < low:
        raise refuse("report/overrun_odds", f"the overrun on {r.hex} is at {r.odds.value_words()}, "
                     f"below the overrun minimum {rule.minimum}: {r.words()}", rule=TABLES,
                     path=f"{path}/attackers")
    high = threshold(by, rule.automatic) if rule.automatic else None
    return high is not None and (value is None or value >= high)


def resolve(f: Flow, c: Command, side: str, fought: Fought, path: str) -> None:
    """Decide a fight by the scenario's table: the odds, the rolls, the cell, and what
    it does (until a question waits for a side)."""
    state = f.state
    sc = state.setup.scenario
    by, hex_id = fought.by, fought.hex
    r = reckon(state, by, hex_id, fought.attackers, fought.defenders)
    automatic = False
    if by == "overrun":
        rule = sc.combat.overrun or OverrunRule()
        automatic = _overrun(r, rule, path)
        if rule.shift and not automatic:
            r = r.with_odds(r.odds.shifted("overrun", rule.shift))
    actor = c.actor.id
    label = f"{by} on {hex_id}"
    table = r.table
    surprise_text = ""
    if not automatic:
        r, surprise_text = _surprise(f, r, label, actor)
    defender = _side_of(state, fought.defenders[0])
    data: dict[str, Any] = {
        "side": side, "defender": defender, "step": state.step, "by": by, "hex": hex_id,
        "attackers": list(fought.attackers), "defenders": list(fought.defenders),
        "odds": r.shown(), "surprise": surprise_text or None}
    if automatic:
        tasks: tuple[Task, ...] = (Task("eliminate", "defender"),)
        code = "automatic"
        text = (f"{side}: overrun on {hex_id}: {r.words()}; at or above "
                f"{(sc.combat.overrun or OverrunRule()).automatic}, the defenders are "
                "eliminated without a roll.")
        data.update(values=[], total=None, code=code, effects=[])
    else:
        roll = f.roll("combat", table.dice.count, table.dice.faces,
                      text=f"{side}'s {label}: {table.dice.text}", by=actor, label=label)
        outcome = read(r.odds, roll.values)
        code = outcome.code
        tasks = _tasks(outcome.effects, by, sc.combat.advance)
        text = (f"{side}: {by} on {hex_id}: {r.words()}"
                + (f"; {surprise_text}" if surprise_text else "")
                + f"; {outcome.words()}{_meaning(outcome)}.")
        data.update(dice=table.dice.text, values=list(roll.values), total=outcome.total,
                    code=code,
                    row=table.rows[outcome.row].label,
                    effects=[{"kind": e.kind, "value": e.value} for e in outcome.effects])
    data["tasks"] = [task_data(t) for t in tasks]
    f.emit("combat.resolved", text, data, by=actor)
    fight = Fight(f, actor, side, by, hex_id, fought.attackers, fought.defenders)
    if _touches_defender(tasks):
        fight.contact()
    proceed(f, actor)


class CellShown(TypedDict):
    """A row of the odds' column: its dice totals, the cell's codes and their results."""

    roll: str
    code: str
    results: list[str]


class PreviewShown(TypedDict):
    """What a combat would fight at (docs/api.md "Combats the referee decides"): how the
    scenario decides it, and where a table does, the odds and the column's cells."""

    by: str
    hex: str
    side: str
    decided_by: str
    table: str | None
    odds: OddsShown | None
    automatic: bool
    surprise: bool
    cells: list[CellShown]


def preview(f: Flow, c: Command, item: object) -> PreviewShown:
    """A dry run of a `report` with the one combat `item`: the same checks, then the
    odds and what the column could give (no die is rolled; nothing is kept)."""
    side = acting_side(f, c, (st.ACTION, st.REACTION, st.COMBAT, st.EXPLOITATION),
                       "RULES-NOTES 31")
    fought = report_combat(f, c, side, item, "/body/combats/0")
    assert isinstance(item, Mapping)
    if fought is None:  # a naval combat, or players report this kind's results
        return {"by": str(item.get("by")), "hex": str(item.get("hex")), "side": side,
                "decided_by": "reported", "table": None, "odds": None, "automatic": False,
                "surprise": False, "cells": []}
    sc = f.state.setup.scenario
    r = reckon(f.state, fought.by, fought.hex, fought.attackers, fought.defenders)
    automatic = False
    if fought.by == "overrun":
        rule = sc.combat.overrun or OverrunRule()
        automatic = _overrun(r, rule, "/body/combats/0")
        if rule.shift and not automatic:
            r = r.with_odds(r.odds.shifted("overrun", rule.shift))
    table = r.table
    cells: list[CellShown] = [
        {"roll": row.label, "code": row.cells[r.odds.column],
         "results": [e.kind + (f" {e.value}" if e.value is not None else "")
                     for e in table.effects(row.cells[r.odds.column])]}
        for row in table.rows]
    return {"by": fought.by, "hex": fought.hex, "side": side, "decided_by": "table",
            "table": table.title, "odds": r.shown(), "automatic": automatic,
            "surprise": table.surprise is not None and not automatic, "cells": cells}


def _surprise(f: Flow, r: Reckoning, label: str, actor: str) -> tuple[Reckoning, str]:
    """The table's surprise roll, if it has one: the odds shifted for whoever it
    surprises, and the roll in words."""
    sp = r.table.surprise
    if sp is None:
        return r, ""
    roll = f.roll("combat", sp.dice.count, sp.dice.faces,
                  text=f"Surprise roll of the {label}: {sp.dice.text}", by=actor,
                  label=f"surprise, {label}")
    total = sum(roll.values) + sum(mod.worth(r.inputs.get(mod.input, 0))
                                   for mod in sp.modifiers)
    who = sp.side(total)
    text = f"surprise {sp.dice.text} = {sum(roll.values)} -> {total}: " + (
        "nobody surprised" if who is None else f"{who} surprise")
    if who is None:
        return r, text
    won = sp.attacker if who == "attacker" else sp.defender
    assert won is not None
    shift = won.shift
    if won.shift_dice is not None:
        shift_roll = f.roll("combat", won.shift_dice.count, won.shift_dice.faces,
                            text=f"Surprise shift of the {label}: {won.shift_dice.text}",
                            by=actor, label=f"surprise shift, {label}")
        shift = sum(shift_roll.values)
    shifted = r.with_odds(r.odds.shifted(f"{who} surprise",
                                         shift if who == "attacker" else -shift))
    return shifted, f"{text}, {shift} column{'s' if shift > 1 else ''}"


def _meaning(outcome: Outcome) -> str:
    if not outcome.effects:
        return " (no result)"
    parts = [e.kind.replace("_", " ") + (f" {e.value}" if e.value is not None else "")
             for e in outcome.effects]
    return f" ({', '.join(parts)})"


def task_data(t: Task) -> dict[str, Any]:
    return {"kind": t.kind, "who": t.who, "value": t.value, "extra": t.extra,
            "path": list(t.path), "losses": list(t.losses), "units": list(t.units),
            "chosen": t.chosen, "due": t.due}


def _task_of(d: Mapping[str, Any]) -> Task:
    return Task(str(d["kind"]), str(d["who"]), int(d["value"]), int(d["extra"]),
                tuple(d["path"]), tuple(d["losses"]), tuple(d["units"]), bool(d["chosen"]),
                int(d["due"]))


class _Run:
    """The combat being resolved, as its tasks are applied."""

    def __init__(self, f: Flow, actor: str) -> None:
        res = f.state.modes.resolution
        assert res is not None
        self.f, self.actor, self.res = f, actor, res
        self.fight = Fight(f, actor, res.side, res.by, res.hex, res.attackers, res.defenders,
                           contact=True)

    @property
    def state(self) -> State:
        return self.f.state

    def present(self, who: str) -> list[str]:
        units = self.res.attackers if who == "attacker" else self.res.defenders
        return [u for u in units if u in self.state.units]

    def side(self, who: str) -> str:
        return self.res.side if who == "attacker" else self.res.defender

    def cause(self) -> str:
        return f"{self.res.by} result {self.res.code}"

    def strength(self, uid: str, who: str) -> float:
        eff = effective(self.state, uid)
        if eff is None:
            spec = self.state.setup.scenario.unit(uid)
            return float(spec.ocs.combat.strength) if spec.ocs is not None else 0.0
        return float(eff["attack"] if who == "attacker" else eff["defence"])

    # -- questions ---------------------------------------------------------------

    def loss_takers(self, who: str) -> list[str]:
        units = self.present(who)
        fighting = [u for u in units if not m.is_transport(self.state.setup.scenario.unit(u))
                    and self.state.setup.scenario.unit(u).ocs is not None]
        return fighting or units

    def default_losses(self, who: str, count: int) -> tuple[str, ...]:
        """The weakest unit first (its strength in this combat), then by id."""
        left = {u: steps_left(self.state, u) for u in self.loss_takers(who)}
        chosen: list[str] = []
        for _ in range(count):
            open_ = sorted((u for u, n in left.items() if n > 0),
                           key=lambda u: (self.strength(u, who), u))
            if not open_:
                break
            chosen.append(open_[0])
            left[open_[0]] -= 1
        return tuple(chosen)

    def question(self, task: Task) -> Question | None:
        """What `task` asks, or None when it has one answer (or none) and is applied."""
        if task.chosen:
            return None
        if task.kind == "losses":
            takers = self.loss_takers(task.who)
            total = sum(steps_left(self.state, u) for u in takers)
            if len(takers) < 2 or task.value >= total or task.value == 0:
                return None
            default = self.default_losses(task.who, task.value)
            return self._ask("losses", task.who, task.value, tuple(takers), (), default,
                             f"{self.side(task.who)}: name the unit that takes each of the "
                             f"{task.value} step loss(es) of the {self.res.by} on "
                             f"{self.res.hex} ({', '.join(takers)})")
        if task.kind == "retreat":
            movers = self.present("defender")
            if not movers or self.doomed(task):
                return None
            board = Board.from_state(self.state)
            paths = paths_from(self.state, movers, task.value, task.value + task.extra, board)
            if len(paths) < 2:
                return None
            default = _default_path(board, self.state, movers, paths, task.value + task.extra)
            power = self.state.units[movers[0]].power
            zoc = tuple(sorted({x for p in paths for x in p if board.enemy_zoc(x, power)}))
            return replace(self._ask("retreat", "defender", task.value, tuple(movers), paths,
                                     default, _retreat_text(self.res, task, movers)), zoc=zoc)
        if task.kind == "advance":
            movers = self.present("attacker")
            if not movers or enemies_in(self.state, self.res.hex, self.res.side):
                return None
            return self._ask("advance", "attacker", 0, tuple(movers), (), (),
                             f"{self.res.side}: {self.res.hex} is empty: which of "
                             f"{', '.join(movers)} advance into it (none: stay)")
        return None

    def _ask(self, kind: str, who: str, count: int, units: tuple[str, ...],
             paths: tuple[tuple[str, ...], ...], default: tuple[str, ...], text: str
             ) -> Question:
        return Question(kind=kind, side=self.side(who), of=who, count=count, units=units,
                        paths=paths, default=default, asked_at=self.f.at, text=text)

    # -- applying -----------------------------------------------------------------

    def apply(self, task: Task) -> list[Task]:
        """Apply `task` (answered if it asks): what it leaves to do next, if anything."""
        f, by = self.f, self.actor
        if task.kind == "losses":
            self._losses(task)
        elif task.kind == "retreat":
            return self._retreat(task)
        elif task.kind == "move":
            movers = self.present("defender")
            if movers and task.path:
                losses = task.losses or _zoc_losses(self, movers, task.path)
                self.fight.apply({"kind": "retreat", "units": movers, "path": list(task.path),
                                  "losses": list(losses)}, "/body")
                self._exhausted()
        elif task.kind == "dg":
            self._dg(task.who)
        elif task.kind == "shatter":
            units = self.present(task.who)
            if units:
                self.fight.apply({"kind": "shattered", "units": units}, "/body")
        elif task.kind == "eliminate":
            for uid in self.present(task.who):
                eliminate(f, uid, self.cause(), TABLES, by)
        elif task.kind == "exploit":
            self._exploit(task.value)
        elif task.kind == "advance" and task.units:
            self.fight.apply({"kind": "advance", "units": list(task.units)}, "/body")
        return []

    def _losses(self, task: Task) -> None:
        takers = self.loss_takers(task.who)
        if task.chosen:
            named = list(task.units)
        elif task.value >= sum(steps_left(self.state, u) for u in takers):
            for uid in takers:
                eliminate(self.f, uid, f"{self.cause()}: {task.value} step loss(es), more "
                          "than its steps", TABLES, self.actor)
            return
        else:
            named = list(self.default_losses(task.who, task.value))
        for uid in named:
            if uid in self.state.units:
                lose_steps(self.f, uid, 1, self.cause(), TABLES, self.actor)
                self._exhausted()

    def _exhausted(self) -> None:
        for uid in self.present("attacker") + self.present("defender"):
            if steps_left(self.state, uid) == 0:
                eliminate(self.f, uid, f"{self.cause()}: its last step lost", TABLES,
                          self.actor)

    def doomed(self, task: Task) -> bool:
        """Whether the losses a retreat result demands eliminate the defenders anyway."""
        takers = self.loss_takers("defender")
        return task.due >= sum(steps_left(self.state, u) for u in takers)

    def _retreat(self, task: Task) -> list[Task]:
        movers = self.present("defender")
        if not movers:
            return []
        hexes_due, option = task.value, task.extra
        if not task.chosen and self.doomed(task):
            return [Task("losses", "defender", task.due + option)]
        if task.chosen:
            path = task.path
        else:
            paths = paths_from(self.state, movers, hexes_due, hexes_due + option)
            if not paths:
                if hexes_due:
                    self.f.emit("combat.no_retreat", f"{', '.join(movers)} cannot retreat "
                                f"the {hexes_due} hex(es) the result demands from "
                                f"{self.res.hex}: eliminated ({RULE}).",
                                {"hex": self.res.hex, "units": movers, "rule": RULE},
                                by=self.actor)
                    return [Task("eliminate", "defender")]
                path = ()
            else:
                path = paths[0]
        retreated = max(0, len(path) - hexes_due)
        losses = task.due + option - retreated
        out = []
        if losses:
            out.append(Task("losses", "defender", losses))
        if path:
            out.append(Task("move", "defender", path=path, losses=task.losses))
        return out

    def _dg(self, who: str) -> None:
        units = self.present(who)
        hexes = sorted({self.state.units[u].at for u in units})
        for hex_id in hexes:
            if who == "attacker":
                self.fight.apply({"kind": "dg", "hex": hex_id}, "/body")
            else:
                disorganize(self.f, hex_id, f"{self.res.by} result", "OCS 5.10a A",
                            self.actor)

    def _exploit(self, rating: int) -> None:
        res, state = self.res, self.state
        if res.by != "combat" or state.step != st.COMBAT:
            return
        eligible = []
        for uid in self.present("attacker"):
            unit = state.units[uid]
            eff = effective(state, uid)
            if unit.mode in (m.COMBAT, m.MOVE) and eff is not None \
                    and eff["action_rating"] >= rating:
                eligible.append(uid)
        if eligible:
            self.fight.apply({"kind": "exploit", "units": eligible, "rating": rating}, "/body")


def _retreat_text(res: Resolution, task: Task, movers: Sequence[str]) -> str:
    hexes, option, losses = task.value, task.extra, task.due
    what = []
    if losses:
        what.append(f"lose {losses} step(s)")
    if hexes:
        what.append(f"retreat {hexes} hex(es)")
    if option:
        what.append(f"lose {option} more step(s) or retreat up to {option} more hex(es) "
                    "instead, one step a hex")
    empty = " (none: the options are step losses)" if not hexes else ""
    return (f"{res.defender}: {', '.join(movers)} in {res.hex} {', '.join(what)}: choose "
            f"the retreat path{empty}")


def paths_from(state: State, movers: Sequence[str], least: int, most: int,
               board: Board | None = None) -> tuple[tuple[str, ...], ...]:
    """Every legal retreat path of `least` to `most` hexes for the stack `movers` (the
    checks of a reported retreat: next to the last hex, never twice into one, never
    into enemy units or neutral territory), each hex one further from the start than
    the one before (RULES-NOTES 32); the empty path when `least` is 0."""
    sc = state.setup.scenario
    start = state.units[movers[0]].at
    power = state.units[movers[0]].power
    board = board or Board.from_state(state)
    stance = board.stance(power)
    found: list[tuple[str, ...]] = [()] if least == 0 else []

    def walk(path: tuple[str, ...]) -> None:
        last = path[-1] if path else start
        if len(path) >= most:
            return
        for nxt in sorted(sc.map.neighbours(last)):
            if nxt in path or nxt == start:
                continue
            if sc.map.distance(start, nxt) != len(path) + 1:
                continue
            if board.enemy_occupied(nxt, power) or stance.territory[board.at(nxt)] == NEUTRAL:
                continue
            longer = (*path, nxt)
            if len(longer) >= least:
                found.append(longer)
            walk(longer)

    walk(())
    return tuple(found)


def _default_path(board: Board, state: State, movers: Sequence[str],
                  paths: Sequence[tuple[str, ...]], most: int) -> tuple[str, ...]:
    """The longest retreat that enters no enemy ZOC, the first in id order; else the
    shortest path (the empty one: the options as step losses)."""
    power = state.units[movers[0]].power
    for length in range(most, 0, -1):
        for p in paths:
            if len(p) == length and not any(board.enemy_zoc(h, power) for h in p):
                return p
    return min(paths, key=len)


def _zoc_losses(run: _Run, movers: Sequence[str], path: Sequence[str]) -> tuple[str, ...]:
    """Who loses a step in each enemy-ZOC hex that units already DG enter (OCS 5.10a C):
    the weakest of them, by default."""
    state = run.state
    board = Board.from_state(state)
    power = state.units[movers[0]].power
    sc = state.setup.scenario
    dg = {u for u in movers if state.units[u].mode == m.DG}
    left = {u: steps_left(state, u) for u in movers}
    out: list[str] = []
    for k, hex_id in enumerate(path, start=1):
        zoc = board.enemy_zoc(hex_id, power)
        owing = [u for u in sorted(dg) if left[u] > 0]
        if zoc and owing:
            chosen = min(owing, key=lambda u: (run.strength(u, "defender"), u))
            out.append(chosen)
            left[chosen] -= 1
        if zoc or k == 2:
            dg |= {u for u in movers if not m.is_transport(sc.unit(u))}
    return tuple(out)


def proceed(f: Flow, actor: str) -> None:
    """Apply the resolution's tasks in order until one asks a question (the game then
    waits for that side) or none is left (the combat closes)."""
    run = _Run(f, actor)
    tasks = list(run.res.tasks)
    while tasks:
        task = tasks[0]
        question = run.question(task)
        if question is not None:
            f.emit("combat.asked", f"{question.text}; by default: "
                   f"{_answer_words(question, question.default)}.",
                   {"hex": run.res.hex, "question": _question_data(question),
                    "tasks": [task_data(t) for t in tasks]}, by="server")
            return
        tasks = run.apply(task) + tasks[1:]
    res = run.res
    left = enemies_in(f.state, res.hex, res.side)
    outcome = ""
    if res.by == "overrun":
        outcome = (f": the overrun succeeds, {res.hex} is empty" if not left
                   else f": the overrun fails, {', '.join(left)} hold {res.hex}")
    f.emit("combat.closed", f"The {res.by} on {res.hex} ({res.code}) is resolved{outcome}.",
           {"hex": res.hex, "by": res.by, "code": res.code,
            **({"succeeded": not left} if res.by == "overrun" else {})}, by="server")


def _answer_words(q: Question, answer: Sequence[str]) -> str:
    if q.kind == "retreat":
        return f"retreat {' -> '.join(answer)}" if answer else "no retreat, options as losses"
    if q.kind == "advance":
        return f"{', '.join(answer)} advance" if answer else "nobody advances"
    return f"losses on {', '.join(answer)}"


def _question_data(q: Question) -> dict[str, Any]:
    return {"kind": q.kind, "side": q.side, "of": q.of, "count": q.count,
            "units": list(q.units), "paths": [list(p) for p in q.paths],
            "default": list(q.default), "asked_at": q.asked_at, "text": q.text,
            "zoc": list(q.zoc)}


def _question_of(d: Mapping[str, Any]) -> Question:
    return Question(kind=str(d["kind"]), side=str(d["side"]), of=str(d["of"]),
                    count=int(d["count"]), units=tuple(d["units"]),
                    paths=tuple(tuple(p) for p in d["paths"]), default=tuple(d["default"]),
                    asked_at=str(d["asked_at"]), text=str(d["text"]),
                    zoc=tuple(d.get("zoc", ())))


def default_answer(q: Question) -> dict[str, Any]:
    """The body of the `combat.choose` order that answers `q` by default."""
    key = {"losses": "losses", "retreat": "retreat", "advance": "advance"}[q.kind]
    return {key: list(q.default)}


def answered(res: Resolution, body: Mapping[str, Any]) -> tuple[Task, ...]:
    """The tasks once `body` (checked) answers the question of the first one."""
    q = res.question
    assert q is not None
    task = res.tasks[0]
    if q.kind == "retreat":
        chosen = replace(task, path=tuple(body.get("retreat", ())),
                         losses=tuple(body.get("losses", ())), chosen=True)
    else:
        chosen = replace(task, units=tuple(body.get(q.kind, ())), chosen=True)
    return (chosen, *res.tasks[1:])


def _resolved(state: State, e: Event) -> State:
    d = e.data
    res = Resolution(side=d["side"], defender=d["defender"], step=d["step"], by=d["by"],
                     hex=d["hex"], attackers=tuple(d["attackers"]),
                     defenders=tuple(d["defenders"]), code=str(d["code"]),
                     tasks=tuple(_task_of(t) for t in d["tasks"]))
    return replace(state, modes=replace(state.modes, resolution=res))


def _asked(state: State, e: Event) -> State:
    res = state.modes.resolution
    assert res is not None
    res = replace(res, tasks=tuple(_task_of(t) for t in e.data["tasks"]),
                  question=_question_of(e.data["question"]))
    return replace(state, modes=replace(state.modes, resolution=res))


def _answered(state: State, e: Event) -> State:
    res = state.modes.resolution
    assert res is not None
    res = replace(res, tasks=tuple(_task_of(t) for t in e.data["tasks"]), question=None)
    return replace(state, modes=replace(state.modes, resolution=res))


EVOLVE: dict[EventKind, Evolver] = {
    "combat.resolved": _resolved,
    "combat.asked": _asked,
    "combat.answered": _answered,
}
