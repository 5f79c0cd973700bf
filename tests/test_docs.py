"""The documents keep the project's whole contract and cannot rot: docs/scenario.md's
example creates a game and its field tables are the reader's fields; every option of
`service/rules/options.py` is in docs/rules-options.md with its default; the numbered
readings are all there; docs/client.md's library example runs against a live server
and every `wif` command is described; every link and file path in the README and the
documents exists in the repository, and nothing sends a reader outside it."""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from doc_examples import runs

from service.client.cli import app as wif_app
from service.rules import options
from service.rules.combat import reading as combat_reading
from service.rules.scenario import fuel, reading, tables, types, writing
from tests.support import full_game, start_impulses

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def document(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def example(text: str, name: str) -> str:
    """The fenced block right after `<!-- example: name -->`."""
    found = re.search(rf"<!-- example: {re.escape(name)} -->\n```\w*\n(.*?)\n```", text,
                      re.DOTALL)
    assert found, f"no example {name!r}"
    return found.group(1)


def section(text: str, heading: str) -> str:
    """The text under `heading` (a whole heading line) up to the next heading."""
    lines = text.splitlines()
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("#")), len(lines))
    return "\n".join(lines[start:end])


def table_rows(text: str) -> list[list[str]]:
    """The cells of every body row of the markdown tables in `text` (header rows, those
    right above a |---| line, left out)."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    separator = re.compile(r"^\|[\s|:-]+\|$")
    return [[cell.strip() for cell in line.split("|")[1:-1]]
            for i, line in enumerate(lines)
            if not separator.match(line)
            and not (i + 1 < len(lines) and separator.match(lines[i + 1]))]


# ---------------------------------------------------------------------- the scenario


SCENARIO = document("scenario.md")


@runs("docs/scenario.md", "scenario")
async def test_the_scenario_example_creates_a_game(client: httpx.AsyncClient) -> None:
    scenario = json.loads(example(SCENARIO, "scenario"))
    r = await client.post("/v1/games", json={"name": "Strip", "scenario": scenario})
    assert r.status_code == 201, r.text
    assert set(r.json()["join_codes"]) == {"axis", "allies", "communists"}
    state = await client.get(f"/v1/games/{r.json()['id']}/state",
                             headers={"Authorization": f"Bearer {r.json()['gm_token']}"})
    units = state.json()["units"]
    assert set(units) == {u["id"] for u in scenario["units"]}
    # The defaults the page promises for them.
    assert (units["cw-truck-1"]["mode"], units["cw-truck-1"]["orientation"]) == ("move",
                                                                                 "move")
    assert (units["ussr-inf-1"]["mode"], units["ussr-inf-1"]["orientation"]) == ("strat",
                                                                                 "move")


@runs("docs/scenario.md", "scenario-problems")
async def test_the_scenario_problems_shown_are_the_apis_answer(
    client: httpx.AsyncClient,
) -> None:
    broken = json.loads(example(SCENARIO, "scenario"))
    # What the page says it changed: the swamp hex renamed, the destroyer moved inland,
    # Germany dropped from the USSR's wars.
    swamp = next(h for h in broken["map"]["hexes"] if h.get("terrain") == "swamp")
    swamp["id"] = "cw-inf-1"
    next(u for u in broken["units"] if u["id"] == "cw-dd-1")["at"] = "0201"
    next(p for p in broken["powers"] if p["id"] == "ussr")["at_war_with"] = []
    r = await client.post("/v1/games", json={"name": "Broken", "scenario": broken})
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("application/problem+json")
    shown = json.loads(example(SCENARIO, "scenario-problems"))
    answer = r.json()
    assert {key: answer.get(key) for key in shown} == shown


@runs("docs/scenario.md", "combat-log")
async def test_the_scenario_examples_combat_log_is_what_the_referee_writes(
    client: httpx.AsyncClient,
) -> None:
    """Issue 29: the example's odds, column, roll and result, as a player checks them."""
    scenario = json.loads(example(SCENARIO, "scenario"))
    game = await full_game(client, scenario, dice={"mode": "scripted", "script": {
        "initiative": [10, 1, 1], "combat": [1, 2]}})
    summary = await start_impulses(game)
    assert summary["awaiting"][0]["side"] == "axis"
    axis = game.players["axis"]
    await axis.ok("declare", {"actions": {"germany": "land"}})
    for _ in range(10):
        entry = (await client.get(f"/v1/games/{game.id}", headers=game.gm)).json()[
            "awaiting"][0]
        if (entry["side"], entry["step"]) == ("axis", "combat"):
            break
        await game.players[entry["side"]].ok("done")
    await axis.ok("report", {"combats": [{"by": "combat", "hex": "0201",
                                          "attackers": ["ger-inf-1"]}]})
    resolved = [e for e in await game.log() if e["kind"] == "combat.resolved"]
    assert resolved[-1]["text"] == example(SCENARIO, "combat-log")
    state = await game.state()
    assert state["units"]["ger-inf-1"]["steps_lost"] == 1
    assert state["awaiting"][0]["step"] == "combat.choice"
    assert state["awaiting"][0]["side"] == "allies"


