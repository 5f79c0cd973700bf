"""The `wif` client CLI against a live uvicorn server on 127.0.0.1: keys, a game with
scripted dice, three seats, the initiative and the first side's whole impulse, a refused
order, the seq counter, the live stream, export and offline verification."""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from support import SCENARIOS, SIDES
from typer.testing import CliRunner, Result

from service.client.api import Client, ProblemError
from service.client.cli import app as cli_app
from service.client.profile import Profile

REPO = Path(__file__).resolve().parents[2]
RUNNER = CliRunner()
WAIT = 30.0  # seconds: the bound on every wait for the server or a subprocess
DONE_STEPS = ("action", "reaction", "combat", "exploitation", "reorganization",
              "final_reorganization")
SCRIPT = {"mode": "scripted",
          "script": {"initiative": [5, 8, 5], "weather": [7], "turn_end": [2, 2]}}


@dataclass
class Live:
    url: str
    has_stream: bool


@contextmanager
def serving(settings: Any, migrated_url: str) -> Iterator[Live]:
    """The real app under uvicorn in a thread. The socket is bound and listening before
    the thread starts, so the first request simply waits in the backlog until the
    server has run its lifespan: there is nothing to poll for."""
    from service.app import create_app

    application = create_app(settings, database_url=migrated_url)
    paths = set(application.openapi()["paths"])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(application, log_level="warning", lifespan="on", ws="none",
                            timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield Live(f"http://127.0.0.1:{port}", "/v1/games/{game_id}/stream" in paths)
    finally:
        server.should_exit = True
        thread.join(timeout=WAIT)
        sock.close()
        assert not thread.is_alive(), "uvicorn did not shut down"


@pytest.fixture(scope="module")
def live(migrated_url: str) -> Iterator[Live]:
    from service.settings import Settings

    with serving(Settings(database_url=migrated_url, sweep_interval=0,
                          webhook_allow_networks=["127.0.0.0/8"]), migrated_url) as it:
        yield it


def wif(profile: Path, *args: str, url: str | None = None, code: int = 0) -> Result:
    """Run one `wif` command in-process, as a fresh invocation (nothing is kept in memory
    between two calls: everything that carries over goes through the profile file)."""
    argv = ["--profile", str(profile)] + (["--url", url] if url else []) + list(args)
    result = RUNNER.invoke(cli_app, argv, catch_exceptions=False)
    assert result.exit_code == code, f"wif {' '.join(args)} -> {result.exit_code}\n" \
                                     f"{result.output}"
    return result


def view(profile: Path) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(wif(profile, "state", "--json").stdout)
    return body


@dataclass
class Table:
    """A game with three seated players, each with their own key and profile."""

    url: str
    game: str
    gm: Path
    seats: dict[str, Path]
    keys: dict[str, Path]


def seated_game(live: Live, tmp: Path, name: str = "cli game") -> Table:
    keys = {}
    for side in SIDES:
        keys[side] = tmp / f"{side}.key"
        out = wif(tmp / "none.json", "keygen", "--out", str(keys[side])).stdout.strip()
        assert len(out) == 43  # base64url of 32 bytes, no padding
        assert keys[side].stat().st_mode & 0o777 == 0o600
        assert keys[side].stat().st_size == 32
    gm = tmp / "gm.json"
    created = json.loads(wif(gm, "create", "--scenario", str(SCENARIOS / "mini.json"),
                             "--name", name, "--dice", json.dumps(SCRIPT), url=live.url).stdout)
    assert set(created["join_codes"]) == set(SIDES)
    seats = {}
    for side in SIDES:
        seats[side] = tmp / f"{side}.json"
        out = wif(seats[side], "join", created["id"], side, "--code",
                  created["join_codes"][side], "--name", f"{side} player", "--key",
                  str(keys[side]), url=live.url).stdout
        assert f"joined {created['id']} as {side}" in out
    return Table(live.url, created["id"], gm, seats, keys)


def to_communists_action(t: Table) -> Path:
    """Answer the initiative (SCRIPT: the Allies win and move last, the Communists go
    before the Axis) and declare a land action for the Communists: their action step,
    where they may roll. Their profile."""
    for side in SIDES:
        state = view(t.gm)
        if state["turn"]["step"] == "initiative.reroll" and side in {
                a["side"] for a in state["awaiting"]}:
            wif(t.seats[side], "reroll", "no")
    wif(t.seats["allies"], "choose", "last")
    wif(t.seats["communists"], "choose", "before")
    wif(t.seats["communists"], "declare", "ussr=land", "china=land")
    assert view(t.gm)["turn"]["step"] == "action"
    return t.seats["communists"]


def profile_seq(path: Path) -> int:
    data = json.loads(path.read_text())
    return int(data["games"][data["current"]]["seq"])


def test_the_cli_plays_a_whole_impulse_against_a_live_server(live: Live, tmp_path: Path) -> None:
    t = seated_game(live, tmp_path)
    # Every power is held: turn 1 began, every side stands on a reroll box.
    state = view(t.gm)
    assert state["turn"]["step"] == "initiative.reroll"
    assert {a["side"] for a in state["awaiting"]} == set(SIDES)
    for side in SIDES:
        wif(t.seats[side], "reroll", "no")
    state = view(t.gm)
    assert state["initiative"]["totals"] == {"axis": 5, "allies": 8, "communists": 5}
    assert state["turn"]["step"] == "initiative.choose"
    assert state["awaiting"][0]["side"] == "allies"

    wif(t.seats["allies"], "choose", "last")
    assert view(t.gm)["awaiting"][0]["side"] == "communists"
    wif(t.seats["communists"], "choose", "before")
    state = view(t.seats["communists"])
    assert state["turn"]["order"] == ["communists", "axis", "allies"]
    assert (state["turn"]["impulse"], state["turn"]["step"]) == (1, "declare")
    assert state["turn"]["phasing_side"] == "communists"
    assert state["me"]["side"] == "communists"
    weather_dice = state["turn"]["weather"]["dice"]

    # The human summary says the same.
    text = wif(t.seats["communists"], "state").stdout
    assert "turn 1, round 1, impulse 1: declare; phasing communists" in text
    assert "communists [ussr, china] declare <- you" in text

    # The Communists' impulse: declare, then every done-step until the Axis declares.
    out = wif(t.seats["communists"], "declare", "ussr=land", "china=land").stdout
    assert "ussr declares land" in out and "china declares land" in out
    state = view(t.gm)
    assert state["powers"]["ussr"]["declared"] == "land"
    assert state["turn"]["step"] in DONE_STEPS
    steps_seen: list[tuple[str, str]] = []
    for _ in range(2 * len(DONE_STEPS) * len(SIDES)):
        waiting = [a for a in state["awaiting"] if a["step"] in DONE_STEPS]
        if not waiting:
            break
        step, side = state["turn"]["step"], waiting[0]["side"]
        steps_seen.append((step, side))
        wif(t.seats[side], "done")
        state = view(t.gm)
        # The step is over, or at least this side is no longer awaited in it.
        assert state["turn"]["step"] != step or side not in {
            a["side"] for a in state["awaiting"]}, (step, side, state["awaiting"])
    assert steps_seen[0] == ("action", "communists")
    order = [DONE_STEPS.index(step) for step, _ in steps_seen]
    assert order == sorted(order)  # in the turn's order, none twice for one side
    assert len(set(steps_seen)) == len(steps_seen)
    assert state["turn"]["step"] == "declare"
    assert state["turn"]["phasing_side"] == "axis"
    assert state["turn"]["impulse"] == 2
    assert state["turn"]["impulses_taken"]["communists"] == 1
    # Weather 7 gives two turn-end dice; the script makes them 2 and 2.
    assert weather_dice == 2
    assert state["turn"]["turn_end_total"] == 4
    assert state["awaiting"] == [{"side": "axis", "powers": ["germany", "italy"],
                                  "step": "declare", "deadline": None,
                                  "orders": ["declare", "steps"], "choices": {"actions.*": [
                                      "pass", "land", "air", "naval", "combined"]}}]

    # `pass` declares pass for every power of mine.
    wif(t.seats["axis"], "pass")
    state = view(t.seats["axis"])
    assert state["powers"]["germany"]["declared"] == "pass"
    assert state["powers"]["italy"]["declared"] == "pass"

    # The log has it all, in order.
    lines = wif(t.seats["allies"], "log").stdout.splitlines()
    assert any("ussr declares land" in line for line in lines)
    assert any("germany declares pass" in line for line in lines)
    assert [int(line.split()[0]) for line in lines] == sorted(int(x.split()[0]) for x in lines)
    after = int(lines[-2].split()[0])
    assert len(wif(t.seats["allies"], "log", "--after", str(after)).stdout.splitlines()) == 1


def test_a_refused_order_prints_the_servers_detail_and_exits_non_zero(
    live: Live, tmp_path: Path
) -> None:
    t = seated_game(live, tmp_path)
    # Not the time for a declaration: the reroll window is open.
    refused = wif(t.seats["axis"], "declare", "germany=land", code=1)
    assert "declare is not allowed now: the step is initiative.reroll" in refused.stderr
    assert "(409 order/wrong_step)" in refused.stderr
    assert "turn 1, impulse 0, step initiative.reroll" in refused.stderr
    # Malformed: the item that is wrong is named.
    bad = wif(t.seats["axis"], "order", "initiative.reroll", '{"demand": "maybe"}', code=1)
    assert "/order/body/demand: Input should be a valid boolean" in bad.stderr
    assert "(422 request/malformed_body)" in bad.stderr
    # Local mistakes never reach the server.
    assert "power=value" in wif(t.seats["axis"], "declare", "germany", code=2).stderr
    assert "not valid JSON" in wif(t.seats["axis"], "order", "done", "{", code=2).stderr
    nobody = wif(tmp_path / "empty.json", "state", code=2)
    assert "no game in profile" in nobody.stderr
    # A profile holds one seat per game.
    again = wif(t.seats["axis"], "join", t.game, "axis", "--code", "x", "--name", "n",
                "--key", str(t.keys["axis"]), code=2)
    assert "already holds a seat" in again.stderr


def test_the_seq_counter_survives_between_invocations(live: Live, tmp_path: Path) -> None:
    t = seated_game(live, tmp_path)
    me = t.seats["communists"]
    assert profile_seq(me) == 1
    wif(me, "reroll", "no")
    assert profile_seq(me) == 2
    wif(me, "declare", "ussr=land", code=1)  # refused: its seq is spent all the same
    to_communists_action(t)
    wif(me, "roll", "2d10", "attrition", "in", "1432")
    wif(me, "order", "roll", '{"dice": "1d6", "purpose": "partisans"}')
    assert profile_seq(me) == 7
    wif(t.gm, "admin", "end", "--reason", "seq check")
    export = json.loads(wif(me, "export").stdout)
    player = json.loads(me.read_text())["games"][t.game]["player"]
    seqs = [o["order"]["seq"] for o in export["orders"] if o["order"]["player"] == player]
    assert sorted(seqs) == [1, 3, 4, 5, 6]
    texts = [e["text"] for e in export["events"]]
    assert any("rolls 2d10 for attrition in 1432" in text for text in texts)
    assert any("rolls 1d6 for partisans" in text for text in texts)
    # A separate process (the `python -m service.client` entry point) reads the same profile.
    state = subprocess.run(
        [sys.executable, "-m", "service.client", "--profile", str(me), "state"],
        cwd=REPO, capture_output=True, text=True, timeout=WAIT, check=False)
    assert state.returncode == 0, state.stderr
    assert f"{t.game}: finished" in state.stdout
    assert "you: communists: ussr" in state.stdout


def test_concurrent_commands_never_share_a_seq(tmp_path: Path) -> None:
    profile = Profile(tmp_path / "p.json")
    profile.remember("g", base_url="http://x", player="p", token="t")
    with ThreadPoolExecutor(max_workers=8) as pool:
        taken = list(pool.map(lambda _: profile.take_seq("g"), range(200)))
    assert sorted(taken) == list(range(1, 201))
    assert profile.game("g")["seq"] == 201
    assert (tmp_path / "p.json").stat().st_mode & 0o777 == 0o600


def test_verify_passes_on_an_export_and_fails_on_a_tampered_copy(
    live: Live, tmp_path: Path
) -> None:
    t = seated_game(live, tmp_path)
    me = to_communists_action(t)
    for i in range(3):
        wif(me, "roll", "2d10", "verify", "check", str(i))
    refused = wif(me, "declare", "ussr=pass", code=1)  # a refusal's receipt is kept too
    assert "not allowed now" in refused.stderr
    out = wif(t.gm, "admin", "end", "--reason", "verification test").stdout
    assert "awaiting nobody" in out
    assert view(t.gm)["game"]["status"] == "finished"
    good = tmp_path / "export.json"
    assert "signed orders" in wif(t.seats["allies"], "export", "--out", str(good)).stdout
    ok = wif(t.gm, "verify", str(good))
    assert "verified" in ok.stdout.splitlines()[-1]
    record = json.loads(good.read_text())
    roll = next(e for e in record["events"] if e["kind"] == "dice.rolled"
                and e["data"]["purpose"] == "roll")
    roll["data"]["values"] = [v % 10 + 1 for v in roll["data"]["values"]]
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(record))
    failed = wif(t.gm, "verify", str(bad), code=1)
    assert "FAIL hash chain" in failed.stdout
    assert "verification FAILED" in failed.stdout

    # The receipts the Communists' profile kept prove an order an export drops.
    kept = tmp_path / "receipts.json"
    assert "receipts written" in wif(me, "receipts", "--out", str(kept)).stdout
    receipts = json.loads(kept.read_text())
    assert [r["receipt"]["result"] for r in receipts].count("refused") == 1
    assert "verified" in wif(t.gm, "verify", str(good), "--receipts", str(kept)).stdout
    record = json.loads(good.read_text())
    dropped = json.loads(good.read_text())
    last = max(o["order"]["seq"] for o in record["orders"]
               if o["order"]["kind"] == "roll")
    dropped["orders"] = [o for o in record["orders"]
                         if not (o["order"]["kind"] == "roll" and o["order"]["seq"] == last)]
    lost = tmp_path / "dropped.json"
    lost.write_text(json.dumps(dropped))
    proven = wif(t.gm, "verify", str(lost), "--receipts", str(kept), code=1)
    assert "FAIL receipts" in proven.stdout and "export drops it" in proven.stdout


