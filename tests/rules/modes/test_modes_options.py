"""A unit's options (issue 16): every mode it may take and why not the others, the hexes
its moves may end in with their cost and path, transport, attacks, releases and
exploitation; and (hypothesis) the options and the `report` order agree: a listed move
is accepted, a hex not listed cannot be reached, a refused report changes nothing."""

from __future__ import annotations

from collections import deque
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from modes_kit import game, mode, until
from move_kit import drawn_game, go, land, moved, moves

from service.rules.errors import RulesError
from service.rules.modes import unit_options


def _modes(options: dict[str, Any]) -> tuple[set[tuple[str, str]], dict[tuple[str, str], str]]:
    legal = {(x["mode"], x["orientation"]) for x in options["modes"]["legal"]}
    illegal = {(x["mode"], x["orientation"]): x["rule"] for x in options["modes"]["illegal"]}
    return legal, illegal


def test_options_list_every_mode_and_say_why_not_the_others() -> None:
    """ger-inf-1 stands in cw-inf-1's ZOC (no Reserve, OCS 5.7c; no Strat, OCS 5.8a); DG and
    Exploitation are involuntary (OCS 5.3)."""
    t = game()
    legal, illegal = _modes(unit_options(t.state, "ger-inf-1"))
    assert legal == {("move", "move")}
    assert illegal[("reserve", "combat")] == "OCS 5.7c"
    assert illegal[("strat", "move")] == "OCS 5.8a"
    assert illegal[("dg", "combat")] == "OCS 5.3"
    assert illegal[("exploit", "combat")] == "OCS 5.3"
    assert illegal[("combat", "combat")] == "OCS 5.4"  # no change
    legal, _ = _modes(unit_options(t.state, "ger-inf-2"))
    assert {("reserve", "combat"), ("reserve", "move"), ("strat", "move")} <= legal
    _, other = _modes(unit_options(t.state, "cw-inf-1"))
    assert set(other.values()) == {"RULES-NOTES 31"}  # the CW takes no part in this step


def test_options_list_the_hexes_a_unit_reaches_with_cost_and_path() -> None:
    t = drawn_game("g g g g g", land("ger-inf-1", "0101", combat=3),
                   terrain={"0301": "forest"})
    options = unit_options(t.state, "ger-inf-1")
    hexes = {h["to"]: (h["mp"], h["spends"], h["path"]) for h in options["moves"]["hexes"]}
    assert hexes == {"0201": (1, 1, ["0201"]), "0301": (3, 3, ["0201", "0301"])}
    assert options["moves"]["mp"] == {"ma": 3, "used": 0, "left": 3, "rule": "OCS 5.5",
                                      "move_class": "leg"}
    moves(t, go("ger-inf-1", "0301", "0201"))
    left = unit_options(t.state, "ger-inf-1")["moves"]
    assert (left["may"], left["why"]["rule"]) == (False, "OCS 5.5")


def test_options_say_why_a_unit_does_not_move_now() -> None:
    t = game()
    cw = unit_options(t.state, "cw-inf-1")["moves"]
    assert (cw["may"], cw["why"]["code"]) == (False, "order/not_your_turn")
    face_down = game({"ger-arm-1": {"face_up": False}})
    why = unit_options(face_down.state, "ger-arm-1")["moves"]["why"]
    assert why["rule"] == "RULES-NOTES 27"


def test_options_list_attacks_releases_and_exploitation_by_step() -> None:
    t = game({"ger-arm-1": {"at": "h31"}})
    overrun = unit_options(t.state, "ger-arm-1")["attack"]["by"]["overrun"]
    assert overrun == {"may": True, "hexes": ["h21"]}
    until(t, "combat")
    attack = unit_options(t.state, "ger-arm-1")["attack"]
    assert attack["may"] and attack["by"]["combat"]["hexes"] == ["h21"]
    assert unit_options(t.state, "ger-arm-1")["exploit"]["earn"] is True
    t = game()
    mode(t, ("ger-inf-2", "reserve"))
    options = unit_options(t.state, "ger-inf-2")
    assert options["attack"]["may"] is False  # Reserve: no overrun (OCS 5.7)
    assert options["release"]["why"]["rule"] == "OCS 5.7b"
    until(t, "reaction")
    release = unit_options(t.state, "cw-arm-1")["release"]
    assert release == {"may": True, "why": None}


def test_options_list_transport_destinations_and_carriers() -> None:
    from move_kit import other

    t = drawn_game("G G G g", land("ger-inf-1", "0101", mode="move", orientation="move"),
                   other("ger-atr-1", "0101", "ATR", atr={"range": 3, "base": "0101"}),
                   powers=[{"id": "germany", "side": "axis", "rail_moves": 1,
                            "at_war_with": ["cw"]},
                           {"id": "cw", "side": "allies", "at_war_with": ["germany"]},
                           {"id": "ussr", "side": "communists"}])
    transport = unit_options(t.state, "ger-inf-1")["moves"]["transport"]
    assert transport["rail"] == [{"carrier": None, "to": ["0201", "0301"], "spends": 6}]
    assert transport["air"] == [{"carrier": "ger-atr-1", "to": ["0201", "0301", "0401"],
                                 "spends": 6}]
    moves(t, go("ger-inf-1", "0401", transport="air"))
    assert moved(t, "ger-inf-1")["carrier"] == "ger-atr-1"


