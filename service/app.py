"""The FastAPI application: engine and sessions built in the lifespan, routes, errors."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from sqlalchemy.ext.asyncio import AsyncEngine

from service import __version__, clock
from service.api import (
    channels as channel_routes,
)
from service.api import (
    contract,
    games,
    health,
    options,
    player_settings,
    problems,
    reorg,
    schemas,
    stream,
    watchers,
    webhooks,
)
from service.api.headers import SecurityHeaders
from service.api.limits import BodyLimit, RateLimit
from service.referee import channels, egress, one_call, receipts
from service.referee.holds import LoopWatch
from service.referee.notifications import Courier
from service.referee.offload import Limits, Offload, Overloaded, Throttled, Where
from service.referee.rates import SharedBudget
from service.referee.work import Reads, read_clock
from service.settings import Settings, get_settings
from service.store import allocator, threads
from service.store.database import make_engine, make_sessionmaker, resolve_database_url
from service.store.memory import BUDGET, MB
from service.store.notify import Hub
from service.store.order_call import OrderCall
from service.store.rates import RateBuckets
from service.store.replicas import Replicas
from service.store.uow import Transactions

log = logging.getLogger("service")


async def deadline_sweeper(transactions: Transactions, interval: float,
                           offload: Offload | None = None) -> None:
    """The game clock: default actions where a step's deadline has passed, every
    `interval` seconds. A task of its own, so no notification (however slow its
    receiver) delays it. Safe with several processes: games are claimed with SKIP LOCKED.
    A big game's default (the final reorganization's plans every face-down unit) is
    applied by a worker process (`offload`), as its orders are. Once a minute it reads
    the database's clock again (`service.clock`)."""
    from service.referee.games import sweep, sweep_game
    from service.referee.reads import big

    leave = big if offload is not None and offload.workers else None
    handed: set[asyncio.Task[int]] = set()
    while True:
        await asyncio.sleep(interval)
        try:
            async with transactions() as uow:
                if clock.stale():
                    await read_clock(uow)
                swept = await sweep(uow, leave=leave)
        except Exception:  # noqa: BLE001 - a failed sweep is retried next interval
            log.exception("deadline sweep failed")
            continue
        for game_id in swept.left:
            assert offload is not None  # only a server with workers leaves games
            task = asyncio.create_task(offload.run(
                sweep_game, game_id, caller=f"clock:{game_id}", affinity=game_id, read=False))
            handed.add(task)
            task.add_done_callback(_swept_elsewhere(handed))


def _swept_elsewhere(handed: set[asyncio.Task[int]]) -> Callable[[asyncio.Task[int]], None]:
    """What a worker's sweep of a big game ended with: refused while the previous one
    goes on (429) or the workers are busy (503), the next sweep hands it on again."""
    def done(task: asyncio.Task[int]) -> None:
        handed.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None and not isinstance(error, Overloaded | Throttled):
            log.error("a big game's deadline sweep failed", exc_info=error)
    return done


def channel_setup(settings: Settings) -> channels.Setup:
    """The notification channels' setup from the settings: e-mail only with an SMTP host
    and a sender (docs/operating.md, Configuration)."""
    mail = None
    if settings.smtp_host and settings.smtp_sender:
        mail = channels.Mail(host=settings.smtp_host, port=settings.smtp_port,
                             sender=settings.smtp_sender, username=settings.smtp_username,
                             password=settings.smtp_password, tls=settings.smtp_tls,
                             timeout=settings.webhook_timeout)
    return channels.Setup(mail=mail, public_url=settings.public_url)


def background(transactions: Transactions, policy: egress.Policy, settings: Settings,
               offload: Offload | None = None) -> list[asyncio.Task[None]]:
    """The deadline sweeper and the notification courier, as two tasks (none when
    `sweep_interval` is 0)."""
    if settings.sweep_interval <= 0:
        return []
    courier = Courier(transactions, policy, concurrency=settings.webhook_concurrency,
                      interval=settings.sweep_interval,
                      channel_setup=channel_setup(settings))
    return [asyncio.create_task(deadline_sweeper(transactions, settings.sweep_interval,
                                                 offload)),
            asyncio.create_task(courier.run())]


def ready_routes(app: FastAPI) -> None:
    """Have the router prepare every route now (FastAPI builds each router's routes,
    their answers' serializers included, when a request first looks through it: the
    first requests of a process held the loop 60-130 ms; bench/attack.py). A path no
    route takes makes it look through them all."""
    scope = {"type": "http", "path": "/-/ready", "root_path": "", "method": "GET",
             "headers": [], "query_string": b""}
    for route in app.router.routes:
        route.matches(scope)


def collect_less(thresholds: tuple[int, ...]) -> None:
    """Set the cyclic collector's thresholds and move what starting made (modules,
    tables, the receipt key) out of its sight (`gc.freeze`): what is left for a full
    collection to walk is the games' cached states. Reference counting frees everything
    else as before."""
    if thresholds:
        gc.set_threshold(*thresholds)
    gc.freeze()


def settle(app: FastAPI, settings: Settings) -> None:
    """The last of starting: the routes prepared, the collector and the C allocator told
    (service/store/allocator.py), the threads started and their turns set
    (`threads.SWITCH_INTERVAL`)."""
    ready_routes(app)
    allocator.tune()
    threads.start()
    collect_less(settings.gc_threshold)
    sys.setswitchinterval(threads.SWITCH_INTERVAL)


