"""The game's clock, in one place: the database's (the rules never read a clock: they
get `at` with a command).

Every `at` of the log, every deadline and every key's waiting time are measured by
one clock that every server process shares: PostgreSQL's `clock_timestamp()`. A
process samples it (`observe`, at start, from `/readyz` and from the deadline sweeper
once a minute) and counts on from the sample with its own monotonic clock, which a
wrong or stepped wall clock does not move; so two processes agree although their own
clocks do not (docs/security.md). How far the process's wall clock is from the
database's is kept (`skew`): a process far off says so at start and in `/readyz`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

RESAMPLE_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Sample:
    database: datetime  # the database's clock
    monotonic: float  # this process's monotonic clock at that moment
    skew: float  # this process's wall clock minus the database's, in seconds


_sample: Sample | None = None


def observe(database: datetime, before: float, after: float, wall: datetime) -> Sample:
    """Take the database's clock as read between the monotonic moments `before` and
    `after` (read at their midpoint), when this process's wall clock said `wall`."""
    global _sample
    middle = (before + after) / 2
    _sample = Sample(database.astimezone(UTC), middle,
                     (wall - database).total_seconds() - (after - middle))
    return _sample


def sample() -> Sample | None:
    return _sample


def stale() -> bool:
    """Whether it is time to read the database's clock again."""
    return _sample is None or time.monotonic() - _sample.monotonic > RESAMPLE_SECONDS


def wall_now() -> datetime:
    """This process's own wall clock (only to measure how far it is off)."""
    return datetime.now(UTC)


def utc_now() -> datetime:
    """The game's clock: the database's, counted on from the last sample (this
    process's wall clock only before the first, as in a tool with no database)."""
    found = _sample
    if found is None:
        return wall_now()
    return found.database + timedelta(seconds=time.monotonic() - found.monotonic)


def skew_words(skew: float) -> str:
    direction = "ahead of" if skew > 0 else "behind"
    return (f"this process's clock is {abs(skew):.1f} s {direction} the database's; "
            "game times, deadlines and key waits come from the database's clock")


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
