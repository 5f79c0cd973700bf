"""The OpenAPI document tells the truth (docs/api.md): every route names the answer it
gives, every status code it can answer with and the headers each answer carries,
errors as `application/problem+json` with the `Problem` schema; routes that need a
token say so (`bearer`).

`answers(...)` builds a route's `responses`; `document(app)` finishes the document
(the Problem schema, the headers, the bearer scheme, the version from the changelog).
"""

from __future__ import annotations

import copy
import inspect
import typing
from typing import Annotated, Any, Literal, Union, cast

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, Field, TypeAdapter
from typing_extensions import TypedDict

from service.answers import Notification, Problem
from service.api.problems import MEDIA_TYPE, TITLES
from service.rules import EVENT_DATA, EventRecord

PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
PROBLEM_EXAMPLE = {
    "type": "/problems/reorg/no_supply_path", "title": "Conflict with the current state",
    "status": 409, "detail": "item 0 (primary, 11.18.5): no basic path from 1227",
    "code": "reorg/no_supply_path", "instance": "/v1/games/7f3a/orders",
    "errors": [{"path": "/order/body/items/0/source", "message": "no basic path"}],
    "rule": "11.18.5"}
BEARER: dict[str, Any] = {"security": [{"bearer": []}]}
# Routes the operator key guards when the server has one (docs/security.md).
OPTIONAL_BEARER: dict[str, Any] = {"security": [{}, {"bearer": []}]}
# Schemas a route's answer names beside its model (`schema_of`), added to the document.
_EXTRA: dict[str, Any] = {}

# What any route under /v1 may answer besides its own: a body over the size limit or
# nested too deep (every route with a body), too many requests, the database down.
LIMITS = (429, 503)
BODY = (413, 422)
# A member's read of a game: a bad token, another game's token (or a spectator's where
# it may not read), an unknown game, a bad parameter.
READ = (401, 403, 404, 422, *LIMITS)
# A change to a game: also acting for what one does not hold, and a state conflict.
CHANGE = (401, 403, 404, 409, *BODY, *LIMITS)


def _header(description: str, schema: dict[str, Any], required: bool = False
            ) -> dict[str, Any]:
    return {"description": description, "required": required, "schema": schema}


_SECONDS = {"type": "string", "pattern": "^[0-9]+$"}
# The headers answers carry (docs/api.md, "Headers"), as components the answers name.
HEADERS: dict[str, dict[str, Any]] = {
    "RateLimit-Policy": _header(
        "the rate limit policy (IETF draft-ietf-httpapi-ratelimit-headers): "
        "`\"default\";q=50;w=1;wif-burst=200` is 50 requests per 1-second window, "
        "sustained, in bursts of up to 200; sent when the server limits rates",
        {"type": "string", "pattern": '^"default";q=[0-9]+;w=[0-9]+;wif-burst=[0-9]+$'}),
    "RateLimit": _header(
        "where the caller stands: `\"default\";r=37;t=4` is 37 requests it may send now, "
        "and 4 seconds until its bucket is full again (on a 429: until it may send again)",
        {"type": "string", "pattern": '^"default";r=[0-9]+;t=[0-9]+$'}),
    "Retry-After": _header("seconds to wait before trying again", _SECONDS, required=True),
    "ETag": _header("the view's version: send it back as If-None-Match",
                    {"type": "string"}, required=True),
    "Idempotent-Replayed": _header(
        "the same order (seq and bytes) was taken before: this is its first answer",
        {"type": "string", "enum": ["true"]}),
    "WWW-Authenticate": _header("`Bearer`: a token is wanted", {"type": "string"}),
}
# The headers of one operation's answers besides those every answer of its kind has.
ROUTE_HEADERS: dict[str, dict[str, tuple[str, ...]]] = {
    "game_state": {"200": ("ETag",), "304": ("ETag",)},
    "post_order": {"200": ("Idempotent-Replayed",)},
}


def _headers_of(path: str, operation: str, status: str) -> list[str]:
    """The headers an answer of `status` from `operation` at `path` may carry."""
    names = ["RateLimit-Policy", "RateLimit"] if path.startswith("/v1/") else []
    names += {"429": ["Retry-After"], "503": ["Retry-After"],
              "401": ["WWW-Authenticate"]}.get(status, [])
    return names + list(ROUTE_HEADERS.get(operation, {}).get(status, ()))


def link(operation: str, **parameters: str) -> dict[str, Any]:
    """An OpenAPI link: what to call next with values of this answer or request."""
    return {"operationId": operation, "parameters": parameters}


