"""What the server answers (docs/api.md): the shape of every reply, as TypedDicts the
referee's use cases are checked against (mypy), the API publishes as response schemas,
and the Python client and the verifier read their answers and exports with. The
rules' own views (`StateView`, `AwaitingEntry`, `EventRecord`, `Position`) are the
parts of the game; these add what the server knows around it: heads, receipts,
tokens, webhooks, the dice record and the export.

A client ignores keys it does not know: the server adds fields without a new version.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from service.rules.awaiting import AwaitingEntry, Choices, Position
from service.rules.event_data import DiceRolledData
from service.rules.events import EventKind, EventRecord
from service.rules.modes import PreviewShown, UnitChoices
from service.rules.reorg import PlanShown, RepairShown
from service.rules.state import PositionStep
from service.rules.view import Divergence, StateView, Status

DiceMode = Literal["fair", "seeded", "scripted"]


class Head(TypedDict):
    """The newest event of the game's chain: what the next order names as `prev`."""

    seq: int
    hash: str


class Receipt(TypedDict):
    """The server's signed word on an order (docs/security.md "Receipts")."""

    type: Literal["wif-receipt/1"]
    game: str
    player: str
    seq: int
    order_hash: str
    result: Literal["accepted", "refused"]
    head: Head | None
    version: int | None
    at: str
    key: str
    code: NotRequired[str]


class SignedReceipt(TypedDict):
    receipt: Receipt
    signature: str


class Outcome(TypedDict):
    """What an order or a GM act did: the events it caused, the new version and chain
    head, where the game stands and who must act now."""

    version: int
    events: list[EventRecord]
    head: Head
    position: Position
    awaiting: list[AwaitingEntry]


class Accepted(Outcome):
    """`POST /orders` 201 (200 with `Idempotent-Replayed: true` for a resent order)."""

    accepted: Literal[True]
    seq: int
    receipt: SignedReceipt
    player_id: NotRequired[str]
    side: NotRequired[str]
    powers: NotRequired[list[str]]
    token: NotRequired[str | None]
    join_code: NotRequired[str]


class Preview(TypedDict):
    """`POST /orders?dry_run=true`: what the order would do, nothing changed. A sealed
    answer shows nothing; an order that rolls dice shows nothing past the roll."""

    valid: Literal[True]
    dry_run: Literal[True]
    rolls_dice: bool
    events: list[EventRecord]
    sealed: NotRequired[bool]
    note: NotRequired[str]
    position: NotRequired[Position]
    awaiting: NotRequired[list[AwaitingEntry]]


class KeyReplaced(Outcome):
    """`admin.replace_key`: the player, and its new token when one was asked for (shown
    once, to the GM)."""

    player_id: str
    token: str | None


class SeatReopened(Outcome):
    """`admin.reopen_seat`: the seat, and the join code a substitute takes it with
    (shown once, to the GM)."""

    side: str
    powers: list[str]
    join_code: str


ActOutcome = Outcome | KeyReplaced | SeatReopened


class Created(TypedDict):
    """`POST /games`: the game's id, the GM's token and a join code per side (each shown
    once)."""

    id: str
    gm_token: str
    join_codes: dict[str, str]


class ImportedPlayer(TypedDict):
    side: str
    name: str
    token: str | None


class Imported(Created):
    """`POST /games/import`: the game as created here, with a new token for each player
    still seated (the GM hands them out), its version and the `game.imported` event."""

    players: dict[str, ImportedPlayer]
    version: int
    events: list[EventRecord]


class Joined(TypedDict):
    """`POST /seats/{side}`: the player's id and token (shown once) and its powers."""

    player_id: str
    token: str
    side: str
    powers: list[str]
    head: Head


class StateSummary(TypedDict):
    """Where the state after the event `head` stands and who must act (what a game row
    keeps of it, service/referee/summaries.py)."""

    status: Status
    scenario: str
    turn: int
    round: int
    impulse: int
    step: PositionStep
    phasing_side: str | None
    awaiting: list[AwaitingEntry]
    position: Position
    head: Head


