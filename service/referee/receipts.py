"""Signed receipts (docs/security.md): for every order the server accepted or refused,
an Ed25519 signature by the server's key over what it did with it, so a player can
prove a dropped or altered order from the receipt and the export alone.

The server's key is made the first time one is needed (by whichever process comes
first, under an advisory lock) and kept in `server_keys`; `python -m service
rotate-server-key` retires it and makes another. Each process caches the current key;
receipts name the key that signed them, and every key stays listed at
`GET /v1/server-key` and in exports.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.answers import Head, Receipt, ServerKey, SignedReceipt
from service.clock import rfc3339, utc_now
from service.crypto import identity, signing
from service.store.models import ServerKeyRow
from service.store.uow import UnitOfWork

RECEIPT = "wif-receipt/1"


@dataclass(frozen=True, slots=True)
class SigningKey:
    id: str
    private: Ed25519PrivateKey


_current: list[SigningKey] = []


def _key_id(public_key: str) -> str:
    return "srv-" + identity.player_id_of(public_key)[:16]


async def ensure_key(uow: UnitOfWork) -> None:
    """Make the server's key if it has none (at start, in a transaction of its own, so
    that no receipt is ever signed by a key that did not commit)."""
    if await uow.server_keys.current() is None:
        await uow.server_keys.lock()
        if await uow.server_keys.current() is None:
            await _make(uow)


async def current_key(uow: UnitOfWork) -> SigningKey:
    """This process's signing key: the newest unretired one."""
    if _current:
        return _current[0]
    row = await uow.server_keys.current()
    if row is None:
        raise RuntimeError("the server has no key: the app makes one when it starts")
    key = SigningKey(row.id, Ed25519PrivateKey.from_private_bytes(row.private_key))
    _current[:] = [key]
    return key


async def _make(uow: UnitOfWork) -> ServerKeyRow:
    private = signing.new_private_key()
    public = signing.public_key_text(private)
    row = ServerKeyRow(id=_key_id(public), public_key=public,
                       private_key=private.private_bytes_raw(), created_at=utc_now())
    uow.server_keys.add(row)
    await uow.session.flush()
    return row


async def rotate(uow: UnitOfWork) -> ServerKeyRow:
    """Retire every key and make a new current one (restart the servers to use it)."""
    await uow.server_keys.lock()
    await uow.server_keys.retire_all(utc_now())
    row = await _make(uow)
    _current.clear()
    return row


async def keys(uow: UnitOfWork) -> list[ServerKey]:
    """Every key the server has signed receipts with (public halves)."""
    return [{"id": k.id, "public_key": k.public_key, "created_at": rfc3339(k.created_at),
             "retired_at": rfc3339(k.retired_at) if k.retired_at else None}
            for k in await uow.server_keys.all()]


async def receipt(uow: UnitOfWork, *, game: str, player: str, seq: int, order_hash: str,
                  result: Literal["accepted", "refused"], head: Head | None,
                  version: int | None,
                  code: str | None = None, at: datetime | None = None) -> SignedReceipt:
    """A signed receipt: the order (by player, seq and the hash of its canonical bytes),
    what became of it, and the chain head after it."""
    return signed(await current_key(uow), game=game, player=player, seq=seq,
                  order_hash=order_hash, result=result, head=head, version=version,
                  code=code, at=at)


def cached_key() -> SigningKey | None:
    """This process's signing key if it has read it already (the order's one call does
    not read it: without it, the order takes the long way)."""
    return _current[0] if _current else None


def signed(key: SigningKey, *, game: str, player: str, seq: int, order_hash: str,
           result: Literal["accepted", "refused"], head: Head | None, version: int | None,
           code: str | None = None, at: datetime | None = None) -> SignedReceipt:
    """`receipt`, signed by `key`."""
    body: Receipt = {"type": "wif-receipt/1", "game": game, "player": player, "seq": seq,
                            "order_hash": order_hash, "result": result, "head": head,
                            "version": version, "at": rfc3339(at or utc_now()),
                            "key": key.id}
    if code is not None:
        body["code"] = code
    return {"receipt": body, "signature": signing.sign(key.private,
                                                       identity.signing_bytes(body))}
