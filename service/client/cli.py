"""`wif` / `python -m service.client`: play a game from the command line.

Global options come before the command: `wif --profile p.json --game ID state`.
The profile (default ./.wif/profile.json, or $WIF_PROFILE) remembers each game's
server, seat, token, key file and next order seq; the last game created, joined or
`use`d is the current one.

Exit codes: 0 ok; 1 the server refused (its problem detail is printed) or an export
failed verification; 2 a local problem (usage, profile, key file); 3 the server could
not be reached.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn, ParamSpec, TypeVar

import httpx
import typer

from service.answers import Accepted
from service.client.api import Client, ProblemError, Unanswered, envelope, join_body, signed
from service.client.keys import DEFAULT_KEY, KeyFileError, load_key, public_key_of, write_new_key
from service.client.profile import DEFAULT_PATH, Profile, ProfileError
from service.crypto import identity

__all__ = ["app", "main"]

DEFAULT_URL = "http://127.0.0.1:8000"

app = typer.Typer(
    name="wif",
    help="Play World in Flames-style games against a wif referee: keys, seats, signed "
    "orders, the live log, offline verification.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

P = ParamSpec("P")
R = TypeVar("R")


class UsageError(Exception):
    """A local mistake in what the user asked (exit 2)."""


@dataclass
class Ctx:
    profile: Profile
    game: str | None
    url: str | None


def _fail(lines: Iterable[str], code: int) -> NoReturn:
    for line in lines:
        typer.echo(line, err=True)
    raise typer.Exit(code)


def handled(func: Callable[P, R]) -> Callable[P, R]:
    """Turn the client's errors into a message on stderr and an exit code."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except ProblemError as problem:
            _fail([f"error: {line}" if i == 0 else line
                   for i, line in enumerate(problem.lines())], 1)
        except (ProfileError, KeyFileError, UsageError) as error:
            _fail([f"error: {error}"], 2)
        except httpx.HTTPError as error:
            _fail([f"error: cannot reach the server: {error}"], 3)

    return wrapper


@app.callback()
def _options(
    ctx: typer.Context,
    profile: Annotated[Path, typer.Option(
        envvar="WIF_PROFILE", help="the profile file (seats, tokens, seq counters)")
    ] = DEFAULT_PATH,
    game: Annotated[str | None, typer.Option(
        "--game", "-g", envvar="WIF_GAME", help="the game to act in (default: the current one)")
    ] = None,
    url: Annotated[str | None, typer.Option(
        envvar="WIF_URL", help=f"the server's base URL (default: the game's, else {DEFAULT_URL})")
    ] = None,
) -> None:
    ctx.obj = Ctx(Profile(profile), game, url)


# ---------------------------------------------------------------------- helpers


def _ctx(ctx: typer.Context) -> Ctx:
    obj = ctx.find_root().obj
    assert isinstance(obj, Ctx)
    return obj


def _json_arg(text: str, what: str) -> Any:
    """A JSON argument, `@file` holding JSON, or `-`: JSON on standard input."""
    try:
        if text == "-":
            return json.loads(sys.stdin.read())
        if text.startswith("@"):
            return json.loads(Path(text[1:]).read_text(encoding="utf-8"))
        return json.loads(text)
    except (OSError, ValueError) as error:
        raise UsageError(f"{what} is not valid JSON: {error}") from None


def _json_object(text: str | None, what: str) -> dict[str, Any]:
    if text is None:
        return {}
    value = _json_arg(text, what)
    if not isinstance(value, dict):
        raise UsageError(f"{what} must be a JSON object")
    return value


def _client(c: Ctx, entry: Mapping[str, Any] | None = None, *, gm: bool = False) -> Client:
    base = c.url or (entry or {}).get("base_url") or DEFAULT_URL
    token: str | None = None
    if entry is not None:
        token = entry.get("gm_token") if gm else entry.get("token") or entry.get("gm_token")
        if gm and not token:
            raise ProfileError(f"this profile holds no GM token for game {entry['game']}")
        if not token:
            raise ProfileError(f"this profile holds no token for game {entry['game']}")
    return Client(str(base), token=token)


def _seat(c: Ctx) -> dict[str, Any]:
    entry = c.profile.game(c.game)
    if not entry.get("player"):
        raise ProfileError(f"this profile holds no seat in game {entry['game']}: join first")
    return entry


