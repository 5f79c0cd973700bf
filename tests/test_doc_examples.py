"""Every example of README.md and docs/*.md runs against a real server (issue 32): each
code block is fenced and marked `<!-- example: NAME -->`, and a test that runs it
registers it (`@runs`, tests/doc_examples.py). Shell blocks run in bash, requests are
sent, and what a page shows of an answer agrees with the real answer of the same
request (`agrees`). A block no test runs, or one left unmarked, fails here."""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import documented_hosts, free_port, fresh_database, local_settings
from doc_examples import (
    PAGES,
    REGISTERED,
    ROOT,
    agrees,
    blocks,
    example,
    indented_code,
    prints,
    runs,
    transcript,
)

from service.answers import Problem
from service.client.api import Client, join_body
from service.crypto import signing
from tests.api.test_answers import conforms
from tests.support import AXIS_FIRST, Game, Player, create_game, full_game, join, to_action

TOOLS = ("bash", "curl", "jq")
BUILTIN = ROOT / "service" / "rules" / "scenario" / "scenarios" / "dno-demo.json"


# ---------------------------------------------------------------------- every block


def _holders() -> list[Path]:
    """The test modules that register examples (they are imported to read the registry)."""
    return [p for p in sorted((ROOT / "tests").rglob("test_*.py"))
            if "@runs(" in p.read_text(encoding="utf-8")]


def test_every_block_is_marked_and_run() -> None:
    for path in _holders():
        name = f"examples_of_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        if str(path.parent) not in sys.path:  # its neighbours (tests/web/js_tools.py)
            sys.path.append(str(path.parent))
        spec.loader.exec_module(module)
    found, unmarked, indented = set(), [], []
    for page in PAGES:
        for block in blocks(page):
            if block.name is None:
                unmarked.append(f"{block.page}:{block.line}")
            else:
                assert (block.page, block.name) not in found, f"{block.page}: {block.name} twice"
                found.add((block.page, block.name))
        indented += [f"{page.relative_to(ROOT)}:{line}" for line in indented_code(page)]
    assert unmarked == [], "blocks without <!-- example: NAME --> above them"
    assert indented == [], "indented code blocks: fence and mark them"
    assert sorted(found - set(REGISTERED)) == [], "examples no test runs"
    assert sorted(set(REGISTERED) - found) == [], "tests of examples the pages lack"


def test_the_check_finds_unmarked_and_indented_blocks(tmp_path: Path) -> None:
    page = tmp_path / "probe.md"
    page.write_text("# Probe\n\n<!-- example: shown -->\n```sh\necho one\n```\n\n```json\n{}\n"
                    "```\n\nText.\n\n    indented code\n\n- a list\n\n    its paragraph\n")
    found = [(b.name, b.lang, b.line) for b in blocks(page)]
    assert found == [("shown", "sh", 4), (None, "json", 8)]
    assert indented_code(page) == [14]


def test_agreeing_with_a_real_answer_is_strict_where_the_page_is() -> None:
    real = {"seq": 27, "hash": "ab" * 32, "at": "2026-11-24T09:06:30.943863Z",
            "url": "/v1/games/7f3a/stream?ticket=Zr3x", "chit": None, "powers": ["a", "b"]}
    assert agrees({"seq": 27, "hash": "cd" * 32, "at": "2020-01-01T00:00:00Z",
                   "url": "/v1/games/{id}/stream?ticket=<ticket>", "powers": ["a"]}, real) == []
    assert agrees({"seq": 26}, real) == ["/seq: shown 26, is 27"]
    assert agrees({"chit": False}, real) == ["/chit: shown False, is None"]
    assert agrees({"hash": "<hex>", "extra": 1}, real) == ["/extra: shown, but not in the answer"]
    assert agrees({"url": "/v1/games/{id}/log"}, real) != []


# ---------------------------------------------------------------------- README.md


def _tools() -> None:
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    assert missing == [], f"the README's walkthrough needs {', '.join(missing)} (apt-get install)"