class Summary(StateSummary):
    """A game in brief: status, where it stands, who must act."""

    id: str
    name: str
    version: int
    dice_mode: DiceMode
    divergence: NotRequired[Divergence | None]


class GameList(TypedDict):
    games: list[Summary]
    next: str | None


class LogPage(TypedDict):
    """A page of the log; `next_after` is the `after` of the next page (null: none)."""

    events: list[EventRecord]
    next_after: int | None
    head: int


class WebhookStatus(TypedDict):
    """A webhook's state as its owner sees it."""

    url: str
    state: Literal["active", "disabled"]
    disabled_at: str | None
    reason: str | None
    failing_since: str | None


class Webhook(WebhookStatus):
    """A registered webhook: its state, and whether it gets every event."""

    every_event: bool


QuietHoursShown = TypedDict("QuietHoursShown", {"from": str, "to": str, "timezone": str})


class Channel(TypedDict):
    """A notification channel of mine (issue 20): e-mail, Discord or Slack, and its
    state: disabled (`disabled_at`, `reason`) once every delivery failed for five days
    (since `failing_since`), until it is set again."""

    kind: Literal["email", "discord", "slack"]
    target: str
    quiet_hours: QuietHoursShown | None
    digest_minutes: int
    state: Literal["active", "disabled"]
    disabled_at: str | None
    reason: str | None
    failing_since: str | None


class TestSent(TypedDict):
    """`POST /channels/{kind}/test`, `POST /webhook/test`: one test message sent at once
    (no retry, no quiet hours, no digest), and what the receiver answered: `status_code`
    (HTTP, or an SMTP reply's code), `error` (None: delivered)."""

    kind: Literal["email", "discord", "slack", "webhook"]
    target: str
    delivered: bool
    status_code: int | None
    error: str | None


class Channels(TypedDict):
    """`GET /channels`: my channels, and whether this server sends e-mail."""

    channels: list[Channel]
    email_available: bool


class Registered(Webhook):
    """`PUT /webhook`: the webhook and its new signing secret (shown once)."""

    secret: str
    signature: str


class Attempt(TypedDict):
    attempt: int
    at: str
    status_code: int | None
    error: str | None


class YourMoveData(TypedDict):
    """The player's entry of `awaiting`, where the game stands, the step's deadline."""

    game: str
    awaiting: AwaitingEntry
    position: Position
    deadline: str | None


class YourMove(TypedDict):
    """`game.your_move`: the game newly awaits the player (docs/api.md, "What is sent")."""

    type: Literal["game.your_move"]
    timestamp: str
    data: YourMoveData


class EventsData(TypedDict):
    """The events an order or act appended: read them from the log (`after` first_seq - 1)."""

    game: str
    first_seq: int
    last_seq: int
    kinds: list[EventKind]


class EventsNotice(TypedDict):
    """`game.events`: to a player with `every_event`, and always to the GM."""

    type: Literal["game.events"]
    timestamp: str
    data: EventsData


Elapsed = Literal["50%", "90%"]


class ReminderData(TypedDict):
    game: str
    awaiting: AwaitingEntry
    deadline: str
    elapsed: Elapsed


class DeadlineReminder(TypedDict):
    """`game.deadline_reminder`: half and nine tenths of the step's deadline have passed,
    to the player awaited."""

    type: Literal["game.deadline_reminder"]
    timestamp: str
    data: ReminderData


class NoticeData(TypedDict):
    game: str
    awaiting: list[AwaitingEntry]
    deadline: str
    elapsed: Elapsed


class DeadlineNotice(TypedDict):
    """`game.deadline_notice`: the same, to the GM, with every entry still awaited."""

    type: Literal["game.deadline_notice"]
    timestamp: str
    data: NoticeData


# What a webhook (or a channel) is sent, by `type` (docs/api.md, "What is sent").
Notification = YourMove | EventsNotice | DeadlineReminder | DeadlineNotice
MessageKind = Literal["your_move", "events", "reminder"]


