"""The turn (seed 002 and docs/api.md): initiative, rounds and weather, the
impulse's steps, the turn-end track, and the end of the turn.

Every function here is a server step: it emits events through a Flow and carries the
game forward until some side must act again.

N sides: the initiative ranking sorts every side by total (ties: the side ranked lower
last turn wins, RULES-NOTES 15). The winner takes the first or the last of the open
slots; each next-ranked side takes the first ("before") or last ("after") of the slots
still open, i.e. before or after every side ranked below it; the lowest side takes the
slot left. With three sides this is exactly seed 002; with two only the winner chooses.
"""

from __future__ import annotations

from service.rules import state as st
from service.rules.flow import Flow
from service.rules.modes import face_down_at_clean_up, no_choice
from service.rules.options import weather_row
from service.rules.reorg import could_reorganize
from service.rules.turn.initiative import bonus, rank, shifted_boxes
from service.rules.turn.participants import at_war, has_mode
from service.rules.turn.track import passing_bonus


def start_game(f: Flow) -> None:
    f.emit("game.started", "Every power is held: the game begins.")
    start_turn(f, 1)


def new_chain(f: Flow, from_turn: int, why: str | None = None) -> None:
    """Commit a new chain of seeds from `from_turn` on (docs/dice.md): at creation
    (`dice.committed`), and later (`dice.recommitted`, with the reason) when a rollback
    abandons a revealed seed, on import, or when a game outlives its chain."""
    assert f.dice is not None
    number = len(f.state.dice.chains)
    anchor, length = f.dice.commit(number, from_turn)
    data = {"chain": number, "from_turn": from_turn, "anchor": anchor, "length": length}
    if why is None:
        f.emit("dice.committed", f"Dice: chain of {length} turn seeds from turn {from_turn} "
               f"committed, anchor {anchor[:16]}...", data)
    else:
        f.emit("dice.recommitted", f"Dice: new chain of {length} turn seeds from turn "
               f"{from_turn} ({why}), anchor {anchor[:16]}...", {**data, "reason": why})


def start_turn(f: Flow, number: int) -> None:
    f.emit("turn.began", f"Turn {number} begins.", {"turn": number})
    if f.state.dice.chain_of(number) is None:
        new_chain(f, number, "the game outlived its chain" if f.state.dice.chains else None)
    roll_initiative(f, reroll=False)


def roll_initiative(f: Flow, *, reroll: bool) -> None:
    """seed 002 Initiative Track: a d10 per side plus its box bonus (+2, +1, 0, 0, 0)."""
    sides = f.state.setup.sides
    label = "Initiative dice" + (" (reroll)" if reroll else "")
    roll = f.roll("initiative", len(sides), text=label)
    boxes = f.state.initiative.boxes
    dice = dict(zip(sides, roll.values, strict=True))
    totals = {side: dice[side] + bonus(boxes[side]) for side in sides}
    shown = ", ".join(f"{s} {dice[s]}+{bonus(boxes[s])}={totals[s]}" for s in sides)
    f.emit(
        "initiative.rolled",
        f"Initiative{' reroll' if reroll else ''}: {shown}.",
        {"dice": dice, "boxes": dict(boxes), "totals": totals, "reroll": reroll},
    )
    if reroll:
        rank_sides(f)
        return
    eligible = tuple(s for s in sides if boxes[s] < st.REROLL_BOXES)
    if eligible:
        f.emit(
            "step.began",
            f"Reroll window: {', '.join(eligible)} may demand a reroll (answers are sealed).",
            {"step": st.REROLL, "sides": list(eligible)},
        )
    else:
        f.emit("step.skipped", "No side stands on a reroll box: no reroll window.",
               {"step": st.REROLL, "reason": "no side on a reroll box"})
        rank_sides(f)


def close_reroll(f: Flow) -> None:
    """seed 002 Initiative Track, RULES-NOTES 16: every demander shifts one box right,
    then all sides reroll once."""
    ini = f.state.initiative
    demanded = [s for s in ini.eligible if ini.answers.get(s)]
    boxes = dict(ini.boxes)
    for side in demanded:
        boxes[side] = min(4, boxes[side] + 1)
    text = (
        f"Reroll demanded by {', '.join(demanded)}; their markers shift right."
        if demanded else "No side demanded a reroll."
    )
    f.emit("initiative.reroll_closed", text,
           {"answers": {s: bool(ini.answers.get(s)) for s in ini.eligible},
            "demanded": demanded, "boxes": boxes})
    if demanded:
        roll_initiative(f, reroll=True)
    else:
        rank_sides(f)