def _pairs(items: list[str], what: str) -> list[tuple[str, str]]:
    out = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise UsageError(f"{what} must look like power=value, got {item!r}")
        out.append((key.strip(), value.strip()))
    return out


def _event_line(event: Mapping[str, Any]) -> str:
    where = f"T{event.get('turn')}.{event.get('impulse')}"
    return f"{event.get('seq', '?'):>5} {where:<7} {event.get('step', ''):<20} " \
           f"{event.get('text', event.get('kind', ''))}"


def _awaiting_text(entries: list[dict[str, Any]], side: str | None = None) -> str:
    if not entries:
        return "nobody"
    parts = []
    for a in entries:
        powers = f" [{', '.join(a.get('powers') or [])}]" if a.get("powers") else ""
        due = f" by {a['deadline']}" if a.get("deadline") else ""
        you = " <- you" if side and a.get("side") == side else ""
        parts.append(f"{a.get('side')}{powers} {a.get('step')}{due}{you}")
    return "; ".join(parts)


def _print_result(result: Mapping[str, Any], side: str | None, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    for event in result.get("events") or []:
        typer.echo(_event_line(event))
    pos = result.get("position") or {}
    typer.echo(f"accepted seq {result.get('seq')}; now turn {pos.get('turn')}, "
               f"impulse {pos.get('impulse')}, {pos.get('step')}; awaiting "
               f"{_awaiting_text(list(result.get('awaiting') or []), side)}")


def _send(c: Ctx, kind: str, body: Mapping[str, Any], *, as_json: bool = False,
          position: Mapping[str, Any] | None = None) -> Accepted:
    """Sign and send one order with the profile's seat; the seq is taken (and saved)
    before sending, so it is never reused even if the command is interrupted. The
    signed order is kept until the server answers it: an order still unanswered is
    sent again first, as it was signed (`_deliver`)."""
    entry = _seat(c)
    key = load_key(entry["key"])
    with _client(c, entry) as client:
        pending = c.profile.pending(entry["game"])
        if pending is not None:
            typer.echo("an order sent before got no answer: sending it again as signed")
            _deliver(c, client, entry, pending, as_json)
        summary = client.summary(entry["game"])
        seq = c.profile.take_seq(entry["game"])
        signed = envelope(entry["game"], entry["player"], key, kind, body, seq,
                          position or summary["position"], summary["head"]["hash"])
        return _deliver(c, client, entry, json.dumps(signed, separators=(",", ":")).encode(),
                        as_json)


def _deliver(c: Ctx, client: Client, entry: Mapping[str, Any], signed: bytes,
             as_json: bool) -> Accepted:
    """Send a signed order, kept as pending until an answer comes: after a timeout, a
    lost connection or a 5xx the same bytes go again (the client's resends, then the
    next command's), never a new signature: a re-signed order is a new roll
    (docs/security.md)."""
    c.profile.set_pending(entry["game"], signed)
    try:
        result = client.send(entry["game"], signed)
    except ProblemError as problem:
        c.profile.set_pending(entry["game"], None)
        if isinstance(problem.body.get("receipt"), Mapping):
            c.profile.keep_receipt(entry["game"], problem.body["receipt"])
        raise
    except Unanswered as error:
        _fail([f"error: {error}; the server may have taken it. It is kept and sent again, "
               "as signed, by `wif resend` or the next order (never signed anew: that "
               "would be a new roll)"], 3)
    c.profile.set_pending(entry["game"], None)
    c.profile.keep_receipt(entry["game"], result["receipt"])
    _print_result(dict(result), entry.get("side"), as_json)
    return result


def _position_of(state: Mapping[str, Any]) -> dict[str, Any]:
    t = state["turn"]
    return {"turn": t["number"], "impulse": t["impulse"], "step": t["step"]}


# ---------------------------------------------------------------------- keys, games, seats


@app.command()
@handled
def keygen(
    out: Annotated[Path, typer.Option(help="where to write the raw private key (0600)")] =
    DEFAULT_KEY,
    force: Annotated[bool, typer.Option(help="replace an existing key file")] = False,
) -> None:
    """Make an Ed25519 key pair; print the public key (base64url)."""
    key = write_new_key(out, overwrite=force)
    typer.echo(public_key_of(key))


@app.command()
@handled
def create(
    ctx: typer.Context,
    scenario: Annotated[str, typer.Option(
        help="a built-in scenario id, or the path of an inline scenario JSON file")],
    name: Annotated[str, typer.Option(help="the game's name")],
    options: Annotated[str | None, typer.Option(help="options as JSON (or @file)")] = None,
    dice: Annotated[str | None, typer.Option(
        help='dice mode as JSON, e.g. {"mode": "seeded", "seed": "ab12"}')] = None,
    operator_key: Annotated[str | None, typer.Option(
        envvar="WIF_OPERATOR_KEY",
        help="the server's OPERATOR_KEY, when it has one (only the operator creates games)")
    ] = None,
) -> None:
    """Create a game; print its id, GM token and join codes (JSON).

    The GM token and the join codes are kept in the profile."""
    c = _ctx(ctx)
    path = Path(scenario)
    inline: str | dict[str, Any] = scenario
    if scenario.endswith(".json") or path.is_file():
        inline = _json_object("@" + scenario, "--scenario")
    opts = _json_object(options, "--options")
    dice_spec = _json_object(dice, "--dice") if dice else {"mode": "fair"}
    with _client(c) as client:
        client.token = operator_key
        created = client.create_game(name, inline, opts, dice_spec)
        base = client.base_url
    c.profile.remember(created["id"], base_url=base, name=name, gm_token=created["gm_token"],
                       join_codes=created["join_codes"])
    typer.echo(json.dumps({k: created[k] for k in ("id", "gm_token", "join_codes")}, indent=2))


@app.command()
@handled
def join(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="the game id")],
    side: Annotated[str, typer.Argument(help="axis, allies, communists, ...")],
    name: Annotated[str, typer.Option(help="your name as the others see it")],
    code: Annotated[str | None, typer.Option(
        help="the side's join code (default: the one kept by `create` in this profile)")
    ] = None,
    powers: Annotated[str | None, typer.Option(
        help="comma-separated powers to take (default: every free power of the side)")
    ] = None,
    key: Annotated[Path, typer.Option(help="your private key file (from keygen)")] =
    DEFAULT_KEY,
) -> None:
    """Take a seat; the seat (player id, token, key file) goes into the profile."""
    c = _ctx(ctx)
    known = c.profile.load()["games"].get(game) or {}
    if known.get("player"):
        raise UsageError(f"this profile already holds a seat in {game} ({known.get('side')});"
                         " use another --profile for another seat")
    join_code = code or (known.get("join_codes") or {}).get(side)
    if not join_code:
        raise UsageError(f"no join code for {side}: pass --code")
    private = load_key(key)
    wanted = [p.strip() for p in powers.split(",") if p.strip()] if powers else None
    with Client(c.url or known.get("base_url") or DEFAULT_URL) as client:
        seat = client.join(game, side, join_code, name, private, wanted)
        base = client.base_url
        client.token = seat["token"]
        me = client.state(game).get("me", {})
    c.profile.remember(game, base_url=base, player=seat["player_id"], token=seat["token"],
                       side=side, key=str(key.resolve()), name=known.get("name"),
                       powers=me.get("powers"), seq=known.get("seq", 1))
    typer.echo(f"joined {game} as {side} ({', '.join(me.get('powers') or [])}); "
               f"player {seat['player_id']}")