@pytest.mark.parametrize(("heading", "fields"), [
    ("## The document", reading._SCENARIO_FIELDS),
    ("## Sides", reading._SIDE_FIELDS),
    ("## Powers", reading._POWER_FIELDS),
    ("## Minors", reading._MINOR_FIELDS),
    ("## The map", reading._MAP_FIELDS),
    ("### Hexes", reading._HEX_FIELDS),
    ("### Sea areas", reading._SEA_FIELDS),
    ("## Units", reading._UNIT_FIELDS),
    ("### `atr`: an air transport", reading._ATR_FIELDS),
    ("### `air`: an air unit's air combat data", reading._AIR_FIELDS),
    ("### `ocs`: a ground unit's OCS data", reading._OCS_FIELDS),
    ("### Hexsides", reading._HEXSIDE_FIELDS),
    ("## Movement: the terrain effects table", reading._MOVEMENT_FIELDS),
    ("### Movement costs", reading._COSTS_FIELDS),
    ("### Stacking", reading._STACKING_FIELDS),
    ("## Combat: the tables", tables._FIELDS),
    ("### A table", combat_reading._TABLE_FIELDS),
    ("### Columns", combat_reading._COLUMNS_FIELDS),
    ("### The legend: result kinds", tuple(tables.LAND_KINDS)),
    ("### Modifiers", combat_reading._MODIFIER_FIELDS),
    ("### Terrain and hexside effects", combat_reading._EFFECT_FIELDS),
    ("### Surprise", combat_reading._SURPRISE_FIELDS),
    ("### The overrun rule", tables._OVERRUN_FIELDS),
    ("## Fuel", fuel._FIELDS + fuel._POWER_FIELDS),
])
def test_every_scenario_field_is_described(heading: str, fields: tuple[str, ...]) -> None:
    described = [name for row in table_rows(section(SCENARIO, heading))
                 for name in re.findall(r"`([a-z_]+)`", row[0])]
    assert sorted(described) == sorted(fields), heading


def test_every_name_the_scenario_reader_knows_is_on_the_page() -> None:
    names = (*types.TERRAINS, *types.PORTS, *types.SUPPLY_KINDS, *types.UNIT_CLASSES,
             *types.SIZES, *types.MODES, *types.ORIENTATIONS, *types.OCS_KINDS,
             *(t for kinds in types.UNIT_TYPES.values() for t in kinds), *reading._VALUES_FIELDS,
             *types.HEXSIDE_FEATURES, *types.MOVE_CLASSES)
    missing = [name for name in names if f"`{name}`" not in SCENARIO
               and not re.search(rf"\b{name}\b", SCENARIO)]
    assert missing == []


@runs("docs/scenario.md", "default-movement")
def test_the_documented_default_movement_table_is_the_default() -> None:
    shown = json.loads(example(SCENARIO, "default-movement"))
    assert shown == writing.movement_to_json(types.DEFAULT_MOVEMENT)


# ---------------------------------------------------------------------- the options


OPTIONS = document("rules-options.md")