class Message(TypedDict):
    """A notification and its delivery attempts."""

    id: str
    kind: MessageKind
    payload: Notification
    state: Literal["pending", "delivered", "failed"]
    attempts: list[Attempt]
    next_attempt_at: str | None


class Deliveries(TypedDict):
    messages: list[Message]


class Ticket(TypedDict):
    """A stream ticket: single use, for `expires_at`; `url` opens the stream."""

    ticket: str
    expires_at: str
    url: str
    head_seq: int


class SupplyShown(TypedDict):
    """A land unit's supply (map engine; docs/api.md "Reading the game"): `method`
    primary, secondary, rail or overseas, from `source`, through `via`, a basic path of
    `length` hexes after the long legs of `route`; out of supply, `reason` and `rule`.
    Keys with nothing to say are left out."""

    unit: str
    in_supply: bool
    method: NotRequired[str]
    source: NotRequired[str]
    via: NotRequired[str]
    length: NotRequired[int]
    route: NotRequired[list[str]]
    reason: NotRequired[str]
    rule: NotRequired[str]


class StateAnswer(StateView):
    """`GET /state`: the member's view, the chain head, every land unit's supply (map
    engine) and the caller's webhook (null: none)."""

    head: Head
    supply: dict[str, SupplyShown]
    webhook: WebhookStatus | None


class ProblemUnit(TypedDict):
    """The unit an offending item is about: its id and its name."""

    id: str
    name: str


class ProblemError(TypedDict):
    """One offending item: a JSON pointer into the request, what is wrong there, and the
    unit it is about, if any."""

    path: str
    message: str
    unit: NotRequired[ProblemUnit]


class Problem(TypedDict):
    """An RFC 9457 problem (docs/api.md, "Status codes and problems"): `type` is
    `/problems/<code>`; `rule` names the rule broken (a rule number such as 11.18.4 or
    OCS 5.7c, or a document of docs/). A refused order carries its signed `receipt`, and
    where it helps where the game stands (`current`, `awaiting`), the `choices` this
    state offers, the `head` for an unknown `prev`, the unit, item or hex at fault, the
    RPs that would lapse, when a new key may order, or the caller's webhook."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    instance: NotRequired[str]
    errors: NotRequired[list[ProblemError]]
    rule: NotRequired[str]
    receipt: NotRequired[SignedReceipt]
    current: NotRequired[Position]
    awaiting: NotRequired[list[AwaitingEntry]]
    choices: NotRequired[Choices]
    head: NotRequired[Head]
    unit: NotRequired[str]
    unit_name: NotRequired[str]
    item: NotRequired[int]
    method: NotRequired[str]
    hex: NotRequired[str]
    lapse: NotRequired[dict[str, int]]
    effective_at: NotRequired[str]
    webhook: NotRequired[WebhookStatus]


class ServerKey(TypedDict):
    id: str
    public_key: str
    created_at: str
    retired_at: str | None


class ServerKeys(TypedDict):
    current: ServerKey | None
    keys: list[ServerKey]


class Chain(TypedDict):
    """A seed chain's commitment (docs/dice.md): the `dice.committed` (or, with its
    `reason`, `dice.recommitted`) event at `seq`."""

    seq: int
    chain: int
    from_turn: int
    anchor: str
    length: int
    reason: NotRequired[str]


class RollShown(DiceRolledData):
    """A roll of the dice record: its `dice.rolled` event's data and seq, and whether a
    rollback abandoned it."""

    seq: int
    rolled_back: NotRequired[bool]


class TurnDice(TypedDict):
    """A turn's dice: what its seed must hash to, the seed once revealed, every roll."""

    turn: int
    commitment: str | None
    seed: str | None
    rolls: list[RollShown]
    earlier_seeds: NotRequired[list[str]]


class DiceRecord(TypedDict):
    game: str
    mode: DiceMode
    scripted: bool
    algorithm: str
    chains: list[Chain]
    turns: list[TurnDice]