# ------------------------------------------------------------------ options and report agree

COLUMNS = 6
ROWS = 4
TERRAINS = ["clear", "clear", "clear", "forest", "mountain", "swamp", "urban"]
MODES = [("combat", "combat"), ("move", "move"), ("reserve", "move"), ("reserve", "combat"),
         ("strat", "move"), ("dg", "combat")]


def _hex(q: int, r: int) -> str:
    return f"{q + 1:02d}{r + 1:02d}"


@st.composite
def _games(draw: st.DrawFn) -> tuple[Any, str]:
    """A 6x4 map, Germany's left half, the CW's right half, random terrain and rivers;
    2-4 German units in random modes and 1-3 CW units; one German unit to ask about. The
    Axis has as many Reserve markers as its stacks in Reserve use, or one more (OCS 5.4a:
    a Reserve unit's listed moves keep within them)."""
    cells = [(q, r) for r in range(ROWS) for q in range(COLUMNS)]
    art = "\n".join(" " * r + " ".join("g" if q < 3 else "." for q in range(COLUMNS))
                    for r in range(ROWS))
    terrain = {_hex(q, r): draw(st.sampled_from(TERRAINS)) for q, r in cells}
    rivers = draw(st.lists(st.sampled_from([("0101", "0201"), ("0202", "0302"),
                                            ("0203", "0303"), ("0302", "0402")]),
                           unique=True, max_size=3))
    units = []
    for i in range(draw(st.integers(2, 4))):
        q, r = draw(st.sampled_from(cells[:3] + cells[6:9] + cells[12:15]))
        m, o = draw(st.sampled_from(MODES))
        units.append(land(f"ger-u-{i}", _hex(q, r), mode=m, orientation=o,
                          type=draw(st.sampled_from(["INF", "ARM"])),
                          combat=draw(st.integers(1, 5)), move=draw(st.integers(2, 8))))
    for i in range(draw(st.integers(1, 3))):
        q, r = draw(st.sampled_from([c for c in cells if c[0] >= 3]))
        units.append(land(f"cw-u-{i}", _hex(q, r), power="cw"))
    zoc = draw(st.sampled_from([None, {"zoc": "free"}, {"zoc_exit_cost": 1}]))
    stacks = {u["at"] for u in units if u["ocs"]["mode"] == "reserve"}
    t = drawn_game(art, *units, terrain=terrain, hexsides=[(a, b, "river") for a, b in rivers],
                   sources={"0101": ("primary", "germany")},
                   reserve_markers=len(stacks) + draw(st.integers(0, 1)),
                   options={"movement": zoc} if zoc else None,
                   weather=draw(st.sampled_from([None, "snow"])))
    return t, draw(st.sampled_from([u["id"] for u in units if u["power"] == "germany"]))


def _straight(t: Any, start: str, to: str) -> list[str]:
    """A shortest path of adjacent hexes from `start` to `to`, whatever it costs."""
    m = t.state.setup.scenario.map
    parent: dict[str, str | None] = {start: None}
    todo = deque([start])
    while todo:
        u = todo.popleft()
        for v in sorted(m.neighbours(u)):
            if v not in parent:
                parent[v] = u
                todo.append(v)
    path = [to]
    while parent[path[-1]] != start:
        path.append(str(parent[path[-1]]))
    return path[::-1]


@given(_games(), st.data())
def test_listed_moves_are_accepted_and_unlisted_hexes_refused(game_and_unit: tuple[Any, str],
                                                               data: st.DataObject) -> None:
    t, uid = game_and_unit
    options = unit_options(t.state, uid)
    listed = {h["to"]: h for h in options["moves"]["hexes"]}
    at = t.state.units[uid].at
    others = sorted(h.id for h in t.state.setup.scenario.map.hexes
                    if h.id not in listed and h.id != at)
    if others:
        to = data.draw(st.sampled_from(others))
        before, count = t.state, len(t.events)
        try:
            moves(t, go(uid, to, *_straight(t, at, to)[:-1]))
        except RulesError:
            pass
        else:
            raise AssertionError(f"{uid} reached {to}, which its options do not list")
        assert t.state is before and len(t.events) == count
    if listed:
        choice = listed[data.draw(st.sampled_from(sorted(listed)))]
        moves(t, {"unit": uid, "to": choice["to"], "path": choice["path"], "mp": choice["mp"]})
        assert t.state.units[uid].at == choice["to"]
        assert moved(t, uid)["mp"] == choice["spends"]