@app.command()
@handled
def games(ctx: typer.Context) -> None:
    """The games in this profile (* marks the current one)."""
    c = _ctx(ctx)
    data = c.profile.load()
    for gid, entry in sorted(data["games"].items()):
        mark = "*" if gid == data.get("current") else " "
        role = entry.get("side") or ("GM" if entry.get("gm_token") else "-")
        typer.echo(f"{mark} {gid}  {entry.get('name') or ''}  {role}  next seq "
                   f"{entry.get('seq', 1)}  {entry.get('base_url')}")


@app.command()
@handled
def use(ctx: typer.Context, game: Annotated[str, typer.Argument()]) -> None:
    """Make GAME the profile's current game."""
    _ctx(ctx).profile.use(game)
    typer.echo(f"current game: {game}")


# ---------------------------------------------------------------------- signing for others

sign = typer.Typer(
    help="Sign a join or an order with a key file and print it as JSON, for curl or any "
    "other client to send (the key never leaves this machine; nothing is sent).",
    no_args_is_help=True,
)
app.add_typer(sign, name="sign")


@sign.command("join")
@handled
def sign_join(
    game: Annotated[str, typer.Argument(help="the game id")],
    side: Annotated[str, typer.Argument(help="axis, allies, communists, ...")],
    name: Annotated[str, typer.Option(help="your name as the others see it")],
    code: Annotated[str, typer.Option(help="the side's join code")],
    powers: Annotated[str | None, typer.Option(
        help="comma-separated powers to take (default: every free power of the side)")
    ] = None,
    key: Annotated[Path, typer.Option(help="your private key file (from keygen)")] =
    DEFAULT_KEY,
) -> None:
    """Print the body of POST /v1/games/GAME/seats/SIDE, signed by the key it registers."""
    wanted = [p.strip() for p in powers.split(",") if p.strip()] if powers else None
    typer.echo(json.dumps(join_body(game, side, code, name, load_key(key), wanted)))