def _shell_folder(tmp_path: Path) -> Path:
    """A folder to run a page's shell block in, as if from the repository: `.venv/bin/wif`
    runs this interpreter's `wif`."""
    bin_folder = tmp_path / ".venv" / "bin"
    bin_folder.mkdir(parents=True)
    wif = bin_folder / "wif"
    wif.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m service.client "$@"\n')
    wif.chmod(0o755)
    return tmp_path


def run_shell(block: str, folder: Path, url: str, timeout: float = 120) -> str:
    """Run a page's shell block in bash (-e -u -o pipefail), its server's URL being the
    live one; its output (stdout and stderr)."""
    script = block.replace("http://127.0.0.1:8000", url)
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=folder,
                          capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"})
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    return output


@runs("README.md", "walkthrough")
def test_the_readme_walkthrough_plays_against_a_live_server(live_url: str,
                                                             tmp_path: Path) -> None:
    _tools()
    block = example("README.md", "walkthrough")
    assert block.startswith("URL=http://127.0.0.1:8000\n")
    output = run_shell(block, _shell_folder(tmp_path), live_url)
    assert '"accepted": true' in output
    assert "initiative.reroll_answered: axis answered the reroll window (sealed)." in output


@runs("README.md", "run")
async def test_the_readme_run_command_serves(database_url: str, tmp_path: Path) -> None:
    """The README's run command (its bootstrap half has installed this interpreter's
    environment), on a fresh database and a free port: it migrates and answers."""
    setup, serve = example("README.md", "run").split(" && ")
    assert setup == "./scripts/bootstrap.sh"
    program, *arguments = serve.split()
    assert program == ".venv/bin/python"
    port = free_port()
    log = tmp_path / "serve.log"
    async with fresh_database(database_url, "readme_run") as url:
        with log.open("w") as output:
            process = subprocess.Popen([sys.executable, *arguments, "--port", str(port)],
                                       cwd=ROOT, env={**os.environ, "DATABASE_URL": url},
                                       stdout=output, stderr=subprocess.STDOUT)
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
                for _ in range(600):
                    try:
                        if (await http.get("/readyz")).status_code == 200:
                            break
                    except httpx.TransportError:
                        assert process.poll() is None, log.read_text()
                    await asyncio.sleep(0.1)
                else:
                    pytest.fail(f"the README's server did not answer in 60 s:\n{log.read_text()}")
                assert (await http.get("/v1/server-key")).status_code == 200
        finally:
            process.terminate()
            process.wait(timeout=30)


@runs("README.md", "test")
def test_ci_runs_the_readme_test_command() -> None:
    """The README's test command is the suite itself: CI (`.ci/run`) runs exactly it."""
    command = example("README.md", "test")
    assert command in (ROOT / ".ci" / "run").read_text().splitlines()


# ---------------------------------------------------------------------- docs/api.md


API = "docs/api.md"


def shown(page: str, name: str) -> Any:
    return json.loads(example(page, name))


@dataclass
class Story:
    """A game of docs/api.md, played over HTTP to its first action step with the dice
    of the page's creation example; what the page shows is collected on the way."""

    http: httpx.AsyncClient
    game: Game
    answers: dict[str, Any] = field(default_factory=dict)

    @property
    def axis(self) -> Player:
        return self.game.players["axis"]

    async def summary(self) -> dict[str, Any]:
        r = await self.http.get(f"/v1/games/{self.game.id}", headers=self.game.gm)
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body