class ExportedGame(TypedDict):
    id: str
    name: str
    status: Status
    version: int
    rules_version: str
    gm_public_key: str | None


class PlayerKey(TypedDict):
    """One of a player's keys: it signs the orders from event `from_seq` on (and, for a
    replaced key without the old one's consent, from `effective_at`), with the old key's
    signed `consent` if it gave one (docs/game-master.md)."""

    public_key: str
    from_seq: int
    effective_at: NotRequired[str | None]
    consent: NotRequired[str | None]


class ExportedPlayer(TypedDict):
    id: str
    side: str
    name: str
    powers: list[str]
    public_key: str
    active: bool
    keys: list[PlayerKey]


class ExportedDice(TypedDict):
    """How the game's dice are made (docs/dice.md): the master seed of a seeded game and
    the script of a scripted one once the game is over."""

    mode: DiceMode
    algorithm: str
    scripted: NotRequired[bool]
    script: NotRequired[dict[str, list[int]]]
    master_seed: NotRequired[str]


class Export(TypedDict):
    """The whole verifiable record (docs/security.md): `complete` is false while it
    withholds another side's sealed answer."""

    format: Literal["wif-referee-export/2"]
    game: ExportedGame
    scenario: dict[str, Any]
    options: dict[str, Any]
    dice: ExportedDice
    players: list[ExportedPlayer]
    orders: list[dict[str, Any]]
    commands: list[dict[str, Any]]
    events: list[EventRecord]
    server_keys: list[ServerKey]
    revealed_seeds: dict[str, str]
    state: StateView
    # How each kind of combat is decided: "table", "reported" by players, or "none".
    combat_results: dict[str, str]
    complete: bool


class ReorgPlan(PlanShown):
    """`GET /reorg/options`: a unit's plan at this position and version."""

    position: Position
    version: int


class ReorgRepairs(TypedDict):
    """`GET /reorg/repairs`: the damaged ports of the reader's side (the GM: every
    side's) and the ways to repair each now (11.18.4), at this position and version."""

    position: Position
    version: int
    ports: list[RepairShown]


class UnitOptions(UnitChoices):
    """`GET /units/{unit}/options`: a unit's legal choices at this position and version
    (issue 16)."""

    position: Position
    version: int


class SideOptions(TypedDict):
    """`GET /options?side=`: a page of a side's units with their legal choices (issue
    33): `total` units match the request, `next_after` is the `after` of the next page
    (null: this is the last)."""

    position: Position
    version: int
    side: str
    units: dict[str, UnitChoices]
    total: int
    next_after: str | None


class CombatOdds(PreviewShown):
    """`GET /combat/odds`: what a combat, overrun or barrage would fight at now (issue
    29): the referee's odds and the cells its column could give."""

    position: Position
    version: int


class SettingsShown(TypedDict):
    """A player's own settings: `confirm_lapse` asks that a reorganization step's `done`
    leaving RPs unspent carry `"confirm_lapse": true` (11.18)."""

    confirm_lapse: bool


class PlayerSettings(TypedDict):
    """`GET|PUT /players/me/settings`."""

    player_id: str
    settings: SettingsShown


class Spectator(TypedDict):
    """A spectator's seat: read-only, the public view (issue 19)."""

    spectator_id: str
    name: str
    created_at: str


class SpectatorIssued(Spectator):
    """`POST /admin/spectators`: the spectator's token, shown once."""

    token: str
    role: Literal["spectator"]


class SpectatorList(TypedDict):
    """`GET /admin/spectators`."""

    spectators: list[Spectator]


class KeyRequest(TypedDict):
    """A player's request for a new signing key; the GM approves it by replacing the
    player's key with `public_key` (`POST /admin/players/{player_id}/key`)."""

    request_id: str
    player_id: str
    name: str
    side: str
    public_key: str
    created_at: str
    approved: bool


class KeyRequestList(TypedDict):
    """`GET /admin/key-requests`: every request, newest last."""

    requests: list[KeyRequest]