@sign.command("order")
@handled
def sign_order(
    order: Annotated[str, typer.Argument(
        help="the order as JSON, @file, or - (standard input)")] = "-",
    key: Annotated[Path, typer.Option(help="your private key file (from keygen)")] =
    DEFAULT_KEY,
) -> None:
    """Print the envelope {"order", "signature"} of POST /v1/games/{id}/orders.

    The order names game, seq, prev, turn, impulse, step, kind and body; `player`, when
    left out, is the key's player id."""
    private = load_key(key)
    unsigned = _json_object(order, "ORDER")
    unsigned.setdefault("player", identity.player_id_of(public_key_of(private)))
    typer.echo(json.dumps(signed(unsigned, private)))


# ---------------------------------------------------------------------- reads


def _state_text(state: Mapping[str, Any]) -> list[str]:
    g, t, me = state.get("game", {}), state.get("turn", {}), state.get("me", {})
    lines = [f"{g.get('name') or 'game'} {g.get('id')}: {g.get('status')}, "
             f"{g.get('dice_mode')} dice"]
    lines.append(f"turn {t.get('number')}, round {t.get('round')}, impulse {t.get('impulse')}: "
                 f"{t.get('step')}; phasing {t.get('phasing_side') or '-'}")
    if t.get("order"):
        lines.append(f"order: {' > '.join(t['order'])}")
    w = t.get("weather") or {}
    weather = (f"{w.get('weather')} (roll {w.get('roll')}, {w.get('dice')} turn-end dice)"
               if w else "not rolled yet")
    lines.append(f"weather: {weather}; turn-end total {t.get('turn_end_total')}"
                 f"/{t.get('threshold')}")
    lines.append(f"awaiting: {_awaiting_text(list(state.get('awaiting') or []), me.get('side'))}")
    if me.get("role") == "player":
        powers = state.get("powers", {})
        held = ", ".join(f"{p} ({powers.get(p, {}).get('rps', 0)} RPs)"
                         for p in me.get("powers") or [])
        lines.append(f"you: {me.get('side')}: {held}")
    else:
        lines.append("you: GM")
    return lines


@app.command()
@handled
def state(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="the whole view as JSON")] = False,
) -> None:
    """Where the game is: turn, round, impulse, step, phasing side, who must act."""
    c = _ctx(ctx)
    entry = c.profile.game(c.game)
    with _client(c, entry) as client:
        view: dict[str, Any] = dict(client.state(entry["game"]))
    view.setdefault("game", {}).setdefault("name", entry.get("name"))
    if as_json:
        typer.echo(json.dumps(view, indent=2))
    else:
        typer.echo("\n".join(_state_text(view)))


@app.command()
@handled
def log(
    ctx: typer.Context,
    after: Annotated[int, typer.Option(help="start after this event seq")] = 0,
    follow: Annotated[bool, typer.Option(help="keep polling for new events (Ctrl-C ends)")] =
    False,
    interval: Annotated[float, typer.Option(help="seconds between polls with --follow")] = 2.0,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON event per line")] = False,
) -> None:
    """The game's events, one line each."""
    c = _ctx(ctx)
    entry = c.profile.game(c.game)
    last = after
    with _client(c, entry) as client:
        try:
            while True:
                for event in client.log(entry["game"], after=last):
                    last = int(event["seq"])
                    typer.echo(json.dumps(event) if as_json else _event_line(event))
                if not follow:
                    return
                time.sleep(interval)
        except KeyboardInterrupt:
            return