def _answer(entry: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The plain answer to an awaited step: no reroll, the first choice, every power
    passes, done."""
    step = entry["step"]
    if step == "initiative.reroll":
        return step, {"demand": False}
    if step == "initiative.choose":
        return step, {"position": entry["choices"]["position"][0]}
    if step == "declare":
        return step, {"actions": {p: "pass" for p in entry["powers"]}}
    return "done", {}


@pytest.fixture(scope="module")
async def story(live_url: str) -> AsyncIterator[Story]:
    created = shown(API, "create-game")
    async with httpx.AsyncClient(base_url=live_url) as http:
        game = await create_game(http, "dno-demo", dice=created["dice"],
                                 options=created["options"])
        for side in ("axis", "allies", "communists"):
            await join(game, side)
        s = Story(http, game)
        r = await game.admin("deadlines", {"deadlines": {"action": 86400}})
        assert r.status_code == 200, r.text
        wrong = s.axis.envelope("declare", {"actions": {"germany": "land"}},
                                await s.axis.position())
        r = await http.post(f"/v1/games/{game.id}/orders", json=wrong, headers=s.axis.headers)
        s.answers["problem"] = r.json()
        for _ in range(20):
            entry = (await s.summary())["awaiting"][0]
            if (entry["step"], entry["side"]) == ("declare", "axis"):
                break
            await game.players[entry["side"]].ok(*_answer(entry))
        yield s


@runs(API, "problem")
async def test_the_problem_shown_is_a_real_refusal(story: Story) -> None:
    assert agrees(shown(API, "problem"), story.answers["problem"]) == []
    conforms(story.answers["problem"], Problem)


def http_message(text: str) -> tuple[str, dict[str, str], Any]:
    """A page's HTTP message: its first line, its headers, its JSON body (or None)."""
    head, _, body = text.partition("\n\n")
    first, *lines = head.splitlines()
    headers = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return first, headers, json.loads(body) if body.strip() else None


async def send(http: httpx.AsyncClient, text: str, token: str, **path: str) -> httpx.Response:
    """Send a page's request: `{name}` in its path is `path[name]`, its bearer token
    `token`, its body as shown."""
    first, headers, body = http_message(text)
    method, target = first.split()
    for name, value in path.items():
        target = target.replace(f"{{{name}}}", value)
    assert "{" not in target, target
    assert re.fullmatch(r"Bearer <[^>]+>", headers.pop("Authorization")), headers
    return await http.request(method, target, json=body,
                              headers={**headers, "Authorization": f"Bearer {token}"})


def answer_agrees(text: str, r: httpx.Response) -> None:
    """A page's answer (`HTTP/1.1 201 Created`, then its JSON) is the real one."""
    first, _, body = http_message(text)
    assert first == f"HTTP/1.1 {r.status_code} {r.reason_phrase}", (first, r.text)
    assert agrees(body, r.json()) == []


@runs(API, "signed-order", "awaiting-entry", "event", "problem-unit")
async def test_the_declaration_shown_is_taken_and_its_answers_shown(story: Story) -> None:
    envelope = shown(API, "signed-order")
    order, axis = envelope["order"], story.axis
    summary = await story.summary()
    assert {k: order[k] for k in ("turn", "impulse", "step")} == summary["position"]
    axis.seq += 1
    order.update(game=story.game.id, player=axis.id, seq=axis.seq,
                 prev=summary["head"]["hash"])
    envelope["signature"] = signing.sign(axis.key, signing.order_signing_bytes(order))
    r = await story.http.post(f"/v1/games/{story.game.id}/orders", json=envelope,
                              headers=axis.headers)
    assert r.status_code == 201, r.text
    entry = (await story.summary())["awaiting"][0]
    assert agrees(shown(API, "awaiting-entry"), entry) == []
    declared = next(e for e in reversed(await story.game.log())
                    if e["kind"] == "power.declared" and e["data"]["power"] == "germany")
    assert agrees(shown(API, "event"), declared) == []
    r = await axis.order("mode", {"changes": [{"unit": "ger-inf-1", "mode": "reserve",
                                               "orientation": "combat"}]})
    assert agrees(shown(API, "problem-unit"), r.json()) == []
    conforms(r.json(), Problem)


@runs(API, "ticket-request", "ticket-answer", "sse-message")
async def test_the_ticket_and_the_stream_shown_are_real(story: Story) -> None:
    axis = story.axis
    rolled = await axis.ok("roll", {"dice": "2d10", "purpose": "attrition in 0506"})
    r = await send(story.http, example(API, "ticket-request"), axis.token, id=story.game.id)
    answer_agrees(example(API, "ticket-answer"), r)
    seq = rolled["events"][0]["seq"]
    lines: list[str] = []
    async with story.http.stream("GET", r.json()["url"] + f"&after={seq - 1}") as stream:
        async for line in stream.aiter_lines():
            if not line and lines:
                break
            if line and not line.startswith(":"):
                lines.append(line)
    frame = dict(line.split(": ", 1) for line in lines)
    page = dict(line.split(": ", 1) for line in example(API, "sse-message").splitlines())
    assert agrees({k: v for k, v in page.items() if k != "data"},
                  {k: v for k, v in frame.items() if k != "data"}) == []
    assert agrees(page["data"], frame["data"]) == []


@runs(API, "settings-request", "settings-answer")
async def test_the_settings_shown_are_set(live_url: str) -> None:
    async with httpx.AsyncClient(base_url=live_url) as http:
        game = await full_game(http, "dno-demo")
        r = await send(http, example(API, "settings-request"), game.players["axis"].token,
                       id=game.id)
    answer_agrees(example(API, "settings-answer"), r)


@runs(API, "create-game")
async def test_the_creation_shown_creates_a_game(live_url: str) -> None:
    async with httpx.AsyncClient(base_url=live_url) as http:
        r = await http.post("/v1/games", json=shown(API, "create-game"))
    assert r.status_code == 201, r.text
    assert set(r.json()) == {"id", "gm_token", "join_codes"}


@runs(API, "join")
async def test_the_join_shown_takes_a_seat(live_url: str) -> None:
    body = shown(API, "join")
    key = signing.new_private_key()
    async with httpx.AsyncClient(base_url=live_url) as http:
        game = await create_game(http, "dno-demo")
        signed = join_body(game.id, "allies", game.join_codes["allies"], body["name"], key,
                           body["powers"])
        assert set(signed) == set(body)
        r = await http.post(f"/v1/games/{game.id}/seats/allies", json=signed)
    assert r.status_code == 201, r.text
    assert r.json()["powers"] == body["powers"]


@pytest.fixture
async def hooks(migrated_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """A server that resolves the pages' hosts, without the background workers (nothing
    is sent to them)."""
    from service.app import create_app
    from service.referee import egress

    app = create_app(local_settings(migrated_url, rate_limit=0, sweep_interval=0),
                     database_url=migrated_url)
    async with app.router.lifespan_context(app):
        app.state.egress = egress.Policy(resolver=documented_hosts)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            yield c


@runs(API, "webhook-request", "webhook-answer", "resend-request", "channel-request")
async def test_the_webhook_and_channel_shown_are_registered(
    hooks: httpx.AsyncClient,
) -> None:
    game = await create_game(hooks, "dno-demo")
    await join(game, "axis")
    allies = await join(game, "allies")
    r = await send(hooks, example(API, "webhook-request"), allies.token, id=game.id)
    answer_agrees(example(API, "webhook-answer"), r)
    await join(game, "communists")  # turn 1 begins: the Allies' move, a message
    r = await hooks.get(f"/v1/games/{game.id}/webhook/deliveries", headers=allies.headers)
    [message] = r.json()["messages"]
    r = await send(hooks, example(API, "resend-request"), allies.token, id=game.id,
                   message_id=message["id"])
    assert r.status_code == 202, r.text
    r = await send(hooks, example(API, "channel-request"), allies.token, id=game.id)
    assert r.status_code == 200, r.text


# ---------------------------------------------------------------------- docs/client.md


CLIENT = "docs/client.md"


@dataclass
class Shell:
    """A folder a page's commands run in, `wif` on the PATH and HOME there."""

    folder: Path
    url: str

    def env(self) -> dict[str, str]:
        return {**os.environ, "HOME": str(self.folder), "PYTHONPATH": str(ROOT),
                "PATH": f"{self.folder / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}",
                "NO_COLOR": "1", "COLUMNS": "200"}

    def run(self, script: str, *, check: bool = True) -> str:
        script = script.replace("http://127.0.0.1:8000", self.url)
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=self.folder,
                              capture_output=True, text=True, timeout=120, check=False,
                              env=self.env())
        output = done.stdout + done.stderr
        assert done.returncode == 0 or not check, output[-4000:]
        return output

    def console(self, block: str) -> None:
        """Run a console block's commands: each prints what the block shows."""
        for command, lines in transcript(block):
            real = self.run(command, check=False).splitlines()
            assert prints(lines, real), (command, real)


@pytest.fixture
def shell(live_url: str, tmp_path: Path) -> Shell:
    _tools()
    return Shell(_shell_folder(tmp_path), live_url)


@runs(CLIENT, "keygen")
def test_the_keys_shown_are_made(shell: Shell) -> None:
    output = shell.run(example(CLIENT, "keygen")).splitlines()
    assert len(output) == 2 and output[0] != output[1]
    assert (shell.folder / ".wif" / "dave.key").stat().st_mode & 0o777 == 0o600


@runs(CLIENT, "synopsis")
def test_the_synopsis_is_the_commands(shell: Shell) -> None:
    synopsis = example(CLIENT, "synopsis")
    usage = shell.run("wif --help")
    for option in re.findall(r"\[(--[a-z]+) [A-Z]+\]", synopsis):
        assert option in usage, option
    assert synopsis.startswith("wif ") and "COMMAND [ARGS]" in synopsis


@runs(CLIENT, "seat", "profile")
def test_a_seat_is_taken_as_shown_and_kept_in_the_profile(shell: Shell) -> None:
    shell.run(example(CLIENT, "seat"))
    created = json.loads((shell.folder / "game.json").read_text())
    kept = json.loads((shell.folder / "allies.json").read_text())
    assert kept["current"] == created["id"]
    made = json.loads((shell.folder / ".wif" / "profile.json").read_text())
    page = shown(CLIENT, "profile")
    entry = {**page["games"].pop("<game id>"), "base_url": shell.url}
    creator = ("name", "gm_token", "join_codes")  # kept by `create`, the rest by `join`
    for profile, keys in ((kept, [k for k in entry if k not in creator]),
                          (made, ["base_url", "game", *creator])):
        page["games"][created["id"]] = {k: entry[k] for k in keys}
        assert agrees(page, profile) == []


def _seats(shell: Shell, dice: dict[str, Any]) -> dict[str, Any]:
    """A dno-demo game created with `dice`, a profile per side (`<side>.json`)."""
    created = json.loads(shell.run(
        f"wif --url {shell.url} create --scenario dno-demo --name 'Drang 1945' "
        f"--dice '{json.dumps(dice)}'"))
    for side, code in created["join_codes"].items():
        shell.run(f"wif keygen --out {side}.key && wif --profile {side}.json --url {shell.url}"
                  f" join {created['id']} {side} --code {code} --name '{side} player' "
                  f"--key {side}.key")
    return dict(created)


@runs(CLIENT, "refused", "declare", "verify")
def test_the_command_line_plays_as_shown(shell: Shell) -> None:
    """The Communists win the initiative (scripted dice); before anyone answers the
    reroll window the Axis declares (refused); every side answers as `wif` offers; the
    Communists declare; the Allies export and verify with their receipts."""
    created = _seats(shell, {"mode": "scripted", "script": {"initiative": [1, 1, 10]}})
    shell.console(example(CLIENT, "refused"))
    for _ in range(10):
        r = httpx.get(f"{shell.url}/v1/games/{created['id']}",
                      headers={"Authorization": f"Bearer {created['gm_token']}"})
        entry = r.json()["awaiting"][0]
        if entry["step"] == "declare":
            break
        answer = ("reroll no" if entry["step"] == "initiative.reroll"
                  else f"choose {entry['choices']['position'][0]}")
        shell.run(f"wif --profile {entry['side']}.json {answer}")
    shell.console(example(CLIENT, "declare"))
    shell.run(example(CLIENT, "verify"))


@runs(CLIENT, "imports")
def test_the_library_imports_shown_import() -> None:
    exec(compile(example(CLIENT, "imports"), CLIENT, "exec"), {})


def _node() -> str:
    found = shutil.which("node")
    assert found, "docs/client.md's JavaScript examples need Node.js 20+ (apt-get install nodejs)"
    return found


@runs(CLIENT, "node-import")
def test_node_imports_the_served_kit_as_shown(shell: Shell) -> None:
    _node()
    names = shell.run(example(CLIENT, "node-import").replace("https://referee.example",
                                                             shell.url))
    assert "WifClient" in names and "signOrder" in names


@runs(CLIENT, "script-module")
def test_the_module_script_shown_imports_the_served_kit(shell: Shell) -> None:
    """The script's module code, run by Node with the kit the server serves."""
    script = re.fullmatch(r'<script type="module">\n(.*)\n</script>',
                          example(CLIENT, "script-module"), re.DOTALL)
    assert script
    shell.run(f"curl -s --fail-with-body -o wif.js {shell.url}/client/wif.js")
    code = script[1].replace("https://referee.example/client/wif.js", "./wif.js")
    (shell.folder / "page.mjs").write_text(code + "\nconsole.log(typeof WifClient.join);\n")
    assert shell.run(f"{_node()} page.mjs").strip() == "function"


@runs(CLIENT, "wif-client")
def test_the_kit_plays_as_shown(shell: Shell) -> None:
    """The page's program, run by Node against the live server: the kit the server
    serves, a game created for it (its id and join code put where the page abridges
    them); it joins, reads, and its order is answered (here refused: the game is at
    the reroll window, which the program reports)."""
    _node()
    with Client(shell.url) as anyone:
        created = anyone.create_game("Kit", "dno-demo")
        for side in ("allies", "communists"):
            anyone.join(created["id"], side, created["join_codes"][side], side,
                        signing.new_private_key())
    shell.run(f"curl -s --fail-with-body -o wif.js {shell.url}/client/wif.js")
    code = (example(CLIENT, "wif-client")
            .replace('"https://referee.example/client/wif.js"', '"./wif.js"')
            .replace('"https://referee.example"', json.dumps(shell.url))
            .replace('"70b7..."', json.dumps(created["id"]))
            .replace('"OZSC..."', json.dumps(created["join_codes"]["axis"])))
    (shell.folder / "play.mjs").write_text(code)
    output = shell.run(f"{_node()} play.mjs")
    assert output.startswith("409 order/wrong_step mode is not allowed now"), output


# ---------------------------------------------------------------------- the other pages


@runs("docs/rules.md", "unit-options")
async def test_the_unit_options_shown_are_the_first_action_steps(story: Story) -> None:
    r = await story.http.get(f"/v1/games/{story.game.id}/units/ger-inf-1/options",
                             headers=story.axis.headers)
    assert r.status_code == 200, r.text
    assert agrees(shown("docs/rules.md", "unit-options"), r.json()) == []


GM_PAGE = "docs/game-master.md"


@runs(GM_PAGE, "edit", "consent")
async def test_the_edit_and_the_consent_shown_are_taken(live_url: str) -> None:
    async with httpx.AsyncClient(base_url=live_url) as http:
        game = await full_game(http, "dno-demo", dice=AXIS_FIRST)
        r = await game.admin("edit", shown(GM_PAGE, "edit"))
        assert r.status_code == 200, r.text
        axis = await to_action(game)
        await axis.ok("roll", {"dice": "1d6", "purpose": "a roll the rollback would undo"})
        r = await game.admin("rollback", {"turn": 1, "impulse": 1, "requested_by": "axis"})
        assert r.status_code == 200 and r.json()["position"]["step"] == "consent", r.text
        consent = shown(GM_PAGE, "consent")
        allies = game.players["allies"]
        r = await allies.order(consent["kind"], consent["body"],
                               {**await allies.position(), "step": consent["step"]})
        assert r.status_code == 201, r.text


@runs(GM_PAGE, "dropout-options")
async def test_the_dropout_options_shown_are_a_games(live_url: str) -> None:
    options = shown(GM_PAGE, "dropout-options")
    async with httpx.AsyncClient(base_url=live_url) as http:
        game = await create_game(http, "dno-demo", options=options)
        state = await game.state()
    assert agrees(options, state["game"]["options"]) == []


@runs("docs/rules-options.md", "movement")
async def test_the_movement_table_shown_is_a_scenarios(live_url: str) -> None:
    scenario = json.loads(BUILTIN.read_text()) | shown("docs/rules-options.md", "movement")
    async with httpx.AsyncClient(base_url=live_url) as http:
        r = await http.post("/v1/games", json={"name": "Movement", "scenario": scenario})
    assert r.status_code == 201, r.text


DICE = "docs/dice.md"


@runs(DICE, "committed", "seed", "die")
async def test_the_dice_shown_recompute_a_games_rolls(live_url: str) -> None:
    """A fair game whose GM ends it in its first turn: the anchor is `H^n(x)` as shown,
    the revealed seed of turn 1 (k = 0) hashes to it, and the page's `die` gives every
    roll of the turn."""
    assert example(DICE, "seed") == "seed = H^(n - 1 - k)(x)"
    async with httpx.AsyncClient(base_url=live_url) as http:
        game = await full_game(http, "dno-demo")
        committed = next(e for e in await game.log() if e["kind"] == "dice.committed")
        assert agrees(shown(DICE, "committed"), committed["data"]) == []
        r = await game.admin("end", {"reason": "to reveal the seeds"})
        assert r.status_code == 200, r.text
        record = (await http.get(f"/v1/games/{game.id}/dice", headers=game.gm)).json()
    turn = record["turns"][0]
    seed = bytes.fromhex(turn["seed"])
    assert hashlib.sha256(seed).hexdigest() == committed["data"]["anchor"]
    space: dict[str, Any] = {}
    exec(compile(example(DICE, "die"), DICE, "exec"), space)
    assert turn["rolls"]
    for roll in turn["rolls"]:
        values = [space["die"](seed, game.id, turn["turn"], roll["index"], j, roll["purpose"],
                               roll["trigger"], roll["faces"]) for j in range(len(roll["values"]))]
        assert values == roll["values"], roll


@runs("docs/operating.md", "layers")
def test_the_layers_drawn_are_the_import_contracts() -> None:
    drawn = [line.replace("·", "|") for line in example("docs/operating.md", "layers").splitlines()
             if "service/" in line]
    packages = [" | ".join(re.findall(r"service/(\w+)", line)) for line in drawn]
    contract = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    [layers] = [c["layers"] for c in contract["contracts"] if c["name"] == "layers"]
    assert [f"service.{p}".replace(" | ", " | service.") for p in packages] == layers


@runs("docs/security.md", "receipt")
async def test_the_receipt_check_shown_holds_a_real_receipt(live_url: str) -> None:
    """The page's check, on an order's real receipt: it holds, and fails for another
    order or a receipt changed after signing."""
    space: dict[str, Any] = {}
    exec(compile(example("docs/security.md", "receipt"), "docs/security.md", "exec"), space)
    holds = space["receipt_holds"]
    async with httpx.AsyncClient(base_url=live_url) as http:
        game = await full_game(http, "dno-demo")
        axis = game.players["axis"]
        envelope = axis.envelope("initiative.reroll", {"demand": False}, await axis.position())
        r = await http.post(f"/v1/games/{game.id}/orders", json=envelope, headers=axis.headers)
        assert r.status_code == 201, r.text
        signed = r.json()["receipt"]
        keys = (await http.get("/v1/server-key")).json()["keys"]
    key = next(k["public_key"] for k in keys if k["id"] == signed["receipt"]["key"])
    assert holds(signed, envelope["order"], key)
    assert not holds(signed, {**envelope["order"], "seq": 99}, key)
    forged = {**signed, "receipt": {**signed["receipt"], "result": "refused"}}
    assert not holds(forged, envelope["order"], key)