def rank_sides(f: Flow) -> None:
    ranking = rank(f.state, f.state.initiative.totals)
    f.emit("initiative.ranked",
           f"{ranking[0]} has the initiative; ranking {', '.join(ranking)}.",
           {"ranking": list(ranking)})
    begin_choice(f)


def begin_choice(f: Flow) -> None:
    """seed 002 Initiative Track: the winner moves first or last, the next before or
    after the sides below it (for any number of sides, RULES-NOTES 15)."""
    ini = f.state.initiative
    open_slots = [i for i, s in enumerate(ini.slots) if s is None]
    placed = {s for s in ini.slots if s is not None}
    remaining = [s for s in ini.ranking if s not in placed]
    if len(open_slots) == 1:
        f.emit("initiative.chosen", f"{remaining[0]} takes the remaining place.",
               {"side": remaining[0], "position": "remaining", "slot": open_slots[0]},
               by="server")
        order = f.state.initiative.slots
        f.emit("turn.order_set", f"Impulse order this turn: {', '.join(str(s) for s in order)}.",
               {"order": list(order)})
        start_round(f)
        return
    chooser = remaining[0]
    first = len(placed) == 0
    question = "first or last" if first else "before or after " + ", ".join(remaining[1:])
    f.emit("step.began", f"{chooser} chooses to move {question}.",
           {"step": st.CHOOSE, "sides": [chooser], "chooser": chooser,
            "positions": ["first", "last"] if first else ["before", "after"]})


def choose(f: Flow, side: str, position: str, by: str) -> None:
    ini = f.state.initiative
    open_slots = [i for i, s in enumerate(ini.slots) if s is None]
    slot = open_slots[0] if position in ("first", "before") else open_slots[-1]
    f.emit("initiative.chosen", f"{side} chooses to move {position}.",
           {"side": side, "position": position, "slot": slot}, by=by)
    begin_choice(f)


def start_round(f: Flow) -> None:
    number = f.state.turn.round + 1
    f.emit("round.began", f"Round {number} begins.", {"round": number})
    roll = f.roll("weather", 1, text="Weather die")
    row = weather_row(f.state.weather_table(), roll.values[0])
    f.emit("weather.set",
           f"Weather {row['weather']} (roll {row['roll']}): {row['dice']} turn-end "
           f"{'die' if row['dice'] == 1 else 'dice'}, supply path {row['supply_path']}.",
           dict(row))
    start_impulse(f, f.state.turn.order[0])


def start_impulse(f: Flow, side: str) -> None:
    number = f.state.turn.impulse + 1
    f.emit("impulse.began", f"Impulse {number}: {side} moves.", {"impulse": number, "side": side})
    f.emit("step.began", f"{side} declares: pass or an action for each power.",
           {"step": st.DECLARE, "sides": [side]})


def after_declare(f: Flow) -> None:
    """All of the phasing side's powers declared: on to the action, or skip to clean up."""
    side = f.state.turn.phasing_side
    assert side is not None
    if all(f.state.powers[p].declared == "pass" for p in f.state.side_powers(side)):
        f.emit("step.skipped", f"Every power of {side} passed: no action, reaction, combat "
               "or exploitation.", {"step": st.ACTION,
                                    "skipped": [st.ACTION, st.REACTION, st.COMBAT,
                                                st.EXPLOITATION],
                                    "reason": "every power of the phasing side passed"})
        clean_up(f)
        return
    f.emit("step.began", f"{side}'s action step (OCS movement phase).",
           {"step": st.ACTION, "sides": [side]})


def after_side_step(f: Flow) -> None:
    """The current side-wide step is done by everyone in it: take the next one."""
    step = f.state.turn.step
    if step == st.REROLL:
        close_reroll(f)
    elif step == st.ACTION:
        begin_reaction(f)
    elif step == st.REACTION:
        begin_combat(f)
    elif step == st.COMBAT:
        begin_exploitation(f)
    elif step == st.EXPLOITATION:
        clean_up(f)
    elif step == st.REORGANIZATION:
        turn_end_roll(f)
    elif step == st.FINAL_REORGANIZATION:
        finish_turn(f)


def begin_reaction(f: Flow) -> None:
    """RULES-NOTES 31: every side at war with the phasing side that has a unit in
    Reserve; of those, a side none of whose Reserve units may be released (OCS 5.7b:
    each unit's power must be at war with the phasing side) is not asked (issue 20)."""
    side = f.state.turn.phasing_side
    assert side is not None
    candidates = [s for s in f.state.turn.order if s != side and at_war(f.state, s, side)
                  and has_mode(f.state, s, ("reserve",))]
    reacting = [s for s in candidates if not _skipped(f, s, st.REACTION)]
    if not reacting:
        f.emit("step.skipped", "No side at war with the phasing side has a unit in Reserve "
               "it may release: no reaction step.",
               {"step": st.REACTION, "reason": "no reserves to release"})
        begin_combat(f)
        return
    f.emit("step.began", f"Reaction step: {', '.join(reacting)} may release reserves.",
           {"step": st.REACTION, "sides": reacting})