def leaves(tree: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every option's dotted path and default: the leaves of DEFAULTS (an empty object,
    such as `dropout.sides`, is a leaf)."""
    for key, value in tree.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            yield from leaves(value, path + ".")
        else:
            yield path, value


def test_every_option_is_in_the_options_table() -> None:
    rows = {path: cells for cells in table_rows(section(OPTIONS, "## The options"))
            for path in re.findall(r"`([a-z_.]+)`", cells[0])}
    paths = dict(leaves(options.DEFAULTS))
    assert sorted(set(paths) - set(rows)) == [], "options missing from docs/rules-options.md"
    assert sorted(set(rows) - set(paths)) == [], "docs/rules-options.md lists no such option"
    for path, default in paths.items():
        rule, shown, alternatives = rows[path][1:]
        assert rule and alternatives, path
        if isinstance(default, bool | int | str):
            assert f"`{json.dumps(default).strip(chr(34))}`" in shown, (path, shown)
    for path, choices in options.CHOICES.items():
        assert all(f"`{choice}`" in " ".join(rows[path][2:]) for choice in choices), path


def test_the_readings_are_numbered_from_one_and_every_cited_one_is_there() -> None:
    """The readings run 1, 2, ... with no gap, RULES-NOTES 33 (an HQ in supply, issue 34)
    the newest, and every `RULES-NOTES n` the code cites is one of them."""
    readings = section(OPTIONS, "## The readings, by number")
    numbers = [int(n) for n in re.findall(r"^\| (\d+) \|", readings, re.MULTILINE)]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 33
    assert "`RULES-NOTES 16`" in readings
    cited = {int(n) for path in (ROOT / "service").rglob("*.py")
             for n in re.findall(r"RULES-NOTES (\d+)", path.read_text(encoding="utf-8"))}
    assert cited <= set(numbers), sorted(cited - set(numbers))


def test_the_documented_weather_table_is_the_default() -> None:
    table = section(OPTIONS, "### The default weather table")
    rows = re.findall(r"^\| (\d+)(?:-(\d+))? \| (\w+) \| (\d) \| (\d) \|$", table, re.MULTILINE)
    expanded = [{"roll": roll, "weather": weather, "dice": int(dice), "supply_path": int(path)}
                for low, high, weather, dice, path in rows
                for roll in range(int(low), int(high or low) + 1)]
    assert expanded == options.DEFAULT_WEATHER_TABLE


# ---------------------------------------------------------------------- the client


CLIENT = document("client.md")


@runs("docs/client.md", "client")
def test_the_client_example_runs_against_a_live_server(
    live_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("WIF_URL", live_url)
    monkeypatch.chdir(tmp_path)
    code = compile(example(CLIENT, "client"), str(DOCS / "client.md"), "exec")
    exec(code, {"__name__": "docs_client_example"})
    out = capsys.readouterr().out
    assert "step: initiative.reroll" in out
    assert "order/seq_reused" in out
    assert "stream: 1 game.created" in out
    kept = (tmp_path / "axis.receipts").glob("*.jsonl")
    receipts = [json.loads(line) for path in kept for line in path.read_text().splitlines()]
    assert [r["receipt"]["result"] for r in receipts] == ["accepted", "refused"]


def test_every_wif_command_is_described() -> None:
    names = [c.name or (c.callback.__name__ if c.callback else "")
             for c in wif_app.registered_commands]
    names += [f"{group.name} {c.name}" for group in wif_app.registered_groups
              if group.typer_instance for c in group.typer_instance.registered_commands]
    assert names and all(names) and "sign order" in names
    missing = [name for name in names if f"`wif {name}" not in CLIENT]
    assert missing == []


# ---------------------------------------------------------------------- links and paths


PAGES = [README, *sorted(DOCS.glob("*.md"))]
# Specifications a page may link to; everything else it links must be in the repository.
SPECIFICATIONS = {"www.rfc-editor.org", "datatracker.ietf.org", "www.standardwebhooks.com"}
LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
FENCED = re.compile(r"^(```|~~~)[^\n]*\n.*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`([^`\n]+)`")
PATH_LIKE = re.compile(r"(\.\./)*[\w.-]+(/[\w.@-]+)*/?")
# A name with one of these suffixes is a file of the repository wherever it stands (the
# others, such as `.json` or `.lock`, also name a player's own files).
FILE_SUFFIXES = (".md", ".py", ".js", ".html", ".css", ".png")
# Outside documents nothing may send a reader to.
# (`RULES-NOTES 16`, or `RULES-NOTES n` for the form, cites a reading of
# docs/rules-options.md; the name alone is the outside document.)
OUTSIDE = re.compile(r"\.\./shared|/work/|DESIGN\.md|RULES-NOTES\.md|\bDESIGN\b|"
                     r"RULES-NOTES(?!\s+(\d|n\b))")


@functools.cache
def file_names() -> frozenset[str]:
    """The names of the repository's files, in any folder (a bare `contract.py` beside
    its package's name is a mention of that file)."""
    skip = {"var", "node_modules", "__pycache__"}
    names: set[str] = set()
    for _folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in skip]
        names.update(files)
    return frozenset(names)


def top_level() -> set[str]:
    return {p.name for p in ROOT.iterdir()
            if not p.name.startswith(".") or p.name in (".ci", ".github")}


