"""The bodies' types are the contract (service/rules/shapes.py): every order kind and GM
act has one, each is closed all the way down, and their vocabularies are the handlers'
own, so the OpenAPI document and the rules cannot drift apart."""

from __future__ import annotations

import typing
from typing import Any, get_args, get_origin

import pytest
from typing_extensions import is_typeddict

from service.rules import ACT_BODIES, GM_ACTS, ORDER_BODIES, ORDERS
from service.rules.decide import COMMANDS
from service.rules.modes import bodies as modes_bodies
from service.rules.modes.missions import RESULTS
from service.rules.modes.report import WORKS
from service.rules.modes.results import _RESULT_KEYS, BY
from service.rules.modes.vocabulary import MODES, ORIENTATIONS, TRANSPORTS
from service.rules.reorg.bodies import Method, ReorgItem
from service.rules.reorg.methods import FIELD_KINDS, FIELDS, METHODS
from service.rules.shapes import OrderKind, is_closed, unknown_keys
from service.rules.state import ACTIONS, CHIT_KINDS
from service.rules.turn.bodies import DeclareBody


def test_every_order_kind_and_gm_act_has_a_body_type() -> None:
    assert set(ORDER_BODIES) == set(ORDERS) == set(get_args(OrderKind))
    assert set(ACT_BODIES) == set(GM_ACTS)
    assert set(GM_ACTS) <= set(COMMANDS) | {"admin.replace_key", "admin.reopen_seat"}


def _typed_dicts(typ: Any, seen: set[Any]) -> None:
    if is_typeddict(typ):
        if typ in seen:
            return
        seen.add(typ)
        for hint in typing.get_type_hints(typ).values():
            _typed_dicts(hint, seen)
        return
    for arg in get_args(typ):
        _typed_dicts(arg, seen)


@pytest.mark.parametrize("kind", sorted({**ORDER_BODIES, **ACT_BODIES}))
def test_every_body_is_closed_all_the_way_down(kind: str) -> None:
    found: set[Any] = set()
    _typed_dicts({**ORDER_BODIES, **ACT_BODIES}[kind], found)
    assert found
    assert [t.__name__ for t in found if not is_closed(t)] == []


def test_the_vocabularies_are_the_handlers_own() -> None:
    """OCS 5.3 modes, OCS 5.5a transports, 11.18 methods: the Literal a client sees is
    the tuple the handler checks."""
    assert get_args(modes_bodies.Mode) == MODES
    assert get_args(modes_bodies.Orientation) == ORIENTATIONS
    assert get_args(modes_bodies.Transport) == (*TRANSPORTS, "amphibious")
    assert get_args(modes_bodies.Work) == WORKS
    assert get_args(modes_bodies.CombatBy) == BY
    assert get_args(modes_bodies.ResultKind) == tuple(_RESULT_KEYS)
    assert get_args(modes_bodies.MissionResult) == RESULTS
    assert get_args(Method) == METHODS
    assert ACTIONS == ("pass", "land", "air", "naval", "combined")
    assert "reorganize_hqs" in CHIT_KINDS


def test_union_shaped_items_declare_every_key_their_kinds_take() -> None:
    """A reorg item (per method) and a combat result (per kind) are one closed type with
    the keys of every variant; each handler checks which keys its variant takes."""
    item_keys = set(typing.get_type_hints(ReorgItem))
    for method, (required, optional) in FIELDS.items():
        assert {"method", *required, *optional} <= item_keys, method
    assert set(FIELD_KINDS) <= item_keys
    result_keys = set(typing.get_type_hints(modes_bodies.CombatResult))
    assert set().union(*_RESULT_KEYS.values()) == result_keys


def test_unknown_keys_are_found_at_any_depth() -> None:
    body = {"actions": {"germany": "land"}, "chit": {},
            "chits": {"germany": {"kind": "land", "hq": "h", "extra": 1}}}
    assert unknown_keys(body, DeclareBody, "/body") == [
        ("/body/chit", "unknown key 'chit' (the keys are: actions, chits)"),
        ("/body/chits/germany/extra", "unknown key 'extra' (the keys are: hq, kind)"),
    ]
    # Values of the wrong shape are the handler's to name.
    assert unknown_keys({"actions": "all"}, DeclareBody, "/body") == []


def test_the_body_tables_hold_types_not_strings() -> None:
    for typ in {**ORDER_BODIES, **ACT_BODIES}.values():
        assert is_typeddict(typ)
        assert get_origin(typ) is None
