"""The event hash chain (service.crypto.chain), docs/dice.md."""

from __future__ import annotations

import copy
import hashlib
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from service.crypto.canonical import canonical_bytes
from service.crypto.chain import event_hash, genesis_hash, verify_chain

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "vectors" / "chain.json").read_text("utf-8")
)
SETTINGS = settings(database=None, deadline=None)
GAME = VECTORS["game_id"]


def chained(game_id: str, bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    prev = genesis_hash(game_id)
    events = []
    for body in bodies:
        prev = event_hash(prev, body)
        events.append({**body, "hash": prev})
    return events


def vector_events() -> list[dict[str, Any]]:
    return copy.deepcopy(VECTORS["events"])


def test_chain_vector_recomputes_from_the_formula() -> None:
    prev = hashlib.sha256(GAME.encode("utf-8")).hexdigest()
    assert VECTORS["genesis_hash"] == prev == genesis_hash(GAME)
    for event in VECTORS["events"]:
        body = {key: value for key, value in event.items() if key != "hash"}
        expected = hashlib.sha256(prev.encode("utf-8") + canonical_bytes(body)).hexdigest()
        assert event["hash"] == expected == event_hash(prev, event)
        prev = expected
    assert verify_chain(GAME, VECTORS["events"]) is None


def test_event_hash_ignores_the_hash_key() -> None:
    body = {"seq": 1, "kind": "X"}
    assert event_hash("ab", body) == event_hash("ab", {**body, "hash": "anything"})


def test_empty_log_verifies() -> None:
    assert verify_chain(GAME, []) is None


def test_a_log_of_another_game_fails_at_the_first_event() -> None:
    assert verify_chain("another-game", vector_events()) == 0


def test_dropped_event_is_found() -> None:
    events = vector_events()
    del events[1]
    assert verify_chain(GAME, events) == 1


def test_swapped_events_are_found() -> None:
    events = vector_events()
    events[1], events[2] = events[2], events[1]
    assert verify_chain(GAME, events) == 1


def test_recomputed_hash_after_an_edit_breaks_the_next_event() -> None:
    events = vector_events()
    events[1]["text"] = "edited"
    events[1]["hash"] = event_hash(events[0]["hash"], events[1])
    assert verify_chain(GAME, events) == 2


@pytest.mark.parametrize(
    ("seqs", "bad"),
    [
        ([0, 1, 2], 0),
        ([1, 3, 4], 1),
        ([1, 2, 2], 2),
        ([True, 2, 3], 0),
        ([1.0, 2, 3], 0),
        (["1", 2, 3], 0),
        ([None, 2, 3], 0),
    ],
)
def test_seq_must_count_up_from_one(seqs: list[Any], bad: int) -> None:
    """Even a correctly chained event is bad if its seq is not the next integer."""
    bodies = [{"seq": seq, "kind": "X", "data": {}} for seq in seqs]
    assert verify_chain(GAME, chained(GAME, bodies)) == bad


@pytest.mark.parametrize("hash_value", [None, 7, "", "A" * 64])
def test_missing_or_malformed_hash_is_found(hash_value: Any) -> None:
    events = vector_events()
    if hash_value is None:
        del events[2]["hash"]
    else:
        events[2]["hash"] = hash_value
    assert verify_chain(GAME, events) == 2


def test_event_without_canonical_form_is_reported_not_raised() -> None:
    events = vector_events()
    events[1]["data"] = {"x": math.nan}
    assert verify_chain(GAME, events) == 1


json_leaf = st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=8)
json_data = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
bodies = st.lists(
    st.fixed_dictionaries(
        {
            "turn": st.integers(0, 20),
            "impulse": st.integers(0, 30),
            "step": st.sampled_from(["join", "declare", "action", "reorganization"]),
            "kind": st.sampled_from(["GameCreated", "OrderAccepted", "DiceRolled"]),
            "actor": st.text(max_size=8),
            "text": st.text(max_size=20),
            "data": json_data,
            "rules_version": st.just("1"),
        }
    ),
    min_size=1,
    max_size=6,
)


@SETTINGS
@given(st.text(min_size=1, max_size=12), bodies, st.data())
def test_verify_chain_finds_a_changed_field_in_any_event(
    game_id: str, raw: list[dict[str, Any]], data: st.DataObject
) -> None:
    events = chained(game_id, [{"seq": n, **body} for n, body in enumerate(raw, start=1)])
    assert verify_chain(game_id, events) is None
    index = data.draw(st.integers(0, len(events) - 1), label="event")
    key = data.draw(st.sampled_from(sorted(events[index])), label="field")
    new_value = data.draw(json_data, label="new value")
    assume(canonical_bytes(new_value) != canonical_bytes(events[index][key]))
    events[index][key] = new_value
    assert verify_chain(game_id, events) == index


@SETTINGS
@given(st.text(min_size=1, max_size=12), bodies, st.data())
def test_verify_chain_finds_an_added_or_removed_field(
    game_id: str, raw: list[dict[str, Any]], data: st.DataObject
) -> None:
    events = chained(game_id, [{"seq": n, **body} for n, body in enumerate(raw, start=1)])
    index = data.draw(st.integers(0, len(events) - 1), label="event")
    if data.draw(st.booleans(), label="add"):
        events[index]["extra"] = data.draw(json_data, label="extra")
    else:
        removable = sorted(set(events[index]) - {"seq", "hash"})
        del events[index][data.draw(st.sampled_from(removable), label="removed")]
    assert verify_chain(game_id, events) == index
