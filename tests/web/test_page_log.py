"""The play page's log for people (service/web/log.js), run by Node: an event's text as
a sentence with the players' names, "allies'" for "allies's", arrows, and a mode change
in words; the technical kind stays out of the sentence."""

from __future__ import annotations

import json
import subprocess

from js_tools import ROOT, node

LOG = ROOT / "service" / "web" / "log.js"
PLAYER = "0123456789abcdef0123456789abcdef"


def sentences(events: list[dict[str, object]], names: dict[str, str]) -> list[str]:
    script = (f"import {{ sentence }} from {json.dumps(LOG.as_uri())};\n"
              f"const events = {json.dumps(events)};\n"
              f"const names = {json.dumps(names)};\n"
              "process.stdout.write(JSON.stringify(events.map((e) => sentence(e, names))));\n")
    done = subprocess.run([node(), "--input-type=module", "-e", script], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    result: list[str] = json.loads(done.stdout)
    return result


def test_the_log_reads_as_sentences_with_names() -> None:
    events = [
        {"kind": "dice.rolled", "text": f"{PLAYER} rolls 2d10 for attrition: 3, 9.",
         "data": {}},
        {"kind": "step.began", "text": "it is communists's impulse, not allies's.", "data": {}},
        {"kind": "unit.moved", "text": "ger-inf-5 moves 1003 -> 0903 (1 MP).", "data": {}},
        {"kind": "unit.mode_changed", "text": "ger-hq-1 in h30: Combat/combat -> Move/move.",
         "data": {"unit": "ger-hq-1", "hex": "h30", "mode": "move", "orientation": "move",
                  "from": {"mode": "combat", "orientation": "combat"}}},
        {"kind": "unit.mode_changed", "text": "x", "data": {
            "unit": "ger-arm-1", "hex": "0606", "mode": "reserve", "orientation": "move",
            "from": {"mode": "combat", "orientation": "combat"}}},
        {"kind": "seat.taken", "text": f"{'f' * 32} joins axis.", "data": {}},
        {"kind": "standing.armed", "text": "axis arms a standing order: done in each "
         "reaction step, unless enemy_adjacent_reserve, unit_attacked.",
         "data": {"stops": [{"kind": "enemy_adjacent_reserve"}, {"kind": "unit_attacked"}]}},
        {"kind": "standing.armed", "text": "allies holds done for its steps after action "
         "through exploitation this impulse, unless unit_attacked.",
         "data": {"stops": [{"kind": "unit_attacked"}]}},
    ]
    assert sentences(events, {PLAYER: "Dave"}) == [
        "Dave rolls 2d10 for attrition: 3, 9.",
        "it is communists' impulse, not allies'.",
        "ger-inf-5 moves 1003 → 0903 (1 MP).",
        "ger-hq-1 in h30: Combat Mode → Move Mode.",
        "ger-arm-1 in 0606: Combat Mode → Reserve Mode (move side up).",
        "a player joins axis.",
        # A standing order's stops in words, not their identifiers (issue 20).
        "axis arms a standing order: done in each reaction step, unless an enemy comes "
        "next to a Reserve unit or a unit is attacked.",
        "allies holds done for its steps after action through exploitation this impulse, "
        "unless a unit is attacked.",
    ]


def test_deadlines_logged_as_seconds_read_in_words() -> None:
    """Issue 30: a `deadlines.set` logged before it was said in words (a mapping of
    seconds) reads in words too; one logged in words keeps its text."""
    events = [
        {"kind": "deadlines.set", "text": "The GM sets step deadlines: {'declare': 86400, "
         "'action': 9000}. a day to declare",
         "data": {"deadlines": {"declare": 86400, "action": 9000},
                  "reason": "a day to declare"}},
        {"kind": "deadlines.set", "text": "The GM sets step deadlines: declare 1 day.",
         "data": {"deadlines": {"declare": 86400}, "reason": ""}},
    ]
    assert sentences(events, {}) == [
        "The GM sets step deadlines: declare 1 day; action 2 h 30 min. a day to declare",
        "The GM sets step deadlines: declare 1 day.",
    ]
