"""The GM's weather table for the coming rounds (RULES-NOTES: options are fixed at
creation, except the weather table, which the GM may replace for a coming turn)."""

from __future__ import annotations

from dataclasses import replace

from service.rules.command import Command
from service.rules.errors import Malformed, Refused
from service.rules.events import Event, EventKind
from service.rules.flow import Flow
from service.rules.options import _check_weather
from service.rules.state import Evolver, State


def set_weather_table(f: Flow, c: Command) -> None:
    """`admin.weather {table, from_turn, reason}`: the table used by weather rolls from the
    start of turn `from_turn` (default: the next turn) on; `table: null` restores the
    game's own."""
    if f.state.status == "finished":
        raise Refused("admin/finished", "the game is over")
    table = c.body.get("table")
    from_turn = c.body.get("from_turn", f.state.turn.number + 1)
    problems: list[tuple[str, str]] = []
    if table is not None:
        _check_weather(table, problems)
    if not isinstance(from_turn, int) or isinstance(from_turn, bool) or \
            from_turn <= f.state.turn.number:
        problems.append(("/from_turn", f"a coming turn: after {f.state.turn.number}"))
    if problems:
        raise Malformed("admin/invalid_weather", f"{problems[0][0]}: {problems[0][1]}",
                        rule="RULES-NOTES weather table",
                        errors=[(p.replace("/options/weather/table", "/table"), m)
                                for p, m in problems])
    what = "the game's own weather table" if table is None else "a new weather table"
    f.emit("weather.table_set", f"The GM sets {what} from turn {from_turn}: "
           f"{c.body.get('reason', '')}".strip(),
           {"table": table, "from_turn": from_turn, "reason": c.body.get("reason", "")},
           by="gm")


def _table_set(state: State, e: Event) -> State:
    return replace(state, weather_pending=(int(e.data["from_turn"]), e.data["table"]))


EVOLVE: dict[EventKind, Evolver] = {
    "weather.table_set": _table_set,
}
