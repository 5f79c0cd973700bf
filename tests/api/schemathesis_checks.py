"""The project's own schemathesis checks (tests/api/schemathesis.toml loads them as its
`hooks`), beside schemathesis's own:

- `documented_422`: a request the schema allows may still be a 422 when it names what only
  the game can judge (an unknown unit, hex or player; a scenario that does not validate;
  an export that does not verify; a host that is not public; docs/api.md, "Status codes
  and problems"), or passes a limit (nesting, size). Such a 422 names the offending item
  (`errors[].path`). But a 422 of the schema's own kinds (a malformed body, an unknown
  key, a bad parameter, an unknown order kind) for a request the schema allows is the
  document and the validator disagreeing: a failure.
- `problem_document`: every error is an RFC 9457 problem whose `type` is
  `/problems/<code>`, whose `status` is the answer's, and which carries no member the
  `Problem` schema does not declare.
"""

from __future__ import annotations

import json
from typing import Any

import schemathesis

# The codes of the request's shape: for data the schema allows, never right.
SCHEMA_CODES = frozenset({"request/malformed_body", "request/unknown_key",
                          "request/invalid_parameter", "request/unparseable_body",
                          "order/unknown_kind"})
# The limits on hostile input a schema cannot state for an open object
# (docs/operating.md, "Limits and hostile input").
LIMIT_CODES = frozenset({"request/too_deep", "request/too_large"})
# No text may hold a NUL character (docs/api.md, "Numbers and text"): the schema says so
# with a pattern on every string it types, but cannot inside an open object (a
# scenario, an export to import), where the refusal names the string.
NUL = "text may not contain NUL (U+0000) characters"


def _problem(response: Any) -> dict[str, Any] | None:
    if not response.headers.get("content-type", [""])[0].startswith("application/problem+json"):
        return None
    body = json.loads(response.content)
    return body if isinstance(body, dict) else None


@schemathesis.check
def documented_422(ctx: Any, response: Any, case: Any) -> bool | None:
    """A schema-valid request's 422 names the item at fault, and is not one of the
    schema's own."""
    meta = case.meta
    if response.status_code != 422 or meta is None or not meta.generation.mode.is_positive:
        return None
    problem = _problem(response) or {}
    code = problem.get("code")
    if problem.get("errors") and all(e.get("message") == NUL for e in problem["errors"]):
        return True
    if code in SCHEMA_CODES:
        raise AssertionError(f"the schema allows this request, the server refuses its shape: "
                             f"{code}: {problem.get('detail')}")
    if code not in LIMIT_CODES and not any(e.get("path") for e in problem.get("errors") or []):
        raise AssertionError(f"a 422 ({code}) that names no item: {problem.get('detail')}")
    return True


@schemathesis.check
def problem_document(ctx: Any, response: Any, case: Any) -> bool | None:
    """An error answer is a problem: its type is its code's, its status the answer's, and
    every member it carries is one the Problem schema declares."""
    if response.status_code < 400:
        return None
    problem = _problem(response)
    if problem is None:
        raise AssertionError(f"a {response.status_code} that is not application/problem+json")
    if problem.get("type") != f"/problems/{problem.get('code')}":
        raise AssertionError(f"type {problem.get('type')!r} is not /problems/<code> "
                             f"({problem.get('code')!r})")
    if problem.get("status") != response.status_code:
        raise AssertionError(f"status {problem.get('status')} in a {response.status_code}")
    declared = case.operation.schema.raw_schema["components"]["schemas"]["Problem"]
    undeclared = sorted(set(problem) - set(declared["properties"]))
    if undeclared:
        raise AssertionError(f"members the Problem schema does not declare: {undeclared}")
    return True