GAME = "$request.path.game_id"


def answers(ok: int, model: Any, *errors: int, description: str = "",
            media_type: str = "application/json", links: dict[str, Any] | None = None
            ) -> dict[int | str, dict[str, Any]]:
    """A route's `responses`: its answer `model` under `ok` (with `links` to the calls
    it enables), and a problem document under each status in `errors`."""
    out: dict[int | str, dict[str, Any]] = {}
    if model is None:
        out[ok] = {"description": description or "done"}
    elif media_type == "application/json":
        out[ok] = {"model": model, "description": description or "the answer"}
    else:
        out[ok] = {"description": description,
                   "content": {media_type: {"schema": model}}}
    if links:
        out[ok]["links"] = links
    for status in sorted(set(errors)):
        out[status] = {"description": TITLES.get(status, "error"),
                       "content": {MEDIA_TYPE: {"schema": PROBLEM_REF}}}
    return out


def body_of(model: type[BaseModel]) -> dict[str, Any]:
    """The `requestBody` of a route that reads its body itself (service/api/bodies.py),
    as FastAPI writes one for a body parameter of type `model`."""
    _BODIES[model.__name__] = model
    return {"requestBody": {"required": True, "content": {"application/json": {
        "schema": {"$ref": f"#/components/schemas/{model.__name__}"}}}}}


_BODIES: dict[str, type[BaseModel]] = {}


def _bodies_schemas() -> dict[str, Any]:
    """The schemas of `body_of`'s models as FastAPI writes them (from routes that take
    them as body parameters, in an app of their own)."""
    shadow = FastAPI()
    for name, model in _BODIES.items():
        async def endpoint(body: Any) -> None:
            """A body parameter of the model's type, for its schema only."""

        endpoint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter("body", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                               annotation=model)])
        shadow.add_api_route(f"/{name}", endpoint, methods=["POST"])
    spec = get_openapi(title="bodies", version="0", routes=shadow.routes)
    found: dict[str, Any] = spec.get("components", {}).get("schemas", {})
    return found


def schema_of(typ: Any) -> dict[str, Any]:
    """The JSON schema of `typ` with references into the document's components (for an
    answer that is one of several types)."""
    schema = TypeAdapter(typ).json_schema(ref_template="#/components/schemas/{model}")
    _EXTRA.update(schema.pop("$defs", {}))
    return schema


# No text may hold a NUL character (PostgreSQL cannot store one): every string and every
# object key says so in the document, and a request with one is a 422 naming where.
NO_NUL = "^[^\\u0000]*$"


def _no_nul(node: Any) -> None:
    if isinstance(node, list):
        for item in node:
            _no_nul(item)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") == "string" and not {"pattern", "enum", "const"} & node.keys():
        node["pattern"] = NO_NUL
    if node.get("type") == "object" and node.get("additionalProperties") not in (None, False):
        node.setdefault("propertyNames", {"pattern": NO_NUL})
    for key, value in node.items():
        if key not in ("examples", "example", "default"):
            _no_nul(value)


def _not_null(parameter: dict[str, Any]) -> None:
    """A parameter in a path, query or header is present or absent: never `null`."""
    schema = parameter.get("schema", {})
    options = [s for s in schema.get("anyOf", []) if s.get("type") != "null"]
    if "anyOf" in schema and len(options) == 1:
        rest = {k: v for k, v in schema.items() if k != "anyOf"}
        parameter["schema"] = {**options[0], **rest}


def _event_name(kind: str) -> str:
    return "".join(p.capitalize() for p in kind.replace(".", "_").split("_")) + "Event"


def event_union() -> dict[str, Any]:
    """The JSON schema of an event record as a union discriminated by `kind`: one variant
    per kind (`PowerDeclaredEvent`), each with its kind's `data` (the rules' registry,
    service/rules/event_data.py), and their definitions (`$defs`)."""
    fields = typing.get_type_hints(EventRecord, include_extras=True)
    base = {k: v for k, v in fields.items() if k not in ("kind", "data")}
    variants = [TypedDict(_event_name(kind), {  # type: ignore[operator]
        **base, "kind": cast(Any, Literal)[kind], "data": data})
        for kind, data in EVENT_DATA.items()]
    union: Any = Annotated[Union.__getitem__(tuple(variants)), Field(discriminator="kind")]
    schema: dict[str, Any] = TypeAdapter(union).json_schema(
        ref_template="#/components/schemas/{model}")
    return schema


