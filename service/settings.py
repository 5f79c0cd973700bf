"""Service settings, read from the environment (and `.env`) by pydantic-settings."""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class Settings(BaseSettings):
    """Every knob of the service; the environment variable is the field name in capitals."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str | None = Field(
        default=None,
        description="postgresql+asyncpg://... ; unset: an embedded PostgreSQL under data_dir",
    )
    database_replica_url: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="comma-separated URLs of streaming replicas for "
        "state, log, dice, export and stream reads (docs/scaling.md); none: every read "
        "goes to DATABASE_URL")
    data_dir: Path = Field(default=Path("var"), description="embedded PostgreSQL data lives here")
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    operator_key: str | None = Field(
        default=None, description="when set, creating a game needs `Authorization: Bearer <key>`"
    )
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="comma-separated origins allowed by CORS"
    )
    log_level: str = "info"
    pool_size: int = 10
    game_lock: Literal["advisory", "row"] = Field(
        default="advisory", description="how an order locks its game: pg_advisory_xact_lock "
        "(advisory: waiters served in order, p99 several times lower on a hot game) or "
        "SELECT ... FOR UPDATE (row); see bench/hot_game.py",
    )
    max_body_bytes: int = Field(default=8 * 1024 * 1024, description="413 above this, for "
                                "creating and importing a game (a whole scenario, an export)")
    max_other_body_bytes: int = Field(
        default=1024 * 1024, ge=1024, description="413 above this, for every other route "
        "(a body is parsed on the serving loop: an order of 500 moves is about 100 kB)")
    max_json_depth: int = Field(
        default=64, ge=1, description="422 for a body whose JSON nests deeper (checked "
        "before parsing; the deepest legitimate body, an export, nests 8 deep)")
    rate_limit: float = Field(default=50.0, description="requests per second per token "
                              "(0: every rate limit off, the address's too)")
    rate_burst: int = Field(default=200, description="requests a token may burst")
    rate_limit_address: float = Field(
        default=100.0, ge=0, description="requests per second per client address, whatever "
        "tokens it sends (0: off), on top of each token's own limit")
    rate_burst_address: int = Field(default=400, ge=1,
                                    description="requests a client address may burst")
    one_call: bool = Field(default=True, description=(
        "take a player's order in one call to the database when this process has the "
        "game's head at hand (off: every order takes the long way; for measuring)"))
    rate_limit_pause: float = Field(
        default=1.0, ge=0, le=10, description="seconds a client refused by a rate limit "
        "waits for its next 429 when it asks again before its Retry-After (0: answered at "
        "once): a client hammering past its limit then costs a sleeping request, not a "
        "busy loop")
    rate_limit_shared: bool = Field(
        default=True, description="the buckets are shared by every process through "
        "PostgreSQL (leased a few tokens at a time); false: each process keeps its own")
    notify: bool = Field(default=True, description="LISTEN/NOTIFY fan-out of new events "
                         "(off: streams catch up by their periodic re-read; for measuring)")
    clock_tolerance: float = Field(
        default=2.0, gt=0, description="seconds this process's own clock may be off the "
        "database's before it says so at start and in /readyz (game times, deadlines and "
        "key waits come from the database's clock either way)")
    sweep_interval: float = Field(
        default=1.0, description="seconds between deadline sweeps and between looks for "
        "due notifications (0: neither runs)"
    )
    gc_threshold: Annotated[tuple[int, ...], NoDecode] = Field(
        default=(10_000, 2, 250), description=(
            "the serving process's cyclic garbage collector thresholds (Python's are 700, "
            "10, 10): with games' states cached, a full collection walks every cached "
            "object, and at Python's thresholds it ran every few hundred orders for up to "
            "100 ms; a collection of the middle generation walks what up to the first two "
            "numbers' product of allocations left alive (at 50000,20 up to 77 ms, at 10000,5 "
            "up to 41 ms, at 10000,2 up to 31 ms); the third, how many of those come "
            "before a full collection is considered "
            "(docs/scaling.md); empty: Python's own"))
    loop_stacks: bool = Field(
        default=False, description="log the event loop thread's stack, taken 25 ms into "
        "each hold that passes 50 ms, and what the collector tracks after a collection past "
        "50 ms (logger service.loop): names what is behind the holds /readyz counts "
        "(docs/operating.md \"Memory\")")
    webhook_timeout: float = Field(
        default=10.0, gt=0, description="seconds one delivery attempt may take in all "
        "(resolving, connecting, sending, the response's headers)")
    webhook_concurrency: int = Field(
        default=8, ge=1, description="deliveries in flight at once, per process")
    webhook_allow_networks: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="comma-separated networks (CIDR) notifications "
        "may go to although they are not public, e.g. 10.1.2.0/24 for an internal "
        "receiver; none by default")

    # Issue 33: heavy requests in worker processes, and the largest game accepted.
    heavy_workers: int = Field(
        default=1, ge=0, description="worker processes per serving process for heavy "
        "requests (legal choices, plans, exports, dice records, big creations and imports); "
        "0: on the serving loop, for measuring only")
    heavy_budget: float = Field(
        default=10.0, gt=0, description="seconds a heavy request may wait for its answer: "
        "then 503 server/too_slow with Retry-After (the answer is kept for the retry)")
    heavy_queue: int = Field(
        default=16, ge=1, description="heavy requests waiting or running per serving "
        "process: past it 503 server/busy with Retry-After")
    heavy_per_caller: int = Field(
        default=1, ge=1, description="heavy requests in flight per token (else per address): "
        "past it 429 request/heavy_in_flight with Retry-After")
    heavy_nice: int = Field(
        default=10, ge=0, le=19, description="how much the heavy workers yield the cores "
        "(their nice value): on a busy machine the serving process and PostgreSQL, which "
        "answer everyone, run first; 0: as the serving process")
    cache_mb: int = Field(
        default=256, ge=1, description="megabytes (estimated) the per-game caches of one "
        "process may hold: states, parsed scenarios, views, supply, legal choices, planners; "
        "past it the games used least recently are forgotten (each worker process too)")
    cache_idle_seconds: float = Field(
        default=1800.0, gt=0, description="a game's cached data is forgotten after this "
        "long without a request")
    options_page_bytes: int = Field(
        default=1024 * 1024, ge=1024, description="the most JSON a page of a side's legal "
        "choices holds (GET /options; at least one unit a page)")
    max_map_hexes: int = Field(
        default=20_000, ge=1, description="the most hexes a created game's map may have; "
        "larger only with the operator key (413 scenario/too_large; an import is the "
        "operator's)")
    max_units: int = Field(
        default=2_000, ge=1, description="the most units a created game may have; more only "
        "with the operator key (413 scenario/too_large)")

    # Issue 20: e-mail notifications (none unless `smtp_host` and `smtp_sender` are set)
    # and links to the page in every notification channel.
    smtp_host: str | None = Field(default=None, description="SMTP server for e-mail "
                                  "notifications (unset: no e-mail channel)")
    smtp_port: int = Field(default=587, ge=1, le=65535)
    smtp_sender: str | None = Field(default=None, description="From: of notification e-mail")
    smtp_username: str | None = None
    smtp_password: str | None = None
    smtp_tls: Literal["none", "starttls", "tls"] = Field(
        default="starttls", description="none, starttls (port 587) or tls (port 465)")
    public_url: str | None = Field(default=None, description="this server's public address, "
                                   "e.g. https://wif.example.org (links in notifications)")

    @field_validator("gc_threshold", mode="before")
    @classmethod
    def _parse_thresholds(cls, value: object) -> object:
        if isinstance(value, str):
            parts = [p.strip() for p in value.split(",") if p.strip()]
            if not all(p.isdigit() for p in parts) or len(parts) not in (0, 3):
                raise ValueError("expected three whole numbers, e.g. 10000,2,250, or nothing")
            return tuple(int(p) for p in parts)
        return value

    @field_validator("webhook_allow_networks", mode="after")
    @classmethod
    def _check_networks(cls, value: list[str]) -> list[str]:
        for network in value:
            ipaddress.ip_network(network, strict=False)
        return value

    @field_validator("cors_origins", "webhook_allow_networks", "database_replica_url",
                     mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value


@lru_cache
def get_settings() -> Settings:
    return Settings()
