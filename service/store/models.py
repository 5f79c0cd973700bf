"""The tables. Every game-scoped table has `game_id` first in its primary key."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Table,
    Text,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSON, JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {dict[str, Any]: JSONB, list[Any]: JSONB}


def table(model: type[Base]) -> Table:
    """A model's Core table: inserts and updates through it skip the ORM's bulk layer
    (measurably cheaper per order, see bench/README.md)."""
    found = model.__table__
    assert isinstance(found, Table)
    return found


def _now() -> Mapped[datetime]:
    return mapped_column(DateTime(timezone=True), server_default=func.now(), nullable=False)


class GameRow(Base):
    """One game: its fixed setup, its secrets (hashed or sealed) and its head.

    `scenario` (megabytes for a big map) is loaded only when asked for, once per process
    (store.games). `state` is no longer written after creation: the current state is
    the newest snapshot plus the events since (store.games)."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(Text)
    version: Mapped[int] = mapped_column(BigInteger)
    scenario: Mapped[dict[str, Any]] = mapped_column(JSONB, deferred=True,
                                                     deferred_raiseload=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSONB)
    dice: Mapped[dict[str, Any]] = mapped_column(JSONB)
    gm_token_hash: Mapped[str] = mapped_column(Text, index=True)
    join_codes: Mapped[dict[str, str]] = mapped_column(JSONB)
    state: Mapped[dict[str, Any]] = mapped_column(JSONB, deferred=True,
                                                  deferred_raiseload=True)
    head_seq: Mapped[int] = mapped_column(BigInteger)
    head_hash: Mapped[str] = mapped_column(Text)
    rules_version: Mapped[str] = mapped_column(Text)
    next_deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    # When the clock `next_deadline` ends started: the step's start, or the asking of the
    # combat question the game waits for (rules.clock_started); reminders count from it.
    step_started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Hashes of the join codes the GM issued for reopened seats: {player_id: hash}.
    substitute_codes: Mapped[dict[str, str]] = mapped_column(
        JSONB, server_default=text("'{}'::jsonb"))
    # Set by `service replay-check` when the replay of the log under the current rules
    # differs from the stored snapshots: {seq, after_seq, what, ...}; shown to the GM.
    divergence: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # The GM's Ed25519 key (base64url) when the GM signs their acts (docs/security.md).
    gm_public_key: Mapped[str | None] = mapped_column(Text)
    # The scenario's map hexes and units, counted once: whether the game is big
    # (referee.reads.BIG) is read from the row, never from the scenario.
    hexes: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    units: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    # The summary of the state at a head ({"head": {seq, hash}, status, turn, ...,
    # awaiting, position}: referee.summaries), written by the process that applied the
    # change; current when its head is the row's. A serving process reads a big game's
    # summary, log and ETag from rows alone and never loads its state.
    summary: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = _now()
    updated_at: Mapped[datetime] = _now()