def _add(schemas: dict[str, Any], name: str, schema: dict[str, Any]) -> None:
    """A component, unless the document has one of that name already (then the same)."""
    if schemas.setdefault(name, schema) != schema:
        raise ValueError(f"two schemas named {name}")


# What every notification's request carries (Standard Webhooks; docs/api.md, "Signatures").
_SIGNED = [
    {"name": "webhook-id", "in": "header", "required": True, "schema": {"type": "string"},
     "description": "the message's id: the same for every attempt and resend"},
    {"name": "webhook-timestamp", "in": "header", "required": True,
     "schema": {"type": "string", "pattern": "^[0-9]+$"},
     "description": "the attempt's time, Unix seconds"},
    {"name": "webhook-signature", "in": "header", "required": True,
     "schema": {"type": "string", "pattern": "^v1,"},
     "description": "v1,<base64 HMAC-SHA256 of {webhook-id}.{webhook-timestamp}.{body}>, "
                    "keyed by the secret"},
]


def webhooks(schemas: dict[str, Any]) -> dict[str, Any]:
    """The `webhooks` section: one POST per notification `type` a webhook (or a channel)
    is sent, its body's schema added to `schemas`."""
    union = TypeAdapter(Notification).json_schema(ref_template="#/components/schemas/{model}")
    for name, schema in union.pop("$defs").items():
        _add(schemas, name, schema)
    out: dict[str, Any] = {}
    for ref in union["anyOf"]:
        name = ref["$ref"].rsplit("/", 1)[-1]
        kind = schemas[name]["properties"]["type"]["const"]
        out[kind] = {"post": {
            "operationId": kind.replace(".", "_"),
            "summary": schemas[name]["description"].split("\n")[0],
            "parameters": copy.deepcopy(_SIGNED),
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": f"#/components/schemas/{name}"}}}},
            "responses": {"200": {"description": "any 2xx delivers the message; anything "
                                                 "else is an attempt failed, tried again "
                                                 "(docs/api.md, \"Delivery\")"}},
        }}
    return out


def document(app: FastAPI, version: str) -> dict[str, Any]:
    """The OpenAPI document, made once: the routes' own parts, the Problem schema and
    the bearer scheme."""
    if app.openapi_schema:
        return app.openapi_schema
    spec = get_openapi(title=app.title, version=version, description=app.description,
                       routes=app.routes)
    components = spec.setdefault("components", {})
    made = {**_bodies_schemas(), **components.get("schemas", {})}
    schemas = components["schemas"] = dict(sorted(made.items()))  # in FastAPI's order
    problem = TypeAdapter(Problem).json_schema(ref_template="#/components/schemas/{model}")
    for name, schema in problem.pop("$defs", {}).items():
        schemas.setdefault(name, schema)
    problem["properties"]["status"].update(minimum=400, maximum=599)
    problem["examples"] = [PROBLEM_EXAMPLE]
    schemas["Problem"] = problem
    for name, schema in _EXTRA.items():
        schemas.setdefault(name, schema)
    events = event_union()
    for name, schema in events.pop("$defs").items():
        _add(schemas, name, schema)
    spec["webhooks"] = webhooks(schemas)
    schemas["EventRecord"] = {**events, "description": (
        "An event as it is stored, hashed and shown (docs/api.md, \"The log\"): its `data` "
        "is its `kind`'s; `hash` chains it to the one before; `rolled_back` marks one a later "
        "rollback abandoned and `sealed` one whose content is withheld until its window "
        "closes (neither is hashed).")}
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    components["headers"] = HEADERS
    components["securitySchemes"] = {"bearer": {
        "type": "http", "scheme": "bearer",
        "description": "a player's or the GM's token (the operator key for creating and "
                       "importing games, when the server has one)"}}
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                _not_null(parameter)
            for status, response in operation["responses"].items():
                names = _headers_of(path, operation["operationId"], status)
                if names:
                    response["headers"] = {name: {"$ref": f"#/components/headers/{name}"}
                                           for name in names}
            if "requestBody" in operation:  # where FastAPI puts a body parameter's
                last = ("requestBody", "responses", "security")
                order = [k for k in operation if k not in last] + [
                    k for k in last if k in operation]
                operations[method] = {k: operation[k] for k in order}
    _no_nul(spec["paths"])
    _no_nul(spec["webhooks"])
    _no_nul(schemas)
    app.openapi_schema = spec
    return spec
