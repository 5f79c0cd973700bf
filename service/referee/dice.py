"""The server's dice (DESIGN.md 4.2): a secret seed per turn, committed before the
turn's first roll and revealed after it; every die an HMAC of the seed over the roll's
inputs, including the hash of the event just before the roll.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.crypto import chain
from service.crypto import dice as crypto_dice
from service.rules.dice import Roll
from service.rules.events import Event


class ServerDice:
    """Dice for one command. `new_seeds` lists the seeds drawn that must be stored."""

    def __init__(
        self,
        *,
        game_id: str,
        mode: str,
        config: dict[str, Any],
        seeds: dict[int, bytes],
        head_seq: int,
        head_hash: str,
    ) -> None:
        self.game_id = game_id
        self.mode = mode
        self.config = config
        self.seeds = dict(seeds)
        self.head_seq = head_seq
        self.head_hash = head_hash
        self.new_seeds: dict[int, bytes] = {}

    def _seed(self, turn: int) -> bytes:
        if turn not in self.seeds:
            if self.mode == "seeded":
                seed = crypto_dice.seeded_turn_seed(bytes.fromhex(self.config["seed"]), turn)
            else:
                seed = crypto_dice.new_seed()
                self.new_seeds[turn] = seed
            self.seeds[turn] = seed
        return self.seeds[turn]

    def commit(self, turn: int) -> str:
        return crypto_dice.commitment(self._seed(turn))

    def reveal(self, turn: int) -> str:
        return self._seed(turn).hex()

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
