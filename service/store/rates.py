"""Token buckets shared by every server process (`rate_buckets`, an UNLOGGED table).

One statement takes up to `want` tokens from a key's bucket: it refills the bucket by
the time passed (the database's clock, so that processes on different machines agree),
grants what it can (whole tokens, at most `want`) and returns the grant and the tokens
left. Callers take a lease of several tokens at a time (service.referee.rates), so a
busy client costs one statement per lease, not one per request."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

# The bucket refilled to now: min(burst, tokens + elapsed x rate); then the grant.
_NOW = "extract(epoch from clock_timestamp())"
_BURST, _RATE, _WANT = ("CAST(:burst AS double precision)", "CAST(:rate AS double precision)",
                        "CAST(:want AS integer)")
_FULL = f"LEAST({_BURST}, b.tokens + GREATEST(0, {_NOW} - b.stamp) * {_RATE})"
_GRANT = f"LEAST({_WANT}, GREATEST(0, floor({_FULL}))::integer)"
_TAKE = text(f"""
INSERT INTO rate_buckets AS b (key, tokens, stamp, granted)
VALUES (:key, {_BURST} - LEAST({_WANT}, {_BURST}), {_NOW}, LEAST({_WANT}, {_BURST})::integer)
ON CONFLICT (key) DO UPDATE SET
    granted = {_GRANT},
    tokens = {_FULL} - {_GRANT},
    stamp = GREATEST(b.stamp, {_NOW})
RETURNING granted, tokens
""")


@dataclass(frozen=True, slots=True)
class Grant:
    """Tokens granted, and the tokens left in the shared bucket after the grant."""

    granted: int
    left: float


class RateBuckets:
    """The shared buckets, on an engine of their own (a small pool: a lease never
    waits behind the requests' connections)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def take(self, key: str, want: int, *, rate: float, burst: int) -> Grant:
        async with self.engine.begin() as connection:
            row = (await connection.execute(_TAKE, {
                "key": key, "want": want, "rate": rate, "burst": burst})).one()
        return Grant(int(row[0]), float(row[1]))
