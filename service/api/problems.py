"""RFC 9457 problem details: every error the API returns, with a stable `type` per kind.

The `type` is `/problems/<code>` (relative to the service; GET it for a description).
Codes are the domain's (`order/stale`, `reorg/no_supply_path`); the HTTP status follows
the error's class: 401 authentication, 403 acting for another, 404 unknown, 409 conflict
with the current state, 422 a payload that could never be valid.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from service.referee.errors import BadData, GameNotFound, RefereeError, Unavailable, unreachable
from service.rules import Malformed, Refused, RulesError

MEDIA_TYPE = "application/problem+json"
log = logging.getLogger("service.api")

TITLES: dict[int, str] = {
    400: "Bad request",
    401: "Not authenticated",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict with the current state",
    413: "Payload too large",
    415: "Unsupported media type",
    422: "Invalid payload",
    429: "Too many requests",
    500: "Internal error",
    503: "Service unavailable",
}


class Problem(Exception):
    """An error answered as problem+json."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        errors: Sequence[Mapping[str, object]] | None = None,
        headers: dict[str, str] | None = None,
        **extra: object,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.errors = errors
        self.headers = headers
        self.extra = extra

    def body(self, instance: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": f"/problems/{self.code}",
            "title": TITLES.get(self.status, "Error"),
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        if instance:
            body["instance"] = instance
        if self.errors:
            body["errors"] = self.errors
        body.update(self.extra)
        return body


def printable(value: object) -> object:
    """A NUL character a request sent, written `\\u0000` where a problem echoes it (so
    the problem, like every answer, holds none)."""
    if isinstance(value, str):
        return value.replace("\x00", "\\u0000")
    if isinstance(value, dict):
        return {printable(k): printable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [printable(v) for v in value]
    return value


def problem_response(problem: Problem, request: Request | None = None) -> JSONResponse:
    return JSONResponse(
        printable(problem.body(request.url.path if request else None)),
        status_code=problem.status,
        media_type=MEDIA_TYPE,
        headers=problem.headers,
    )


def from_rules(error: RulesError) -> Problem:
    status = 422 if isinstance(error, Malformed) else 409 if isinstance(error, Refused) else 403
    errors = [{"path": path, "message": message,
               **({"unit": error.unit_labels[path]} if path in error.unit_labels else {})}
              for path, message in error.errors]
    extra: dict[str, Any] = dict(error.extra)
    if error.rule:
        extra["rule"] = error.rule
    return Problem(status, error.code, error.message, errors=errors or None, **extra)


def from_referee(error: RefereeError) -> Problem:
    errors = [{"path": path, "message": message} for path, message in error.errors]
    return Problem(error.status, error.code, error.detail, errors=errors or None,
                   headers=error.headers or None, **error.extra)


# The labels pydantic gives a union's members in an error's location ("str",
# "literal['dno-demo']", "dict[str,any]"): not part of the request.
_MEMBER = re.compile(r"^(str|int|float|bool|none|(literal|dict|list|function-\w+)\[.*\])$")


def _json_path(loc: tuple[str | int, ...], tags: frozenset[str]) -> str:
    """A validation error's JSON pointer into the request: the request part left out,
    a discriminated union's tag (`order/declare/body` is `order/body`) and the labels of
    a union's members."""
    parts: list[str] = []
    for i, p in enumerate(loc):
        if i == 0 and p in ("body", "query", "path", "header"):
            continue
        if isinstance(p, str) and p in tags and parts and parts[-1] in ("order", "dice"):
            continue
        if isinstance(p, str) and _MEMBER.match(p):
            continue
        parts.append(str(p).replace("~", "~0").replace("/", "~1"))
    return "/" + "/".join(parts) if parts else "/"


def _error(error: dict[str, Any], tags: frozenset[str]) -> dict[str, str]:
    """One validation error as `{path, message}`, in words a client author reads."""
    path = _json_path(tuple(error.get("loc", ())), tags)
    kind = error.get("type")
    message = str(error.get("msg", ""))
    if kind == "extra_forbidden":
        message = f"unknown key {path.rsplit('/', 1)[-1]!r}: this object does not take it"
    elif kind == "missing":
        message = "required"
    elif kind == "union_tag_invalid":
        ctx = error.get("ctx") or {}
        field = str(ctx.get("discriminator", "kind")).strip("'")
        path = path.rstrip("/") + f"/{field}"
        message = f"unknown {field} {ctx.get('tag')!r}; expected one of {ctx.get('expected_tags')}"
    elif kind == "union_tag_not_found":
        ctx = error.get("ctx") or {}
        field = str(ctx.get("discriminator", "kind")).strip("'")
        path = path.rstrip("/") + f"/{field}"
        message = "required"
    return {"path": path, "message": message}


def allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """Every method some route of the app takes at the request's path (a 405's `Allow`:
    the path's routes together, not the first that matched it)."""
    methods: set[str] = set()
    for route in app.router.routes:
        if route.matches(request.scope)[0] != Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)


# long: every failure's handler is registered here together, so none is missed.
def install(app: FastAPI, tags: frozenset[str] = frozenset()) -> None:
    """Register the handlers that turn every failure into problem+json; `tags` are the
    discriminated unions' tags, left out of error paths."""

    @app.exception_handler(Problem)
    async def _problem(request: Request, exc: Problem) -> JSONResponse:
        return problem_response(exc, request)

    @app.exception_handler(RulesError)
    async def _rules(request: Request, exc: RulesError) -> JSONResponse:
        return problem_response(from_rules(exc), request)

    @app.exception_handler(RefereeError)
    async def _referee(request: Request, exc: RefereeError) -> JSONResponse:
        return problem_response(from_referee(exc), request)

    @app.exception_handler(GameNotFound)
    async def _no_game(request: Request, exc: GameNotFound) -> JSONResponse:
        return problem_response(Problem(404, "game/not_found", f"no game {exc}"), request)

    @app.exception_handler(BadData)
    async def _bad_data(request: Request, exc: BadData) -> JSONResponse:
        return problem_response(Problem(
            422, "request/unstorable_value", "a value in the request cannot be stored (text "
            "may not contain NUL characters)"), request)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        raw = exc.errors()
        errors: list[dict[str, str]] = []
        for error in (_error(e, tags) for e in raw):  # a union's members: one error a path
            same = next((e for e in errors if e["path"] == error["path"]), None)
            if same is None:
                errors.append(error)
            elif error["message"] not in same["message"]:
                same["message"] += f"; or {error['message']}"
        where = {str(e.get("loc", ("",))[0]) for e in raw}
        code = "request/malformed_body" if "body" in where else "request/invalid_parameter"
        if any(e.get("type") == "json_invalid" for e in raw):
            code = "request/unparseable_body"
        elif any(e.get("type") == "union_tag_invalid" and e.get("loc", ())[-1:] == ("order",)
                 for e in raw):
            code = "order/unknown_kind"
        elif any(e.get("type") == "extra_forbidden" for e in raw):
            code = "request/unknown_key"
        detail = "; ".join(f"{e['path']}: {e['message']}" for e in errors[:5])
        return problem_response(Problem(422, code, detail, errors=errors), request)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:  # FastAPI could not parse the body at all
            return problem_response(Problem(422, "request/unparseable_body",
                                            "the body is not valid JSON (or nests too deep)"),
                                    request)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        headers = dict(exc.headers) if exc.headers else {}
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(allowed_methods(app, request))
        return problem_response(
            Problem(exc.status_code, code, str(exc.detail), headers=headers or None), request
        )

    # Registered per type (not under `Exception`): Starlette's ServerErrorMiddleware
    # re-raises what it handles, which makes the server drop the keep-alive connection.
    @app.exception_handler(Unavailable)
    async def _unavailable(request: Request, exc: Exception) -> JSONResponse:
        return problem_response(
            Problem(503, "service/database_unavailable",
                    "the database is not reachable; retry shortly", headers={"Retry-After": "2"}),
            request,
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        if unreachable(exc):  # a path outside a unit of work: still "retry shortly"
            log.warning("database not reachable on %s %s: %s", request.method,
                        request.url.path, type(exc).__name__)
            return await _unavailable(request, exc)
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return problem_response(
            Problem(500, "internal", "an unexpected error happened; it has been logged"), request
        )
