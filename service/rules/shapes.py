"""The shapes of what players and the GM send: every order body, and every GM act's, is
a `TypedDict` declared beside the handler that reads it, marked `closed`: no key may
be added. These types are the contract: the API edge validates request bodies with
them (strictly: no coercion, unknown keys refused) and publishes them in its OpenAPI
document, and `decide` refuses unknown keys again for orders that reach it another way
(the GM playing a side, a replayed export).

Only the keys are checked here; the handlers check the values and say which rule a
value breaks.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

T = TypeVar("T")

# The kinds of the orders players sign (`decide.ORDERS`, which a test holds to this).
OrderKind = Literal["initiative.reroll", "initiative.choose", "declare", "done", "production",
                    "roll", "mode", "release", "report", "reorg", "consent", "standing",
                    "steps", "combat.choose", "air.begin", "air.patrol", "air.fly",
                    "air.intercept", "air.choose"]

# Read by the API edge's validator (pydantic reads `__pydantic_config__` on a TypedDict):
# unknown keys are refused and no value is coerced (a signed "7" is not 7).
CLOSED: Mapping[str, object] = {"extra": "forbid", "strict": True}


def closed(cls: T) -> T:
    """Mark a body's TypedDict closed: a key it does not declare is refused (422)."""
    setattr(cls, "__pydantic_config__", dict(CLOSED))  # noqa: B010 (a TypedDict has no slot)
    return cls


def is_closed(typ: object) -> bool:
    return isinstance(getattr(typ, "__pydantic_config__", None), dict)


@functools.lru_cache(maxsize=256)
def _keys(typ: type) -> tuple[frozenset[str], dict[str, Any]]:
    hints = typing.get_type_hints(typ, include_extras=False)
    return frozenset(hints), hints


def _members(hint: Any) -> tuple[Any, ...]:
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return get_args(hint)
    return (hint,)


def unknown_keys(value: object, typ: Any, path: str) -> list[tuple[str, str]]:
    """Every key in `value` that its closed type (followed through lists, dicts and
    nested TypedDicts) does not declare, as `(JSON pointer, message)`. Values of the
    wrong shape are left to the handlers, which name the rule."""
    problems: list[tuple[str, str]] = []
    members = _members(typ)
    if isinstance(value, Mapping) and sum(map(is_closed, members)) > 1:
        # A union of closed shapes told apart by their `kind` (a `steps` order's items).
        members = tuple(m for m in members if is_closed(m) and value.get("kind") in
                        get_args(_keys(m)[1].get("kind", Literal[None]))) or members
    for hint in members:
        origin = get_origin(hint)
        if is_closed(hint) and isinstance(value, Mapping):
            allowed, hints = _keys(hint)
            for key in value:
                where = f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}"
                if key not in allowed:
                    names = ", ".join(sorted(allowed)) or "none"
                    problems.append((where, f"unknown key {key!r} (the keys are: {names})"))
                else:
                    problems.extend(unknown_keys(value[key], hints[key], where))
            return problems
        if origin is list and isinstance(value, list):
            (inner,) = get_args(hint)
            for i, item in enumerate(value):
                problems.extend(unknown_keys(item, inner, f"{path}/{i}"))
            return problems
        if origin in (dict, Mapping) and isinstance(value, Mapping):
            inner = get_args(hint)[1]
            for key, item in value.items():
                problems.extend(unknown_keys(item, inner, f"{path}/{key}"))
            return problems
    return problems


@dataclass(frozen=True, slots=True)
class Pattern:
    """A string's regular expression, in a body's type: `Annotated[str, Pattern(...)]`.
    The API edge's validator reads it through the hook below (no import of its library
    here); the handlers still say which rule a value breaks."""

    regex: str

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        schema = handler(source)
        schema["pattern"] = self.regex
        return schema