def problems_of_target(page: Path, target: str) -> str | None:
    """Why a link's target is wrong, or None."""
    parts = urlsplit(target)
    if parts.scheme in ("http", "https"):
        if parts.hostname in SPECIFICATIONS:
            return None
        return f"links outside the repository: {target}"
    if parts.scheme or parts.netloc:
        return f"links outside the repository: {target}"
    if not parts.path:  # an anchor on the same page
        return None
    resolved = (page.parent / parts.path).resolve()
    if ROOT != resolved and ROOT not in resolved.parents:
        return f"links outside the repository: {target}"
    if not resolved.exists():
        return f"links a missing file: {target}"
    return None


def file_mentions(text: str) -> Iterator[str]:
    """The code spans of `text` (outside fenced blocks) that name a file or folder: one
    under a top-level entry of the repository, one going up (`../`), or a name with a
    document's or a source file's suffix. A test id's `::name` is dropped."""
    top = top_level()
    for span in CODE_SPAN.findall(FENCED.sub("", text)):
        candidate = span.split("::")[0]
        if PATH_LIKE.fullmatch(candidate) and (
                candidate.startswith("../") or candidate.split("/")[0] in top
                or candidate.endswith(FILE_SUFFIXES)):
            yield candidate


def broken(page: Path, text: str | None = None) -> list[str]:
    """Every wrong link, missing file and outside document of `page` (or of `text` as if
    it were on `page`)."""
    if text is None:
        text = page.read_text(encoding="utf-8")
    where = page.relative_to(ROOT)
    found = []
    for target in LINK.findall(text) + REFERENCE.findall(text):
        problem = problems_of_target(page, target)
        if problem:
            found.append(f"{where}: {problem}")
    for mention in file_mentions(text):
        resolved = (ROOT / mention).resolve()
        if "/" not in mention.rstrip("/") and mention in file_names():
            continue
        if ROOT not in resolved.parents or not resolved.exists():
            found.append(f"{where}: names a file the repository lacks: {mention}")
    for match in OUTSIDE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        found.append(f"{where}:{line}: sends readers outside the repository: {match.group()}")
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_and_path_of_the_documents_exists(page: Path) -> None:
    assert broken(page) == []


def test_the_link_check_catches_what_it_must() -> None:
    page = DOCS / "probe.md"
    bad = {
        "[the design](../../shared/DESIGN.md)": "links outside the repository",
        "[gone](missing.md)": "links a missing file",
        "[gone][ref]\n\n[ref]: ./nothing/here.md": "links a missing file",
        "[elsewhere](https://example.org/spec.md)": "links outside the repository",
        "see `docs/nowhere.md`": "names a file the repository lacks",
        "see `tests/nothing.py::test_x`": "names a file the repository lacks",
        "see `notes.md`": "names a file the repository lacks",
        "in `../shared/RULES-NOTES.md`": "",
        "the design (DESIGN 4.1)": "sends readers outside",
        "as RULES-NOTES' table says": "sends readers outside",
        "under /work/shared": "sends readers outside",
    }
    for text, why in bad.items():
        found = broken(page, text)
        assert any(why in f for f in found), (text, found)
    good = ["[api](api.md#streams)", "[top](#the-scenario-format)", "[readme](../README.md)",
            "[RFC 9457](https://www.rfc-editor.org/rfc/rfc9457)", "`docs/scenario.md`",
            "`service/client/`", "`order/stale`", "`reorg.face_down`", "`README.md`",
            "`tests/test_docs.py::test_x`", "RULES-NOTES 16", "`RULES-NOTES\nn`",
            "`./.wif/profile.json`", "`contract.py`",
            "```sh\nwif verify game.json\n```"]
    for text in good:
        assert broken(page, text) == [], text


def test_the_readme_lists_every_document() -> None:
    listed = section(README.read_text(encoding="utf-8"), "## Documents")
    for page in sorted(DOCS.glob("*.md")):
        assert f"](docs/{page.name})" in listed, page.name


PLAY_PAGE = sorted(p for p in (ROOT / "service" / "web").iterdir()
                   if p.suffix in (".html", ".js", ".css"))


@pytest.mark.parametrize("source", PLAY_PAGE, ids=lambda p: p.name)
def test_the_play_page_links_only_its_own_files(source: Path) -> None:
    text = source.read_text(encoding="utf-8")
    assert not re.search(r"\.\./shared|/work/|DESIGN\.md|RULES-NOTES\.md", text)
    for target in re.findall(r"""(?:href|src)=["']([^"']+)["']""", text):
        if not target.startswith(("data:", "#")) and "://" not in target:
            assert (source.parent / target).exists(), target
    for target in re.findall(r"""\bfrom\s+["'](\.[^"']+)["']""", text):
        assert (source.parent / target).exists(), target
