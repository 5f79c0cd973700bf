"""Bodies a route reads itself (issue 33): a big body (a whole scenario, an export) is
parsed and checked where the work runs, in a worker process, not on the serving loop
before the route begins. Parsed as FastAPI parses a body parameter (whole numbers as
ints, the same errors under `body`), so the answers do not change."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from service.api.limits import SCANNED_HERE, body_problem
from service.api.numbers import loads

M = TypeVar("M", bound=BaseModel)
# Bodies up to this size are parsed on the loop: a built-in scenario's name, a small map.
INLINE_BYTES = SCANNED_HERE


def validated(model: type[M], body: bytes, max_depth: int) -> M:
    """`body` as `model`, or the RequestValidationError FastAPI would raise for it; a
    big body is first scanned as service/api/limits.py scans the others (too deep, a
    NUL)."""
    if len(body) > SCANNED_HERE:
        problem = body_problem(body, max_depth)
        if problem is not None:
            raise problem
    if not body:
        raise RequestValidationError([{"type": "missing", "loc": ("body",),
                                       "msg": "Field required", "input": None}])
    try:
        data: Any = loads(body)
    except json.JSONDecodeError as error:
        raise RequestValidationError([{
            "type": "json_invalid", "loc": ("body", error.pos), "msg": "JSON decode error",
            "input": {}, "ctx": {"error": error.msg}}]) from None
    except (ValueError, RecursionError):
        raise RequestValidationError([{
            "type": "json_invalid", "loc": ("body", 0), "msg": "JSON decode error",
            "input": {}, "ctx": {"error": "not JSON"}}]) from None
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise RequestValidationError([
            {**e, "loc": ("body", *e["loc"])} for e in error.errors(include_url=False)
        ]) from None
