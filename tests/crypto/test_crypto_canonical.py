"""RFC 8785 canonical JSON and SHA-256 hex (service.crypto.canonical)."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.crypto.canonical import canonical_bytes, sha256_hex

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "vectors" / "canonical.json").read_text("utf-8")
)
SETTINGS = settings(database=None, deadline=None)

SAFE_INT = 2**53 - 1
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-SAFE_INT, SAFE_INT)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda case: case["name"])
def test_canonical_vector(case: dict[str, str]) -> None:
    assert canonical_bytes(json.loads(case["input_json"])) == case["expected"].encode("utf-8")


@pytest.mark.parametrize("case", VECTORS["invalid"], ids=lambda case: case["name"])
def test_value_without_canonical_form_is_refused(case: dict[str, str]) -> None:
    with pytest.raises(ValueError):
        canonical_bytes(json.loads(case["input_json"]))


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, {1: "x"}, {"a": b"x"}, {1, 2}])
def test_non_json_values_are_refused(value: object) -> None:
    with pytest.raises(ValueError):
        canonical_bytes(value)


def test_any_mapping_and_tuple_canonicalize_like_dict_and_list() -> None:
    value = MappingProxyType({"b": (1, 2), "a": MappingProxyType({"y": None, "x": True})})
    assert canonical_bytes(value) == b'{"a":{"x":true,"y":null},"b":[1,2]}'


def test_sha256_hex_is_lowercase_hex_of_known_digests() -> None:
    assert sha256_hex(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert sha256_hex(b"abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )


@SETTINGS
@given(json_values)
def test_canonical_bytes_parse_back_and_are_a_fixed_point(value: Any) -> None:
    text = canonical_bytes(value)
    # Numbers are read back as floats: integral floats of 2**53 and more print as plain
    # digits, which json would read as an int that is not exact or not canonicalizable.
    parsed = json.loads(text, parse_int=float)
    assert parsed == value
    assert canonical_bytes(parsed) == text


@SETTINGS
@given(st.dictionaries(st.text(), json_scalars, max_size=8), st.randoms())
def test_key_insertion_order_does_not_matter(value: dict[str, Any], rnd: Any) -> None:
    items = list(value.items())
    rnd.shuffle(items)
    assert canonical_bytes(dict(items)) == canonical_bytes(value)


@SETTINGS
@given(json_values)
def test_sha256_hex_matches_hashlib(value: Any) -> None:
    data = canonical_bytes(value)
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
