"""Plain-data encoding of the rules' frozen dataclasses (for snapshots and views).

`to_data` turns dataclasses, tuples and mappings into JSON-ready values; `from_data`
rebuilds a dataclass from them using its type hints. Fields whose metadata says
`{"transient": True}` are neither written nor read.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from functools import cache
from typing import Any, TypeVar, cast

T = TypeVar("T")


def to_data(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_data(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if not f.metadata.get("transient")
        }
    if isinstance(value, Mapping):
        return {str(k): to_data(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [to_data(v) for v in value]
    return value


@cache
def _hints(cls: Any) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _convert(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(tp) if a is not type(None)]
        return _convert(members[0], value) if len(members) == 1 else value
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return from_data(tp, value)
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(args[0], v) for v in value)
        return tuple(_convert(a, v) for a, v in zip(args, value, strict=False))
    if origin in (dict, Mapping, typing.Mapping) or tp is dict:
        args = typing.get_args(tp)
        if len(args) == 2:
            key = args[0]
            return {
                (int(k) if key is int else k): _convert(args[1], v) for k, v in value.items()
            }
        return dict(value)
    return value


def from_data(cls: type[T], data: Mapping[str, object], **extra: Any) -> T:
    """Rebuild `cls` from plain data; `extra` supplies the transient fields."""
    hints = _hints(cast(Any, cls))
    kwargs: dict[str, Any] = dict(extra)
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.metadata.get("transient") or f.name not in data:
            continue
        kwargs[f.name] = _convert(hints[f.name], data[f.name])
    return cls(**kwargs)
