"""`python -m service`: serve, migrate, verify, replay-check, simulate."""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import os
import signal
import socket
import sys


def _migrate() -> str:
    from service.store.database import make_engine, migrate, resolve_database_url

    url = resolve_database_url()

    async def run() -> None:
        engine = make_engine(url, pool_size=1)
        try:
            await migrate(engine)
        finally:
            await engine.dispose()

    asyncio.run(run())
    return url


def beyond_loopback(host: str) -> bool:
    """Whether a server listening on `host` can be reached from other machines: any
    address but a loopback one (a name counts as what it resolves to)."""
    try:
        addresses = [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        try:
            found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except OSError:
            return True
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found]
    return not addresses or not all(a.is_loopback for a in addresses)


OPEN_WARNING = (
    "WARNING: listening on {host} without OPERATOR_KEY: anyone who can reach this port "
    "can create and import games. Set OPERATOR_KEY to a long random secret (for example "
    "`OPERATOR_KEY=$(openssl rand -hex 32)`) before serving beyond loopback.")


class Stopped(Exception):
    """SIGTERM: stop serving (uvicorn raises the signal again once it has shut down)."""


def _stopped(signum: int, frame: object) -> None:
    raise Stopped


def serve(host: str, port: int, workers: int, loop: str = "auto", http: str = "auto") -> None:
    """Migrate and serve until Ctrl+C or SIGTERM; then stop the embedded PostgreSQL if
    this command started it (a database it did not start is left alone) and say so."""
    from service import serving
    from service.settings import get_settings
    from service.store import allocator
    from service.store.database import stop_embedded

    if beyond_loopback(host) and not get_settings().operator_key:
        print(OPEN_WARNING.format(host=host), file=sys.stderr, flush=True)
    signal.signal(signal.SIGTERM, _stopped)
    allocator.tune()  # here too: uvicorn's workers start with it
    try:
        url = _migrate()
        os.environ["DATABASE_URL"] = url
        serving.run("service.app:create_app", host=host, port=port, workers=workers,
                    loop=loop, http=http,
                    log_level=os.environ.get("LOG_LEVEL", "info").lower())
    except (KeyboardInterrupt, Stopped):
        pass
    finally:
        said = stop_embedded()
        if said:
            print(said, file=sys.stderr, flush=True)


def replay_check(game_ids: list[str] | None) -> int:
    """Replay every game in play under this code; print the first divergence per game
    and flag those games to their GM. Exit status 1 if any game diverges."""
    from service.referee.audit import replay_check as check
    from service.store.database import make_engine, make_sessionmaker, resolve_database_url
    from service.store.uow import Transactions

    async def run() -> int:
        engine = make_engine(resolve_database_url(), pool_size=1)
        try:
            async with Transactions(make_sessionmaker(engine))() as uow:
                results = await check(uow, game_ids or None)
        finally:
            await engine.dispose()
        for result in results:
            print(result.text())
        diverged = sum(1 for r in results if r.divergence is not None)
        print(f"{len(results)} game(s) replayed, {diverged} diverge"
              + (" (flagged to their GM)" if diverged else ""))
        return 1 if diverged else 0

    return asyncio.run(run())


def rotate_server_key() -> int:
    """Retire the server's receipt-signing key and make a new one (restart the servers
    so that every process signs with it)."""
    from service.referee.receipts import rotate
    from service.store.database import make_engine, make_sessionmaker
    from service.store.uow import Transactions

    async def run() -> str:
        engine = make_engine(_migrate(), pool_size=1)
        try:
            async with Transactions(make_sessionmaker(engine))() as uow:
                row = await rotate(uow)
                return f"new server key {row.id}: {row.public_key}"
        finally:
            await engine.dispose()

    print(asyncio.run(run()))
    return 0


def main(argv: list[str] | None = None) -> int:
    from service.settings import get_settings

    settings = get_settings()
    parser = argparse.ArgumentParser(prog="service", description="WiF referee service")
    sub = parser.add_subparsers(dest="command", required=True)
    p_serve = sub.add_parser("serve", help="migrate, then serve the API with uvicorn")
    p_serve.add_argument("--host", default=settings.host)
    p_serve.add_argument("--port", type=int, default=settings.port)
    p_serve.add_argument("--workers", type=int, default=settings.workers)
    p_serve.add_argument("--loop", choices=("auto", "asyncio", "uvloop"), default="auto",
                         help="event loop (auto: uvloop when installed)")
    p_serve.add_argument("--http", choices=("auto", "h11", "httptools"), default="auto",
                         help="HTTP parser (auto: httptools when installed)")
    sub.add_parser("migrate", help="upgrade the database to the newest schema")
    p_verify = sub.add_parser("verify", help="check an export offline (no database)")
    p_verify.add_argument("export", help="path of an export JSON file")
    p_verify.add_argument("--receipts", metavar="FILE", help="the server's signed receipts a "
                          "player kept (a JSON list): prove a dropped or altered order")
    p_check = sub.add_parser("replay-check", help="replay every game in play under this "
                             "code; report and flag the first diverging event per game")
    p_check.add_argument("--game", action="append", dest="games", metavar="ID",
                         help="only this game (repeatable)")
    sub.add_parser("rotate-server-key", help="retire the key that signs receipts and make "
                   "a new one (then restart the servers)")
    from service import simulate

    simulate.configure_parser(
        sub.add_parser("simulate", help="play turns with the real rules; impulses per turn")
    )
    args = parser.parse_args(argv)
    if args.command == "serve":
        serve(args.host, args.port, args.workers, args.loop, args.http)
    elif args.command == "migrate":
        _migrate()
        print("database is at the newest schema")
    elif args.command == "verify":
        from service.verify import verify_file

        report = verify_file(args.export, args.receipts)
        print(report.text())
        return report.status  # 0 verified, 1 failed, 3 partially verified
    elif args.command == "replay-check":
        return replay_check(args.games)
    elif args.command == "rotate-server-key":
        return rotate_server_key()
    elif args.command == "simulate" and args.handoffs:
        from service import handoffs

        turns = 10 if args.turns == simulate.TURNS_DEFAULT else args.turns
        return handoffs.run(turns, args.seed)
    elif args.command == "simulate":
        return simulate.run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