@app.command()
@handled
def watch(
    ctx: typer.Context,
    after: Annotated[int | None, typer.Option(
        help="replay from after this event seq (default: only new events)")] = None,
    count: Annotated[int | None, typer.Option(help="exit after this many events")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON event per line")] = False,
) -> None:
    """Follow the live stream (SSE), one line per event; Ctrl-C ends.

    Reconnects where it left off (Last-Event-ID) if the connection drops."""
    c = _ctx(ctx)
    entry = c.profile.game(c.game)
    seen = 0
    backoff = 1.0
    with _client(c, entry) as client:
        last = str(after) if after is not None else str(client.log_head(entry["game"]))
        try:
            while True:
                try:
                    for message in client.stream(entry["game"], last_event_id=last):
                        backoff = 1.0
                        if message.id is not None:
                            last = message.id
                        data = message.data
                        if isinstance(data, dict):
                            line = json.dumps(data) if as_json else _event_line(data)
                        else:
                            line = f"{message.event}: {data}"
                        typer.echo(line)
                        seen += 1
                        if count is not None and seen >= count:
                            return
                except httpx.TransportError as error:
                    typer.echo(f"(stream interrupted: {error}; reconnecting)", err=True)
                time.sleep(backoff)
                backoff = min(backoff * 2, 30.0)
        except KeyboardInterrupt:
            return


@app.command()
@handled
def export(
    ctx: typer.Context,
    out: Annotated[Path | None, typer.Option(help="write here (default: stdout)")] = None,
) -> None:
    """The game's whole verifiable record (JSON)."""
    c = _ctx(ctx)
    entry = c.profile.game(c.game)
    with _client(c, entry) as client:
        record = client.export(entry["game"])
    text = json.dumps(record, indent=1)
    if out is None:
        typer.echo(text)
        return
    out.write_text(text + "\n", encoding="utf-8")
    typer.echo(f"wrote {out}: {len(record.get('events', []))} events, "
               f"{len(record.get('orders', []))} signed orders")


@app.command()
def verify(
    path: Annotated[Path, typer.Argument(help="an export JSON file")],
    receipts: Annotated[Path | None, typer.Option(
        help="the server's receipts this profile kept (`wif receipts --out FILE`)")] = None,
) -> None:
    """Check an export offline: signatures, hash chain, dice, the replay of every command,
    and with --receipts that no order the server accepted is missing or altered. Exit 1
    on failure, 3 when the export withholds sealed answers (partially verified)."""
    from service.verify import verify_file

    report = verify_file(str(path), str(receipts) if receipts else None)
    typer.echo(report.text())
    if report.status:
        raise typer.Exit(report.status)


@app.command()
@handled
def receipts(
    ctx: typer.Context,
    out: Annotated[Path | None, typer.Option(help="write them to this file")] = None,
) -> None:
    """The server's signed receipts this profile kept for the game (a JSON list): give
    them to `verify --receipts` with an export."""
    c = _ctx(ctx)
    entry = c.profile.game(c.game)
    kept = c.profile.receipts(entry["game"])
    text = json.dumps(kept, indent=2)
    if out is None:
        typer.echo(text)
    else:
        out.write_text(text + "\n")
        typer.echo(f"{len(kept)} receipts written to {out}")


class AdminAction(StrEnum):
    pause = "pause"
    resume = "resume"
    end = "end"
    force = "force"


@app.command()
@handled
def admin(
    ctx: typer.Context,
    action: Annotated[AdminAction, typer.Argument()],
    reason: Annotated[str, typer.Option(help="why (logged)")] = "",
) -> None:
    """GM: pause, resume, end the game, or force the default action now."""
    c = _ctx(ctx)
    entry = c.profile.game(c.game)
    with _client(c, entry, gm=True) as client:
        result = client.admin(entry["game"], action.value, reason)
    for event in result.get("events") or []:
        typer.echo(_event_line(event))
    typer.echo(f"awaiting {_awaiting_text([dict(a) for a in result['awaiting']])}")


# ---------------------------------------------------------------------- orders


@app.command()
@handled
def order(
    ctx: typer.Context,
    kind: Annotated[str, typer.Argument(help="declare, done, reorg, mode, report, roll, ...")],
    body: Annotated[str | None, typer.Argument(help="the order's body as JSON (or @file)")] =
    None,
    as_json: Annotated[bool, typer.Option("--json", help="print the server's answer")] =
    False,
) -> None:
    """Build, sign and send any order kind (the seq is counted in the profile)."""
    _send(_ctx(ctx), kind, _json_object(body, "BODY"), as_json=as_json)


@app.command()
@handled
def resend(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="print the server's answer")] =
    False,
) -> None:
    """Send again, byte for byte, the order that got no answer (a timeout, a lost
    connection, a server error): the server answers it once, taken or refused."""
    c = _ctx(ctx)
    entry = _seat(c)
    pending = c.profile.pending(entry["game"])
    if pending is None:
        typer.echo("no order awaits an answer")
        return
    with _client(c, entry) as client:
        _deliver(c, client, entry, pending, as_json)