def offload_of(settings: Settings, url: str, reads: Reads) -> Offload:
    """The heavy requests' workers (service/referee/offload.py), as the settings say."""
    return Offload(
        Where(url, tuple(settings.database_replica_url), settings.cache_mb * MB,
              settings.cache_idle_seconds, settings.heavy_nice),
        Limits(workers=settings.heavy_workers, budget=settings.heavy_budget,
               queue=settings.heavy_queue, per_caller=settings.heavy_per_caller),
        reads)


def shared_rates(app: FastAPI, settings: Settings, url: str) -> AsyncEngine | None:
    """The rate limits' buckets shared by every process through PostgreSQL
    (`RATE_LIMIT_SHARED`), per token and per address; their engine, if any."""
    if settings.rate_limit <= 0 or not settings.rate_limit_shared:
        return None
    engine = make_engine(url, pool_size=2)
    buckets = RateBuckets(engine)
    app.state.rate_budget = SharedBudget(buckets, settings.rate_limit, settings.rate_burst)
    if settings.rate_limit_address > 0:
        app.state.address_budget = SharedBudget(buckets, settings.rate_limit_address,
                                                settings.rate_burst_address)
    return engine


def lifespan_of(settings: Settings, database_url: str | None
                ) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """What the app does when it starts and stops: the engine, the stream hub, the
    order's one call, the server's receipt key, the background tasks."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        url = database_url or resolve_database_url()
        engine = make_engine(url, pool_size=settings.pool_size)
        app.state.engine = engine
        app.state.sessionmaker = make_sessionmaker(engine)
        app.state.hub = hub = Hub(url)
        hub.hinted.append(one_call.heard)
        # As many as the session pool's most (pool plus overflow): fewer, and orders wait
        # for a connection, unfairly (asyncpg's pool lets a newcomer pass the waiting):
        # POOL_SIZE alone doubled p99 at 32 clients (bench/orders.py, docs/scaling.md).
        order_call = OrderCall(url, size=2 * settings.pool_size) if settings.one_call \
            else None
        app.state.transactions = Transactions(
            app.state.sessionmaker, hub.published if settings.notify else None, order_call)
        replicas = Replicas(settings.database_replica_url, pool_size=settings.pool_size) \
            if settings.database_replica_url else None
        app.state.reads = Reads(app.state.transactions, replicas)
        BUDGET.configure(settings.cache_mb * MB, settings.cache_idle_seconds)
        app.state.offload = offload = offload_of(settings, url, app.state.reads)
        rate_engine = shared_rates(app, settings, url)
        await hub.start()
        if order_call is not None:
            await order_call.start()
        async with app.state.transactions() as uow:
            await receipts.ensure_key(uow)
            found = await read_clock(uow)
        if abs(found.skew) > settings.clock_tolerance:
            log.warning(clock.skew_words(found.skew))
            print(f"warning: {clock.skew_words(found.skew)}", file=sys.stderr, flush=True)
        settle(app, settings)
        tasks = background(app.state.transactions, app.state.egress, settings, offload)
        app.state.loop_watch = watch = LoopWatch(stacks=settings.loop_stacks)
        watch.start()
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await watch.stop()
            await offload.stop()
            await hub.stop()
            if order_call is not None:
                await order_call.stop()
            if replicas is not None:
                await replicas.dispose()
            if rate_engine is not None:
                await rate_engine.dispose()
            await engine.dispose()

    return lifespan


def create_app(settings: Settings | None = None, *, database_url: str | None = None) -> FastAPI:
    settings = settings or get_settings()
    lifespan = lifespan_of(settings, database_url)
    app = FastAPI(
        title="WiF referee",
        version=__version__,
        description="Play-by-web referee for three-sided World in Flames-style games: "
        "signed orders, verifiable dice, a hash-chained turn log.",
        lifespan=lifespan,
        generate_unique_id_function=lambda route: route.name,
    )
    app.state.settings = settings
    app.state.channel_setup = channel_setup(settings)
    app.state.egress = egress.Policy.of(settings.webhook_allow_networks,
                                        settings.webhook_timeout)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware, allow_origins=settings.cors_origins, allow_methods=["*"],
            allow_headers=["*"], expose_headers=[
                "ETag", "Idempotent-Replayed", "Retry-After", "RateLimit-Policy",
                "RateLimit"],
        )
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes,
                       max_depth=settings.max_json_depth,
                       max_other_bytes=settings.max_other_body_bytes)
    # Added after the body limit, so outside it: a refused request costs no body read
    # and no query.
    app.add_middleware(RateLimit, rate=settings.rate_limit, burst=settings.rate_burst,
                       address_rate=settings.rate_limit_address,
                       address_burst=settings.rate_burst_address,
                       pause=settings.rate_limit_pause)
    # Outermost: every answer carries them, a refusal by the limits too.
    app.add_middleware(SecurityHeaders)
    problems.install(app, schemas.ORDER_KINDS | {"fair", "seeded", "scripted"})
    app.include_router(health.router)
    app.include_router(games.router)
    app.include_router(stream.router)
    app.include_router(webhooks.router)
    app.include_router(channel_routes.router)
    app.include_router(reorg.router)
    app.include_router(options.router)
    app.include_router(player_settings.router)
    app.include_router(watchers.router)
    from service.web import mount

    mount(app)
    app.openapi = lambda: contract.document(app, __version__)  # type: ignore[method-assign]
    return app