def _as_from_a_terminal() -> None:
    """In the child before it runs: SIGINT as a terminal's Ctrl-C finds it (handled by
    default, not blocked), whatever the test process's thread had (a suite's worker may
    have it ignored or blocked, and a child inherits both)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _signal_state(pid: int) -> str:
    """The child's blocked, ignored and caught signals (Linux), for a failure's message."""
    try:
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return "unknown"
    return " ".join(line for line in status if line.startswith(("SigBlk", "SigIgn", "SigCgt")))


class Watcher:
    """`python -m service.client watch` in a subprocess, its lines read by a thread."""

    def __init__(self, profile: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "service.client", "--profile", str(profile), "watch", *args],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"}, preexec_fn=_as_from_a_terminal,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def until(self, needle: str) -> list[str]:
        """Lines up to the first containing `needle` (bounded wait)."""
        seen: list[str] = []
        while True:
            try:
                line = self.lines.get(timeout=WAIT)
            except queue.Empty:
                raise AssertionError(f"no {needle!r} from watch; saw {seen}") from None
            if line is None:
                err = self.proc.stderr.read() if self.proc.stderr else ""
                raise AssertionError(f"watch ended before {needle!r}; saw {seen}\n{err}")
            seen.append(line)
            if needle in line:
                return seen

    def stop(self) -> int:
        signals = _signal_state(self.proc.pid)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"watch did not end on SIGINT; its signals: {signals}"
                                 ) from None
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(timeout=WAIT)
            self.reader.join(timeout=WAIT)
            for pipe in (self.proc.stdout, self.proc.stderr):
                if pipe is not None:
                    pipe.close()


def test_watch_follows_the_stream_live_and_resumes(live: Live, tmp_path: Path) -> None:
    if not live.has_stream:
        pytest.skip("stream endpoint not yet available")
    t = seated_game(live, tmp_path)
    me = to_communists_action(t)
    head = json.loads(wif(t.seats["allies"], "log", "--json").stdout.splitlines()[-1])["seq"]
    watcher = Watcher(t.seats["allies"], "--after", "0")
    try:
        history = watcher.until(f"{head:>5} ")
        assert [int(line.split()[0]) for line in history] == list(range(1, head + 1))
        # Live: an order sent now shows up in the running watch, and nothing else first.
        wif(me, "roll", "2d10", "live", "stream")
        (line,) = watcher.until("live stream")
        assert int(line.split()[0]) == head + 1
        # Ctrl-C ends it cleanly.
        assert watcher.stop() == 0
    finally:
        watcher.stop()
    # Resume after a seq: exactly the later events, each once; --count ends it.
    resumed = wif(t.seats["allies"], "watch", "--after", str(head - 2), "--count", "3", "--json")
    seqs = [json.loads(line)["seq"] for line in resumed.stdout.splitlines()]
    assert seqs == [head - 1, head, head + 1]


def test_create_sends_the_operator_key(migrated_url: str, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A server with OPERATOR_KEY creates games only for the operator (docs/security.md):
    `wif create --operator-key` (or WIF_OPERATOR_KEY) sends it; without it, 401."""
    from service.settings import Settings

    settings = Settings(database_url=migrated_url, sweep_interval=0, operator_key="op-secret")
    args = ("create", "--scenario", str(SCENARIOS / "mini.json"), "--name", "op")
    with serving(settings, migrated_url) as server:
        refused = wif(tmp_path / "a.json", *args, url=server.url, code=1)
        assert "401" in refused.output
        created = json.loads(wif(tmp_path / "b.json", *args, "--operator-key", "op-secret",
                                 url=server.url).stdout)
        assert set(created["join_codes"]) == set(SIDES)
        monkeypatch.setenv("WIF_OPERATOR_KEY", "op-secret")
        assert json.loads(wif(tmp_path / "c.json", *args, url=server.url).stdout)["id"]


