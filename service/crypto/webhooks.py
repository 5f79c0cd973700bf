"""Standard Webhooks signatures: `webhook-signature: v1,<base64 HMAC-SHA256>` over
`{webhook-id}.{webhook-timestamp}.{body}`, keyed by the secret `whsec_<base64>`."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

PREFIX = "whsec_"


def new_secret() -> str:
    return PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def _key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(PREFIX))


def sign(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers(secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(secret, message_id, timestamp, body),
        "content-type": "application/json",
    }


def verify(secret: str, headers_: dict[str, str], body: bytes) -> bool:
    """Receiver side: any of the space-separated `v1,` signatures matches."""
    expected = sign(secret, headers_["webhook-id"], int(headers_["webhook-timestamp"]), body)
    return any(hmac.compare_digest(expected, s) for s in headers_["webhook-signature"].split())
