"""The referee's own errors, beside the rules' (`service.rules.errors`): who the caller
is (401, 403), what does not exist (404), and the store's failures the API answers
(`Unavailable`: 503; `BadData`: 422). Each carries a stable code, like the rules'."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.store.failures import BadData, Unavailable
from service.store.games import GameNotFound
from service.store.uow import unavailable as unreachable


class RefereeError(Exception):
    status = 400

    def __init__(self, code: str, detail: str, *, errors: Sequence[tuple[str, str]] = (),
                 headers: Mapping[str, str] | None = None,
                 extra: Mapping[str, object] | None = None) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.errors = list(errors)
        self.headers = dict(headers or {})
        self.extra = dict(extra or {})


class Unauthorized(RefereeError):
    """No valid token or signature (401)."""

    status = 401


class Denied(RefereeError):
    """A valid caller acting where it may not (403)."""

    status = 403


class NotFound(RefereeError):
    """Nothing with that id (404)."""

    status = 404


class Conflict(RefereeError):
    """Not possible in the current state of things (409)."""

    status = 409


__all__ = ["BadData", "Conflict", "Denied", "GameNotFound", "NotFound", "RefereeError",
           "Unauthorized", "Unavailable", "unreachable"]