def test_the_python_client_reads_options_settings_and_its_webhook(live: Live,
                                                                   tmp_path: Path) -> None:
    """The client has a method per route a player uses (docs/client.md): the legal
    choices of a unit and of a side, the reorganization planner, the player's settings,
    the webhook with its delivery log, the notification channels."""
    t = seated_game(live, tmp_path)
    profile = to_communists_action(t)
    seat = json.loads(profile.read_text())["games"][t.game]
    with Client(t.url, token=seat["token"]) as client:
        sov = client.unit_options(t.game, "sov-inf-1")
        assert sov["unit"] == "sov-inf-1" and sov["version"] == client.summary(t.game)[
            "version"]
        side = client.side_options(t.game)
        assert side["side"] == "communists"
        assert set(side["units"]) >= {"sov-inf-1", "sov-hq-1", "chi-inf-1"}
        with pytest.raises(ProblemError) as caught:
            client.side_options(t.game, "nobody")
        assert caught.value.status == 404
        plan = client.reorg_options(t.game, "sov-inf-1")
        assert plan["unit"] == "sov-inf-1"
        assert client.settings(t.game)["settings"]["confirm_lapse"] is False
        assert client.set_settings(t.game, confirm_lapse=True)["settings"][
            "confirm_lapse"] is True
        registered = client.set_webhook(t.game, "http://127.0.0.1:9/hook")
        assert registered["secret"] and registered["state"] == "active"
        assert client.webhook(t.game)["url"] == "http://127.0.0.1:9/hook"
        assert client.deliveries(t.game)["messages"] == []
        with pytest.raises(ProblemError) as caught:
            client.resend(t.game, "msg_nothing")
        assert caught.value.status == 404
        client.delete_webhook(t.game)
        with pytest.raises(ProblemError) as caught:
            client.webhook(t.game)
        assert caught.value.status == 404
        shown = client.set_channel(t.game, "discord", "http://127.0.0.1:9/discord",
                                   quiet_hours={"from": "23:00", "to": "07:00"})
        assert shown["quiet_hours"] == {"from": "23:00", "to": "07:00", "timezone": "UTC"}
        assert client.channels(t.game) == {"channels": [shown], "email_available": False}
        client.delete_channel(t.game, "discord")
        assert client.channels(t.game)["channels"] == []