@app.command("pass")
@handled
def pass_(ctx: typer.Context) -> None:
    """Declare pass for every power of yours that has not declared this impulse."""
    c = _ctx(ctx)
    entry = _seat(c)
    with _client(c, entry) as client:
        view: dict[str, Any] = dict(client.state(entry["game"]))
    powers = view.get("powers", {})
    mine = [p for p in view.get("me", {}).get("powers") or []
            if powers.get(p, {}).get("declared") is None]
    if not mine:
        raise UsageError("none of your powers has a declaration left to make")
    _send(c, "declare", {"actions": {p: "pass" for p in mine}}, position=_position_of(view))


@app.command()
@handled
def declare(
    ctx: typer.Context,
    actions: Annotated[list[str], typer.Argument(
        help="power=action, action one of pass, land, air, naval, combined")],
    chit: Annotated[list[str] | None, typer.Option(
        help="power=kind@hq: play an offensive chit with that HQ (repeatable)")] = None,
) -> None:
    """Declare your powers' actions for this impulse."""
    body: dict[str, Any] = {"actions": dict(_pairs(actions, "an action"))}
    chits = {}
    for power, spec in _pairs(chit or [], "--chit"):
        kind, sep, hq = spec.partition("@")
        if not sep or not kind or not hq:
            raise UsageError(f"--chit must look like power=kind@hq, got {power}={spec}")
        chits[power] = {"kind": kind, "hq": hq}
    if chits:
        body["chits"] = chits
    _send(_ctx(ctx), "declare", body)


@app.command()
@handled
def done(ctx: typer.Context) -> None:
    """Your side has finished the current step."""
    _send(_ctx(ctx), "done", {})


class YesNo(StrEnum):
    yes = "yes"
    no = "no"


@app.command()
@handled
def reroll(ctx: typer.Context, answer: Annotated[YesNo, typer.Argument()]) -> None:
    """Answer the initiative reroll window (sealed until it closes)."""
    _send(_ctx(ctx), "initiative.reroll", {"demand": answer is YesNo.yes})


class Place(StrEnum):
    first = "first"
    last = "last"
    before = "before"
    after = "after"


@app.command()
@handled
def choose(ctx: typer.Context, position: Annotated[Place, typer.Argument()]) -> None:
    """Choose your place in the turn order: first|last (winner), before|after (runner-up)."""
    _send(_ctx(ctx), "initiative.choose", {"position": position.value})


@app.command()
@handled
def roll(
    ctx: typer.Context,
    dice: Annotated[str, typer.Argument(help="NdM, e.g. 2d10")],
    purpose: Annotated[list[str], typer.Argument(help="what the roll is for")],
) -> None:
    """An authoritative roll by the server, logged for everyone."""
    _send(_ctx(ctx), "roll", {"dice": dice, "purpose": " ".join(purpose)})


@app.command()
@handled
def production(
    ctx: typer.Context,
    figures: Annotated[list[str], typer.Argument(
        help="power=spent/onrps: BP spent (including those on RPs) / BP spent on RPs")],
) -> None:
    """Report production at turn end."""
    powers: dict[str, dict[str, int]] = {}
    for power, spec in _pairs(figures, "a production figure"):
        spent, sep, on_rps = spec.partition("/")
        if not sep or not spent.isdigit() or not on_rps.isdigit():
            raise UsageError(f"production must look like power=spent/onrps, got {power}={spec}")
        powers[power] = {"bp_spent": int(spent), "bp_on_rps": int(on_rps)}
    _send(_ctx(ctx), "production", {"powers": powers})


def main() -> None:
    """The `wif` console script."""
    app(prog_name="wif")
