"""Fan-out of "a game has new events" through PostgreSQL LISTEN/NOTIFY.

A NOTIFY carries only a wake-up hint (`<game id>:<newest seq>`); listeners read the
events from the log by seq. Hints are sent after commit, on a connection of their own,
and coalesced: while one batch is being sent, later commits of the same game collapse
into one hint with the newest seq. Every process LISTENs once and wakes its local
subscribers; a lost hint only delays a stream until its next periodic re-read.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import asyncpg

CHANNEL = "game_events"
log = logging.getLogger("service.notify")


def asyncpg_dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://", 1)


def _setter(event: asyncio.Event) -> Any:
    return lambda _connection: event.set()


class Hub:
    def __init__(self, url: str) -> None:
        self.dsn = asyncpg_dsn(url)
        self.subscribers: dict[str, set[asyncio.Event]] = defaultdict(set)
        self.pending: dict[str, int] = {}
        self.latest: dict[str, int] = {}  # game id -> newest seq hinted, for followed games
        self.sent = 0
        # Told of every hint, local or heard, whoever follows the game (the order's one
        # call: service/referee/one_call.py catches up before it decides).
        self.hinted: list[Callable[[str, int], None]] = []
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._listener: Any = None
        self._sender: Any = None

    async def start(self) -> None:
        self._tasks = [asyncio.create_task(self._send_loop()),
                       asyncio.create_task(self._listen_loop())]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # -- publishing (after commit) ------------------------------------------------------

    def published(self, game_id: str, seq: int) -> None:
        if seq > self.pending.get(game_id, -1):
            self.pending[game_id] = seq
        self._heard(game_id, seq)
        self._wake.set()

    def _heard(self, game_id: str, seq: int) -> None:
        """Keep the newest seq hinted for a game someone here follows."""
        if game_id in self.subscribers and seq > self.latest.get(game_id, 0):
            self.latest[game_id] = seq
        for hinted in self.hinted:
            hinted(game_id, seq)

    def newest(self, game_id: str) -> int:
        """The newest seq of the game this process heard of (0: none while followed): a
        stream reading from a replica must see at least that far (docs/scaling.md)."""
        return self.latest.get(game_id, 0)

    async def _send_loop(self) -> None:
        try:
            await self._send_forever()
        finally:
            if self._sender is not None and not self._sender.is_closed():
                await self._sender.close()

    async def _send_forever(self) -> None:
        connection: Any = None
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self.pending = self.pending, {}
            try:
                if connection is None or connection.is_closed():
                    connection = self._sender = await asyncpg.connect(self.dsn)
                await connection.executemany(
                    "SELECT pg_notify($1, $2)", [(CHANNEL, f"{g}:{s}") for g, s in batch.items()]
                )
                self.sent += len(batch)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                log.warning("notify failed; streams will catch up on their next re-read")
                connection = None
                await asyncio.sleep(0.5)

    # -- listening ----------------------------------------------------------------------

    def _on_notify(self, _connection: object, _pid: int, _channel: str, payload: str) -> None:
        game_id, _, seq = payload.partition(":")
        if seq.isdigit():
            self._heard(game_id, int(seq))
        for event in self.subscribers.get(game_id, ()):
            event.set()

    async def _listen_loop(self) -> None:
        while True:
            try:
                connection = await asyncpg.connect(self.dsn)
                await connection.add_listener(CHANNEL, self._on_notify)
                lost = asyncio.Event()
                connection.add_termination_listener(_setter(lost))
                self._listener = connection
                self._wake_everyone()  # we may have missed hints while disconnected
                while not lost.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(lost.wait(), timeout=10)
                    if connection.is_closed():
                        break
                    with contextlib.suppress(Exception):
                        await connection.execute("SELECT 1")
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                await asyncio.sleep(1)
            except asyncio.CancelledError:
                if self._listener is not None:
                    with contextlib.suppress(Exception):
                        await self._listener.close()
                raise

    def _wake_everyone(self) -> None:
        for events in self.subscribers.values():
            for event in events:
                event.set()

    # -- subscribing --------------------------------------------------------------------

    def subscribe(self, game_id: str) -> asyncio.Event:
        event = asyncio.Event()
        self.subscribers[game_id].add(event)
        return event

    def unsubscribe(self, game_id: str, event: asyncio.Event) -> None:
        self.subscribers[game_id].discard(event)
        if not self.subscribers[game_id]:
            del self.subscribers[game_id]
            self.latest.pop(game_id, None)