class _Dropping:
    """An HTTP forwarder in front of the live server that passes every request on, but
    after the server has answered the first `drops` order posts it closes the
    connection instead of answering (the answer is lost on its way back). The bytes of
    every order post it saw are kept."""

    def __init__(self, target: str, drops: int) -> None:
        import http.server

        import httpx

        outer = self
        self.drops = drops
        self.posted: list[bytes] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def _forward(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in ("host", "content-length", "connection")}
                answer = httpx.request(self.command, target + self.path, content=body,
                                       headers=headers, timeout=WAIT)
                if self.command == "POST" and self.path.endswith("/orders"):
                    outer.posted.append(body)
                    if outer.drops > 0:
                        outer.drops -= 1
                        self.close_connection = True
                        return
                self.send_response(answer.status_code)
                for key, value in answer.headers.items():
                    if key.lower() not in ("content-length", "transfer-encoding",
                                           "connection", "content-encoding"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            do_GET = do_POST = _forward

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_an_unanswered_order_is_sent_again_byte_for_byte_never_signed_anew(
    live: Live, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/security.md, "Resend, never re-sign": the server took a roll but its answer
    was lost; the client sends the identical bytes again and gets the stored answer.
    When every try is lost the order is kept and `wif resend` sends it again; the roll
    happens once, with the dice of the one signature."""
    from service.client import api

    monkeypatch.setattr(api, "RESEND_WAITS", (0.01, 0.01, 0.01))
    t = seated_game(live, tmp_path)
    me = to_communists_action(t)
    proxy = _Dropping(live.url, drops=1)
    try:
        data = json.loads(me.read_text())
        data["games"][t.game]["base_url"] = proxy.url
        me.write_text(json.dumps(data))
        wif(me, "roll", "2d10", "lost", "answer")
        assert len(proxy.posted) == 2 and proxy.posted[0] == proxy.posted[1]

        proxy.drops = 4  # every try of the next order goes unanswered
        out = wif(me, "roll", "1d10", "kept", code=3).output
        assert "wif resend" in out and "never signed anew" in out
        assert len(proxy.posted) == 6 and len(set(proxy.posted[2:])) == 1
        kept = json.loads(me.read_text())["games"][t.game]["pending"]
        assert kept.encode() == proxy.posted[2]
        wif(me, "resend")
        assert proxy.posted[-1] == proxy.posted[2]
        assert "pending" not in json.loads(me.read_text())["games"][t.game]
        assert "no order awaits an answer" in wif(me, "resend").output
    finally:
        proxy.close()
    with Client(live.url, json.loads(t.gm.read_text())["games"][t.game]["gm_token"]) as gm:
        rolls = [e for e in gm.log(t.game) if e["kind"] == "dice.rolled"
                 and e["data"].get("purpose") == "roll"]
    assert [r["data"]["label"] for r in rolls] == ["lost answer", "kept"]
