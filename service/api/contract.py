"""The OpenAPI document tells the truth (docs/api.md): every route names the answer it
gives and every status code it can answer with, errors as `application/problem+json`
with the `Problem` schema; routes that need a token say so (`bearer`).

`answers(...)` builds a route's `responses`; `document(app)` finishes the document
(the Problem schema, the bearer scheme, the version from the changelog).
"""

from __future__ import annotations

import inspect
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from service.api.problems import MEDIA_TYPE, TITLES

PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
BEARER: dict[str, Any] = {"security": [{"bearer": []}]}
# Routes the operator key guards when the server has one (docs/security.md).
OPTIONAL_BEARER: dict[str, Any] = {"security": [{}, {"bearer": []}]}
# Schemas a route's answer names beside its model (`schema_of`), added to the document.
_EXTRA: dict[str, Any] = {}

# What any route under /v1 may answer besides its own: a body over the size limit or
# nested too deep (every route with a body), too many requests, the database down.
LIMITS = (429, 503)
BODY = (413, 422)
# A member's read of a game: a bad token, an unknown game, a bad parameter.
READ = (401, 404, 422, *LIMITS)
# A change to a game: also acting for what one does not hold, and a state conflict.
CHANGE = (401, 403, 404, 409, *BODY, *LIMITS)


class ProblemUnit(BaseModel):
    """The unit an offending item is about: its id and its name."""

    id: str
    name: str


class ProblemError(BaseModel):
    """One offending item: a JSON pointer into the request, what is wrong there, and
    the unit it is about, if any."""

    path: str
    message: str
    unit: ProblemUnit | None = None


class Problem(BaseModel):
    """An RFC 9457 problem: `type` is `/problems/<code>`; `rule` names the rule broken
    (a rule number such as 11.18.4 or OCS 5.7c, or a document of docs/); refusals of
    orders carry more (`current`, `awaiting`, `choices`, `receipt`, ...)."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [{
        "type": "/problems/reorg/no_supply_path", "title": "Conflict with the current state",
        "status": 409, "detail": "item 0 (primary, 11.18.5): no basic path from 1227",
        "code": "reorg/no_supply_path", "instance": "/v1/games/7f3a/orders",
        "errors": [{"path": "/order/body/items/0/source", "message": "no basic path"}],
        "rule": "11.18.5"}]})
    type: str
    title: str
    status: int = Field(ge=400, le=599)
    detail: str
    code: str
    instance: str | None = None
    errors: list[ProblemError] | None = None
    rule: str | None = None


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
    problem = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    for name, schema in problem.pop("$defs", {}).items():
        schemas[name] = schema
    schemas["Problem"] = problem
    for name, schema in _EXTRA.items():
        schemas.setdefault(name, schema)
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    components["securitySchemes"] = {"bearer": {
        "type": "http", "scheme": "bearer",
        "description": "a player's or the GM's token (the operator key for creating and "
                       "importing games, when the server has one)"}}
    for operations in spec["paths"].values():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                _not_null(parameter)
            if "requestBody" in operation:  # where FastAPI puts a body parameter's
                last = ("requestBody", "responses", "security")
                order = [k for k in operation if k not in last] + [
                    k for k in last if k in operation]
                operations[method] = {k: operation[k] for k in order}
    _no_nul(spec["paths"])
    _no_nul(schemas)
    app.openapi_schema = spec
    return spec
