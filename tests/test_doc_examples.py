"""Every example of README.md and docs/*.md runs against a real server (issue 32): each
code block is fenced and marked `<!-- example: NAME -->`, and a test that runs it
registers it (`@runs`, tests/doc_examples.py). Shell blocks run in bash, requests are
sent, and what a page shows of an answer agrees with the real answer of the same
request (`agrees`). A block no test runs, or one left unmarked, fails here."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import free_port, fresh_database, local_settings
from doc_examples import PAGES, REGISTERED, ROOT, agrees, blocks, example, indented_code, runs

from service.client.api import join_body
from service.crypto import signing
from tests.support import Game, Player, create_game, join

TOOLS = ("bash", "curl", "jq")


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
    page = ROOT / "docs" / "probe-of-the-check.md"
    text = ("# Probe\n\n<!-- example: shown -->\n```sh\necho one\n```\n\n```json\n{}\n```\n\n"
            "Text.\n\n    indented code\n\n- a list\n\n    its paragraph\n")
    page.write_text(text)
    try:
        found = [(b.name, b.lang, b.line) for b in blocks(page)]
        assert found == [("shown", "sh", 4), (None, "json", 8)]
        assert indented_code(page) == [14]
    finally:
        page.unlink()


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
async def test_the_readme_run_command_serves(database_url: str) -> None:
    """The README's run command (its bootstrap half has installed this interpreter's
    environment), on a fresh database and a free port: it migrates and answers."""
    setup, serve = example("README.md", "run").split(" && ")
    assert setup == "./scripts/bootstrap.sh"
    program, *arguments = serve.split()
    assert program == ".venv/bin/python"
    port = free_port()
    async with fresh_database(database_url, "readme_run") as url:
        process = subprocess.Popen([sys.executable, *arguments, "--port", str(port)],
                                   cwd=ROOT, env={**os.environ, "DATABASE_URL": url},
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
                for _ in range(600):
                    try:
                        if (await http.get("/readyz")).status_code == 200:
                            break
                    except httpx.TransportError:
                        assert process.poll() is None, process.stderr and process.stderr.read()
                    await _pause()
                else:
                    pytest.fail("the README's server did not answer in 60 s")
                assert (await http.get("/v1/server-key")).status_code == 200
        finally:
            process.terminate()
            process.wait(timeout=30)


async def _pause() -> None:
    import asyncio

    await asyncio.sleep(0.1)


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


# The pages' webhook and channel hosts, as a resolver answers them: a public address
# (this machine may have no DNS; the server checks the address, as it would any).
PUBLIC = "93.184.215.14"


async def _documented_hosts(host: str, port: int) -> list[str]:
    assert host in ("example.org", "discord.com"), host
    return [PUBLIC]


@pytest.fixture
async def hooks(migrated_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """A server that resolves the pages' hosts, without the background workers (nothing
    is sent to them)."""
    from service.app import create_app
    from service.referee import egress

    app = create_app(local_settings(migrated_url, rate_limit=0, sweep_interval=0),
                     database_url=migrated_url)
    async with app.router.lifespan_context(app):
        app.state.egress = egress.Policy(resolver=_documented_hosts)
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