def _skipped(f: Flow, side: str, step: st.Step) -> bool:
    """Issue 20: `side` has no legal choice in `step` (`modes.no_choice`): it is not
    asked, and a `side.skipped` event says why."""
    why = no_choice(f.state, side, step)
    if why is None:
        return False
    f.emit("side.skipped", f"{side} is not asked in the {step} step: {why}.",
           {"side": side, "step": step, "reason": why})
    return True


def begin_combat(f: Flow) -> None:
    """The phasing side's combat step, unless it has nothing to attack, barrage, fly or
    resolve (issue 20): then on to exploitation."""
    side = f.state.turn.phasing_side
    assert side is not None
    why = no_choice(f.state, side, st.COMBAT)
    if why is not None:
        f.emit("step.skipped", f"No combat step: {why}.",
               {"step": st.COMBAT, "reason": why})
        begin_exploitation(f)
        return
    f.emit("step.began", f"{side}'s combat step: report results.",
           {"step": st.COMBAT, "sides": [side]})


def begin_exploitation(f: Flow) -> None:
    """The phasing side's exploitation step, when a unit of it may exploit or be
    released (OCS 5.9, OCS 5.7b); otherwise on to clean up."""
    side = f.state.turn.phasing_side
    assert side is not None
    if not has_mode(f.state, side, ("reserve", "exploit")):
        f.emit("step.skipped", f"{side} has no unit in Reserve or Exploit mode: no "
               "exploitation step.", {"step": st.EXPLOITATION, "reason": "nothing can exploit"})
        clean_up(f)
        return
    why = no_choice(f.state, side, st.EXPLOITATION)
    if why is not None:
        f.emit("step.skipped", f"No exploitation step: {why}.",
               {"step": st.EXPLOITATION, "reason": why})
        clean_up(f)
        return
    f.emit("step.began", f"{side}'s exploitation step.",
           {"step": st.EXPLOITATION, "sides": [side]})


def clean_up(f: Flow) -> None:
    """OCS clean up at the end of the phasing side's impulse: units that moved, attacked
    or are at sea turn face down (11.18, option `reorg.face_down`); DG and Exploit
    markers of the phasing side's units are removed (OCS 5.9, OCS 5.10; RULES-NOTES 31)."""
    side = f.state.turn.phasing_side
    sc = f.state.setup.scenario
    down = face_down_at_clean_up(f.state)
    if down:
        f.emit("units.turned_face_down", f"Clean up: {', '.join(down)} moved, attacked or are "
               "at sea this impulse and turn face down (11.18).",
               {"units": down, "cause": "clean up", "rule": "11.18"})
    cleared = sorted(
        uid for uid, u in f.state.units.items()
        if u.mode in ("dg", "exploit") and sc.side_of_power(u.power) == side
    )
    f.emit("impulse.cleaned_up",
           f"Clean up: {len(cleared)} DG/Exploit marker(s) of {side} removed.",
           {"side": side, "units": cleared})
    begin_reorganization(f)


def begin_reorganization(f: Flow) -> None:
    """RULES-NOTES 6: the side that just moved reorganizes (option `reorg.impulse_step`)."""
    side = f.state.turn.phasing_side
    assert side is not None
    everyone = f.state.setup.options["reorg"]["impulse_step"] == "all"
    candidates = list(f.state.turn.order) if everyone else [side]
    sides = [s for s in candidates if could_reorganize(f.state, s)]
    if not sides:
        f.emit("step.skipped", "Nothing to reorganize or repair: no reorganization step.",
               {"step": st.REORGANIZATION,
                "reason": "no face-down unit to reorganize nor damaged port to repair"})
        turn_end_roll(f)
        return
    grant_rps(f, sides)
    f.emit("step.began", f"Reorganization step: {', '.join(sides)}.",
           {"step": st.REORGANIZATION, "sides": sides})


def grant_rps(f: Flow, sides: list[str]) -> None:
    """RULES-NOTES 8: RPs = BP spent last turn (with BP on RPs) + BP spent on RPs."""
    powers = f.state.powers
    rps = {p.id: powers[p.id].bp_spent_last_turn + powers[p.id].bp_on_rps
           for p in f.state.setup.scenario.powers if powers[p.id].side in sides}
    f.emit("rps.granted", "RPs accrue: " + ", ".join(f"{p} {n}" for p, n in rps.items()) + ".",
           {"rps": rps})