class PlayerRow(Base):
    """A seat: a player of one side, holding some of its powers, with an Ed25519 key."""

    __tablename__ = "players"

    game_id: Mapped[str] = mapped_column(
        Text, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    side: Mapped[str] = mapped_column(Text)
    name: Mapped[str] = mapped_column(Text)
    powers: Mapped[list[str]] = mapped_column(JSONB)
    public_key: Mapped[str] = mapped_column(Text)
    token_hash: Mapped[str] = mapped_column(Text, index=True)
    active: Mapped[bool] = mapped_column(default=True)
    # Every key the player signed with: [{public_key, from_seq}], a key signing the
    # orders whose first event comes after event `from_seq` (the GM may replace keys).
    keys: Mapped[list[Any]] = mapped_column(JSONB, server_default=text("'[]'::jsonb"))
    created_at: Mapped[datetime] = _now()
    # The player's own settings ({"confirm_lapse": bool}), set through its seat's token.
    settings: Mapped[dict[str, bool]] = mapped_column(JSONB, server_default=text("'{}'::jsonb"))


class OrderRow(Base):
    """An accepted signed order, kept whole (envelope and signature) with its result."""

    __tablename__ = "orders"

    game_id: Mapped[str] = mapped_column(Text, primary_key=True)
    player_id: Mapped[str] = mapped_column(Text, primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    order_hash: Mapped[str] = mapped_column(Text)
    envelope: Mapped[dict[str, Any]] = mapped_column(JSONB)
    result: Mapped[dict[str, Any]] = mapped_column(JSONB)
    first_event: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = _now()


class EventRow(Base):
    """The hash-chained turn log. Append-only: a trigger refuses UPDATE, DELETE, TRUNCATE."""

    __tablename__ = "events"

    game_id: Mapped[str] = mapped_column(Text, primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    turn: Mapped[int] = mapped_column(Integer)
    impulse: Mapped[int] = mapped_column(Integer)
    step: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text)
    # JSON, not JSONB: the replay must see an object's keys in the order they were written.
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    rules_version: Mapped[str] = mapped_column(Text)
    hash: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SnapshotRow(Base):
    """The state after event `seq`, kept at least at the start of every impulse."""

    __tablename__ = "snapshots"

    game_id: Mapped[str] = mapped_column(Text, primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    turn: Mapped[int] = mapped_column(Integer)
    impulse: Mapped[int] = mapped_column(Integer)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)  # in the order it was written
    created_at: Mapped[datetime] = _now()


class DiceSeedRow(Base):
    """A turn's secret dice seed (fair and scripted modes); revealed in the log at turn end.
    `epoch` counts the turn's new commitments (after a rollback past its reveal, or an
    import); seeded games store only those."""

    __tablename__ = "dice_seeds"

    game_id: Mapped[str] = mapped_column(Text, primary_key=True)
    turn: Mapped[int] = mapped_column(Integer, primary_key=True)
    epoch: Mapped[int] = mapped_column(Integer, primary_key=True, server_default=text("0"))
    seed: Mapped[bytes] = mapped_column(LargeBinary)
    commitment: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = _now()


Index("ix_events_game_kind", EventRow.game_id, EventRow.kind)
Index("ix_events_game_hash", EventRow.game_id, EventRow.hash)


class CommandRow(Base):
    """A command the referee applied, with everything `decide` was given: the verifier
    replays the game from these (docs/security.md). `signed` is the signed envelope of a
    player's order, a GM act or a join; `first_event` the seq of its first event."""

    __tablename__ = "commands"

    game_id: Mapped[str] = mapped_column(
        Text, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    first_event: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    kind: Mapped[str] = mapped_column(Text)
    actor: Mapped[dict[str, Any]] = mapped_column(JSON)
    body: Mapped[dict[str, Any]] = mapped_column(JSON)  # in the order it was sent
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    position: Mapped[list[int | str] | None] = mapped_column(JSON)
    trigger: Mapped[str] = mapped_column(Text)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON)
    signed: Mapped[dict[str, Any] | None] = mapped_column(JSON)


class ServerKeyRow(Base):
    """A key the server signs receipts with; the newest unretired one is current."""

    __tablename__ = "server_keys"

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    public_key: Mapped[str] = mapped_column(Text)
    private_key: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = _now()
    retired_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


GM_OWNER = "gm"  # the owner id of the GM's webhook and messages (player ids are hex)


class WebhookRow(Base):
    """A webhook: a player's ("your move", deadline reminders, optionally every event)
    or, with `player_id` "gm", the game master's (every event, deadline reminders).

    `failing_since` is the first failed attempt since the last delivered one (None: the
    newest attempt was delivered); once attempts have failed for long enough the webhook
    is disabled (`disabled_at`, `disabled_reason`) until it is registered again."""

    __tablename__ = "webhooks"

    game_id: Mapped[str] = mapped_column(Text, primary_key=True)
    player_id: Mapped[str] = mapped_column(Text, primary_key=True)
    url: Mapped[str] = mapped_column(Text)
    secret: Mapped[str] = mapped_column(Text)
    every_event: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = _now()
    failing_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    disabled_reason: Mapped[str | None] = mapped_column(Text)


class OutboxRow(Base):
    """A notification written in the order's transaction, delivered after commit.
    `attempts` counts the attempts since it was queued (or resent, which starts the
    retry schedule again); the delivery log numbers every attempt ever made."""

    __tablename__ = "outbox"

    game_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    player_id: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(Text)
    payload: Mapped[dict[str, Any]] = mapped_column(JSONB)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    delivered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    failed: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = _now()
    # The channel it goes to (issue 20): "email", "discord", "slack"; None: the owner's
    # Standard Webhook.
    channel: Mapped[str | None] = mapped_column(Text)


class ChannelRow(Base):
    """A player's notification channel (issue 20): e-mail (`target` an address), a
    Discord or a Slack incoming webhook (`target` its URL); "your move" is held through
    the quiet hours (`quiet_from`-`quiet_to`, minutes of the day in `timezone`) and, with
    a digest, sent `digest_minutes` after it is due, with every other one due by then.
    A channel whose every delivery fails for `DISABLE_AFTER` is disabled until it is
    set again (PUT)."""

    __tablename__ = "channels"

    game_id: Mapped[str] = mapped_column(Text, primary_key=True)
    player_id: Mapped[str] = mapped_column(Text, primary_key=True)
    kind: Mapped[str] = mapped_column(Text, primary_key=True)
    target: Mapped[str] = mapped_column(Text)
    quiet_from: Mapped[int | None] = mapped_column(Integer)
    quiet_to: Mapped[int | None] = mapped_column(Integer)
    timezone: Mapped[str] = mapped_column(Text, server_default="UTC")
    digest_minutes: Mapped[int] = mapped_column(Integer, server_default="0")
    created_at: Mapped[datetime] = _now()
    # As a webhook's: when the deliveries began to fail (None: the last one went), and
    # when and why the channel was disabled after `DISABLE_AFTER` of failures.
    failing_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    disabled_reason: Mapped[str | None] = mapped_column(Text)


class DeliveryRow(Base):
    """One delivery attempt of an outbox message: the log a player can read."""

    __tablename__ = "deliveries"

    game_id: Mapped[str] = mapped_column(Text, primary_key=True)
    outbox_id: Mapped[str] = mapped_column(Text, primary_key=True)
    attempt: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    status_code: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(Text)


Index(
    "ix_outbox_due",
    OutboxRow.next_attempt_at,
    postgresql_where=OutboxRow.delivered_at.is_(None) & OutboxRow.failed.is_(False),
)


class StreamTicketRow(Base):
    """A short-lived, single-use ticket that opens one live stream (an EventSource
    cannot send a bearer token). Only its SHA-256 is kept, with the digest of the token
    that asked for it: the stream is the caller's, checked again on every page."""

    __tablename__ = "stream_tickets"

    game_id: Mapped[str] = mapped_column(Text, ForeignKey("games.id", ondelete="CASCADE"),
                                         primary_key=True)
    ticket_hash: Mapped[str] = mapped_column(Text, primary_key=True, index=True)
    token_hash: Mapped[str] = mapped_column(Text)
    player_id: Mapped[str | None] = mapped_column(Text)  # None: the GM
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = _now()


class SpectatorRow(Base):
    """A spectator's seat: a read-only token the GM issued (issue 19), whose view is
    the public one (no side's sealed answers, no side's reorganization counters)."""

    __tablename__ = "spectators"

    game_id: Mapped[str] = mapped_column(
        Text, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    token_hash: Mapped[str] = mapped_column(Text, index=True)
    created_at: Mapped[datetime] = _now()


class KeyRequestRow(Base):
    """A player's request for a new signing key (a lost key, another device), listed to
    the GM, who approves it by replacing the player's key with it (issue 19)."""

    __tablename__ = "key_requests"

    game_id: Mapped[str] = mapped_column(
        Text, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    player_id: Mapped[str] = mapped_column(Text)
    public_key: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = _now()


class RateBucketRow(Base):
    """A token bucket shared by every server process (service.store.rates): `tokens`
    left at `stamp` (the database's clock, seconds since the epoch), and what the last
    request for tokens was granted. UNLOGGED: cheap to update, lost in a crash (the
    buckets are then full again), not replicated."""

    __tablename__ = "rate_buckets"
    __table_args__ = {"prefixes": ["UNLOGGED"]}

    key: Mapped[str] = mapped_column(Text, primary_key=True)
    tokens: Mapped[float] = mapped_column(Float)
    stamp: Mapped[float] = mapped_column(Float)
    granted: Mapped[int] = mapped_column(Integer)
