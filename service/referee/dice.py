"""The server's dice (DESIGN.md 4.2): a secret seed per turn, committed before the
turn's first roll and revealed after it; every die an HMAC of the seed over the roll's
inputs, including the hash of the event just before the roll.

A turn may get a new seed (an `epoch`) after a rollback past its reveal or an import
(docs/game-master.md); the state says which epoch each turn is at.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from service.crypto import chain
from service.crypto import dice as crypto_dice
from service.rules.dice import Roll
from service.rules.events import Event
from service.store.games import Game
from service.store.uow import UnitOfWork

_CACHE_SIZE = 512
_SEEDS: OrderedDict[str, dict[tuple[int, int], bytes]] = OrderedDict()


class ServerDice:
    """Dice for one command. `new_seeds` lists the seeds drawn that must be stored, by
    (turn, epoch); `seeds` are the turns' seeds at their current `epochs`."""

    def __init__(
        self,
        *,
        game_id: str,
        mode: str,
        config: dict[str, Any],
        seeds: dict[int, bytes],
        head_seq: int,
        head_hash: str,
        epochs: Mapping[int, int] | None = None,
    ) -> None:
        self.game_id = game_id
        self.mode = mode
        self.config = config
        self.seeds = dict(seeds)
        self.head_seq = head_seq
        self.head_hash = head_hash
        self.epochs = dict(epochs or {})
        self.new_seeds: dict[tuple[int, int], bytes] = {}

    def _seed(self, turn: int) -> bytes:
        if turn not in self.seeds:
            epoch = self.epochs.get(turn, 0)
            if self.mode == "seeded" and "seed" in self.config:
                master = bytes.fromhex(self.config["seed"])
                seed = (crypto_dice.seeded_turn_seed(master, turn) if epoch == 0
                        else crypto_dice.seeded_recommit_seed(master, turn, epoch))
            else:
                seed = crypto_dice.new_seed()
                self.new_seeds[(turn, epoch)] = seed
            self.seeds[turn] = seed
        return self.seeds[turn]

    def commit(self, turn: int) -> str:
        return crypto_dice.commitment(self._seed(turn))

    def reveal(self, turn: int) -> str:
        return self._seed(turn).hex()

    def recommit(self, turn: int, epoch: int) -> str:
        self.epochs[turn] = epoch
        self.seeds.pop(turn, None)
        return crypto_dice.commitment(self._seed(turn))

    def seed_rows(self, game_id: str) -> list[dict[str, Any]]:
        """The rows of `dice_seeds` for the seeds this command drew."""
        return [{"game_id": game_id, "turn": t, "epoch": e, "seed": s,
                 "commitment": crypto_dice.commitment(s)}
                for (t, e), s in self.new_seeds.items()]

    def chain_hash(self, pending: Sequence[Event]) -> str:
        """The hash of the last event before the roll, the command's own events included."""
        digest = self.head_hash
        for offset, event in enumerate(pending, start=1):
            digest = chain.event_hash(digest, event.record(self.head_seq + offset))
        return digest

    def roll(
        self,
        *,
        turn: int,
        index: int,
        purpose: str,
        count: int,
        faces: int,
        script_position: int,
        pending: Sequence[Event],
    ) -> Roll:
        chain_hash = self.chain_hash(pending)
        if self.mode == "scripted":
            script = self.config.get("script", {}).get(purpose, [])
            values = script[script_position:script_position + count]
            if len(values) == count and all(1 <= v <= faces for v in values):
                return Roll(turn, index, purpose, faces, tuple(values), "scripted", chain_hash,
                            scripted=count)
        values = crypto_dice.roll_dice(
            self._seed(turn), game_id=self.game_id, turn=turn, roll_index=index,
            purpose=purpose, chain_hash=chain_hash, count=count, faces=faces,
        )
        source = "seeded" if self.mode == "seeded" else "fair"
        return Roll(turn, index, purpose, faces, tuple(values), source, chain_hash)


async def load_dice(uow: UnitOfWork, game: Game, turn: int) -> ServerDice:
    """The game's dice at `turn`, each turn's seed at the epoch its state records.
    Stored seeds are cached per process, but only as read from the database
    (committed): a seed drawn by a transaction that rolls back is never reused. Seeded
    games derive their seeds and store none."""
    epochs = game.state.dice.epochs
    config = game.row.dice
    need = (turn, epochs.get(turn, 0))
    cached: dict[tuple[int, int], bytes] | None = {} if config["mode"] == "seeded" \
        else _SEEDS.get(game.id)
    if cached is None or (need not in cached and config["mode"] != "seeded"):
        cached = _SEEDS[game.id] = await uow.dice.of_game(game.id)
        if len(_SEEDS) > _CACHE_SIZE:
            _SEEDS.popitem(last=False)
    elif game.id in _SEEDS:
        _SEEDS.move_to_end(game.id)
    seeds = {t: seed for (t, e), seed in cached.items() if e == epochs.get(t, 0)}
    return ServerDice(game_id=game.id, mode=config["mode"], config=config, seeds=seeds,
                      head_seq=game.head_seq, head_hash=game.head_hash, epochs=epochs)
