"""The server's dice (docs/dice.md): chains of turn seeds fixed before any input they
meet exists, revealed one turn at a time; every die an HMAC of its turn's seed over the
roll's inputs and the trigger (the hash of the signature of the command that rolls).

A fair or scripted game's chain roots are secret random bytes, stored in `dice_seeds`
(one row per chain, keyed by the chain's number) and read once per process; a seeded
game derives them from the GM's master seed and stores none.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from service.crypto import dice as crypto_dice
from service.rules.dice import Roll
from service.rules.state import Chain
from service.store.games import Game
from service.store.uow import UnitOfWork

_CACHE_SIZE = 512
_ROOTS: OrderedDict[str, dict[int, bytes]] = OrderedDict()


class ServerDice:
    """Dice for one command: the game's chains (as its state records them) and their
    roots; `new_roots` are the roots of chains this command made, to be stored."""

    def __init__(self, *, game_id: str, mode: str, config: dict[str, Any],
                 roots: dict[int, bytes], chains: Sequence[Chain]) -> None:
        self.game_id = game_id
        self.mode = mode
        self.config = config
        self.roots = dict(roots)
        self.chains = list(chains)
        self.new_roots: dict[int, tuple[int, bytes, str]] = {}  # chain -> (from, root, anchor)

    def _root(self, number: int) -> bytes:
        if number not in self.roots:
            if self.mode == "seeded":
                self.roots[number] = crypto_dice.seeded_root(bytes.fromhex(self.config["seed"]),
                                                             number)
            else:
                raise LookupError(f"game {self.game_id} has no root for dice chain {number}")
        return self.roots[number]

    def commit(self, chain: int, from_turn: int) -> tuple[str, int]:
        length = crypto_dice.CHAIN_LENGTH
        if self.mode == "seeded":
            root = self._root(chain)
        else:
            root = self.roots[chain] = crypto_dice.new_root()
        anchor = crypto_dice.anchor(root, length)
        if self.mode != "seeded":
            self.new_roots[chain] = (from_turn, root, anchor)
        self.chains.append(Chain(chain, from_turn, anchor, length))
        return anchor, length

    def _seed(self, turn: int) -> bytes:
        chain = next((c for c in reversed(self.chains) if c.covers(turn)), None)
        if chain is None:
            raise LookupError(f"no dice chain covers turn {turn}")
        return crypto_dice.chain_seed(self._root(chain.number), turn - chain.from_turn,
                                      chain.length)

    def reveal(self, turn: int) -> str:
        return self._seed(turn).hex()

    def seed_rows(self, game_id: str) -> list[dict[str, Any]]:
        """The rows of `dice_seeds` for the chains this command made."""
        return [{"game_id": game_id, "turn": first, "epoch": number, "seed": root,
                 "commitment": anchor}
                for number, (first, root, anchor) in self.new_roots.items()]

    def roll(self, *, turn: int, index: int, purpose: str, count: int, faces: int,
             script_position: int, trigger: str) -> Roll:
        if self.mode == "scripted":
            script = self.config.get("script", {}).get(purpose, [])
            values = script[script_position:script_position + count]
            if len(values) == count and all(1 <= v <= faces for v in values):
                return Roll(turn, index, purpose, faces, tuple(values), "scripted", trigger,
                            scripted=count)
        values = crypto_dice.roll_dice(self._seed(turn), game_id=self.game_id, turn=turn,
                                       roll_index=index, purpose=purpose, trigger=trigger,
                                       count=count, faces=faces)
        source = "seeded" if self.mode == "seeded" else "fair"
        return Roll(turn, index, purpose, faces, tuple(values), source, trigger)


def new_dice(game_id: str, config: dict[str, Any]) -> ServerDice:
    """The dice of a game being created (no chain yet)."""
    return ServerDice(game_id=game_id, mode=config["mode"], config=config, roots={},
                      chains=())


def cached_roots(game_id: str, chains: Sequence[Chain], config: dict[str, Any]
                 ) -> dict[int, bytes] | None:
    """The roots of every chain of the game as this process read them committed, or
    None when one is not at hand (a seeded game needs none: it derives them)."""
    if config["mode"] == "seeded" or not chains:
        return {}
    cached = _ROOTS.get(game_id)
    if cached is None or any(c.number not in cached for c in chains):
        return None
    return dict(cached)


async def load_dice(uow: UnitOfWork, game: Game) -> ServerDice:
    """The game's dice. Stored roots are cached per process, but only as read from the
    database (committed): a root drawn by a transaction that rolled back is never used."""
    config = game.row.dice
    chains = game.state.dice.chains
    roots: dict[int, bytes] = {}
    if config["mode"] != "seeded" and chains:
        cached = _ROOTS.get(game.id)
        if cached is None or any(c.number not in cached for c in chains):
            cached = _ROOTS[game.id] = {epoch: seed for (_, epoch), seed in
                                        (await uow.dice.of_game(game.id)).items()}
            if len(_ROOTS) > _CACHE_SIZE:
                _ROOTS.popitem(last=False)
        else:
            _ROOTS.move_to_end(game.id)
        roots = dict(cached)
    return ServerDice(game_id=game.id, mode=config["mode"], config=config, roots=roots,
                      chains=chains)
