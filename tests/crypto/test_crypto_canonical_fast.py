"""The fast path of canonical JSON writes exactly the reference implementation's bytes
(RFC 8785), on generated JSON of every kind, and hands what it cannot write to it."""

from __future__ import annotations

from typing import Any

import rfc8785
from hypothesis import given
from hypothesis import strategies as st

from service.crypto.canonical import canonical_bytes

_leaves = st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text()
_keys = st.text() | st.text(alphabet=st.characters(max_codepoint=127))
json_values = st.recursive(
    _leaves, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_keys, inner,
                                                                          max_size=5),
    max_leaves=30)


@given(json_values)
def test_the_fast_path_writes_the_reference_bytes(value: Any) -> None:
    assert canonical_bytes(value) == rfc8785.dumps(value)


@given(st.dictionaries(st.text(), st.floats(allow_nan=False, allow_infinity=False)
                       | st.integers(2**53, 2**60), max_size=4))
def test_what_the_fast_path_leaves_the_reference_writes(value: Any) -> None:
    try:
        expected: bytes | None = rfc8785.dumps(value)
    except Exception:  # noqa: BLE001 - then ours refuses too
        expected = None
    if expected is None:
        try:
            canonical_bytes(value)
        except ValueError:
            return
        raise AssertionError("accepted what RFC 8785 has no form for")
    assert canonical_bytes(value) == expected


def test_keys_outside_the_basic_plane_sort_by_utf16_as_rfc8785_says() -> None:
    value = {"\U0001f600": 1, "\uffff": 2, "a": 3}
    assert canonical_bytes(value) == rfc8785.dumps(value)
    assert canonical_bytes(value).index(b"\xf0\x9f\x98\x80") < \
        canonical_bytes(value).index(b"\xef\xbf\xbf")