def turn_end_roll(f: Flow) -> None:
    """seed 002 Turn End: the circled number of d10s, each plus the passing bonus;
    at or above the threshold the turn ends unless the (natural) last die is 1-3.
    When the threshold is certain, only the last die is rolled (RULES-NOTES 12, 14); the
    dice not rolled count at their least, so the total does reach the threshold and the
    last die alone decides, as in the seed's example."""
    t = f.state.turn
    side = t.phasing_side
    assert side is not None and t.weather is not None
    count = int(t.weather["dice"])
    per_die = passing_bonus(f.state, side)
    certain = t.turn_end_total + count * (1 + per_die) >= t.threshold
    roll = f.roll("turn_end", 1 if certain else count, text=f"{side}'s turn-end dice")
    added = sum(v + per_die for v in roll.values)
    if certain:  # the dice not rolled count at their least: the total reaches the threshold
        added += (count - 1) * (1 + per_die)
    total = t.turn_end_total + added
    last = roll.values[-1]
    ends = total >= t.threshold and last >= 4
    if ends:
        verdict = f"at or above {t.threshold} and the last die is {last}: the turn ends"
    elif total >= t.threshold:
        verdict = f"at or above {t.threshold} but the last die is {last}: the turn goes on"
    else:
        verdict = f"below {t.threshold}: the turn goes on"
    f.emit("turn_end.rolled",
           f"Turn-end number {t.turn_end_total} + {added} = {total}"
           f"{' (only the last die: the threshold was certain)' if certain else ''}; {verdict}.",
           {"side": side, "values": list(roll.values), "bonus_per_die": per_die,
            "added": added, "total": total, "threshold": t.threshold, "last_die": last,
            "certain": certain, "ends": ends})
    taken = f.state.turn.impulses_taken[side] + 1
    f.emit("impulse.ended", f"{side}'s impulse ends ({taken} this turn).",
           {"side": side, "impulses_taken": taken})
    if ends:
        end_turn(f)
    else:
        next_impulse(f)


def next_impulse(f: Flow) -> None:
    t = f.state.turn
    assert t.phasing_side is not None
    position = t.order.index(t.phasing_side)
    if position + 1 < len(t.order):
        start_impulse(f, t.order[position + 1])
    else:
        start_round(f)


def end_turn(f: Flow) -> None:
    t = f.state.turn
    f.emit("turn.ended", f"Turn {t.number} ends after {sum(t.impulses_taken.values())} "
           "impulses.", {"turn": t.number, "impulses_taken": dict(t.impulses_taken)})
    sides = [s for s in t.order if could_reorganize(f.state, s)]
    if f.state.setup.options["reorg"]["final_step"] and sides:
        grant_rps(f, sides)
        f.emit("step.began", "Final reorganization step: every power (13.5 as amended).",
               {"step": st.FINAL_REORGANIZATION, "sides": sides})
        return
    f.emit("step.skipped", "No final reorganization step.",
           {"step": st.FINAL_REORGANIZATION, "reason": "nothing to reorganize"})
    finish_turn(f)


def finish_turn(f: Flow) -> None:
    """The markers shift (seed 002 Initiative Track), the seed is revealed, production."""
    before = dict(f.state.initiative.boxes)
    after = shifted_boxes(f.state)
    moved = [f"{s} {'left' if after[s] < before[s] else 'right'}"
             for s in after if after[s] != before[s]]
    f.emit("initiative.shifted",
           "Initiative markers: " + (", ".join(moved) if moved else "no change") + ".",
           {"before": before, "boxes": after, "rank": list(f.state.initiative.ranking)})
    turn = f.state.turn.number
    assert f.dice is not None
    seed = f.dice.reveal(turn)
    f.emit("dice.revealed", f"Dice seed of turn {turn} revealed.", {"turn": turn, "seed": seed})
    f.emit("step.began", "Production: each power reports BP spent and BP spent on RPs.",
           {"step": st.PRODUCTION, "sides": list(f.state.turn.order)})


def after_production(f: Flow) -> None:
    """Next turn's RPs (RULES-NOTES 8), and the fuel the scenario adds per turn
    (RULES-NOTES 30) when it has fuel."""
    powers = f.state.powers
    figures = {p: dict(ps.production or {}) for p, ps in powers.items()}
    data: dict[str, object] = {"powers": figures}
    text = "Production done: next turn's RPs set."
    fuel = f.state.setup.scenario.fuel
    if fuel is not None:
        added = {p: fuel.income(p) for p in powers}
        data["fuel"] = added
        text += " Fuel: " + ", ".join(f"{p} +{n} fuel ({(powers[p].fuel or 0) + n})"
                                     for p, n in added.items()) + "."
    f.emit("production.applied", text, data)
    start_turn(f, f.state.turn.number + 1)
