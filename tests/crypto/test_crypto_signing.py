"""Ed25519 order signatures and base64url (service.crypto.signing), docs/api.md."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from hypothesis import given, settings
from hypothesis import strategies as st

from service.crypto.canonical import canonical_bytes
from service.crypto.signing import (
    InvalidKey,
    b64url_decode,
    b64url_encode,
    new_private_key,
    order_signing_bytes,
    parse_public_key,
    public_key_text,
    sign,
    verify,
)

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "vectors" / "signatures.json").read_text("utf-8")
)
SETTINGS = settings(database=None, deadline=None)

keys = st.binary(min_size=32, max_size=32).map(Ed25519PrivateKey.from_private_bytes)


def flip(data: bytes, index: int, mask: int) -> bytes:
    """`data` with byte `index` XORed by a non-zero `mask`."""
    return data[:index] + bytes([data[index] ^ mask]) + data[index + 1 :]


@pytest.mark.parametrize("case", VECTORS["rfc8032"], ids=lambda case: case["name"])
def test_rfc8032_vector(case: dict[str, str]) -> None:
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(case["private_seed_hex"]))
    message = bytes.fromhex(case["message_hex"])
    assert case["public_key_b64url"] == b64url_encode(bytes.fromhex(case["public_key_hex"]))
    assert case["signature_b64url"] == b64url_encode(bytes.fromhex(case["signature_hex"]))
    assert public_key_text(key) == case["public_key_b64url"]
    assert sign(key, message) == case["signature_b64url"]
    assert verify(case["public_key_b64url"], message, case["signature_b64url"])


def test_order_vector_signs_the_canonical_bytes_of_the_order() -> None:
    case: dict[str, Any] = VECTORS["order"]
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(case["private_seed_hex"]))
    message = order_signing_bytes(case["order"])
    assert message == case["canonical"].encode("utf-8") == canonical_bytes(case["order"])
    assert public_key_text(key) == case["public_key_b64url"]
    assert sign(key, message) == case["signature_b64url"]
    assert verify(case["public_key_b64url"], message, case["signature_b64url"])


def test_order_signature_survives_key_reordering_but_not_a_changed_field() -> None:
    case: dict[str, Any] = VECTORS["order"]
    reordered = dict(reversed(list(case["order"].items())))
    assert verify(
        case["public_key_b64url"], order_signing_bytes(reordered), case["signature_b64url"]
    )
    replayed = {**case["order"], "seq": case["order"]["seq"] + 1}
    assert not verify(
        case["public_key_b64url"], order_signing_bytes(replayed), case["signature_b64url"]
    )


def test_signature_by_another_key_does_not_verify() -> None:
    message = b"order"
    assert not verify(public_key_text(new_private_key()), message, sign(new_private_key(), message))


def test_new_private_keys_are_fresh() -> None:
    assert public_key_text(new_private_key()) != public_key_text(new_private_key())


@pytest.mark.parametrize(
    ("text", "data"),
    [
        ("", b""),
        ("QQ", b"A"),
        ("QQ==", b"A"),
        ("QUI", b"AB"),
        ("QUI=", b"AB"),
        ("QUJD", b"ABC"),
        ("-_8", b"\xfb\xff"),
    ],
)
def test_b64url_decode_accepts_padded_and_unpadded(text: str, data: bytes) -> None:
    assert b64url_decode(text) == data


@pytest.mark.parametrize(
    "text",
    [
        "+_8",
        "/_8",
        "QQ ",
        " QQ",
        "Q\nQ",
        "QQ=",
        "QQ===",
        "Q=Q=",
        "QUI==",
        "Q",
        "QUJDR",
        "QR",
        "QUJ",
        "\u00e9A",
        "\uff11\uff11",
    ],
    ids=repr,
)
def test_b64url_decode_refuses_anything_but_canonical_urlsafe_text(text: str) -> None:
    with pytest.raises(ValueError):
        b64url_decode(text)


def test_parse_public_key_round_trips() -> None:
    key = new_private_key()
    text = public_key_text(key)
    assert b64url_encode(parse_public_key(text).public_bytes_raw()) == text


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (b64url_encode(bytes(31)), "32 raw bytes, got 31"),
        (b64url_encode(bytes(33)), "32 raw bytes, got 33"),
        ("", "32 raw bytes, got 0"),
        (base64.b64encode(bytes(range(200, 232))).decode(), "not base64url"),
        ("not a key!", "not base64url"),
    ],
)
def test_parse_public_key_refuses_bad_text_with_a_clear_reason(text: str, reason: str) -> None:
    with pytest.raises(InvalidKey, match=reason):
        parse_public_key(text)
    assert issubclass(InvalidKey, ValueError)


def test_verify_is_false_for_malformed_signatures_and_keys() -> None:
    key = new_private_key()
    public = public_key_text(key)
    signature = sign(key, b"m")
    raw = b64url_decode(signature)
    assert verify(public, b"m", signature)
    assert not verify(public, b"m", b64url_encode(raw[:-1]))
    assert not verify(public, b"m", b64url_encode(raw + b"\0"))
    assert not verify(public, b"m", signature + "=")
    assert not verify(public, b"m", "")
    assert not verify(public, b"m", "%%%")
    assert not verify(public[:-1], b"m", signature)
    assert not verify("", b"m", signature)


@SETTINGS
@given(keys, st.binary())
def test_sign_verify_round_trip(key: Ed25519PrivateKey, message: bytes) -> None:
    signature = sign(key, message)
    assert "=" not in signature
    assert len(b64url_decode(signature)) == 64
    assert verify(public_key_text(key), message, signature)


@SETTINGS
@given(keys, st.binary(min_size=1), st.data())
def test_flipping_any_message_byte_breaks_the_signature(
    key: Ed25519PrivateKey, message: bytes, data: st.DataObject
) -> None:
    signature = sign(key, message)
    index = data.draw(st.integers(0, len(message) - 1))
    mask = data.draw(st.integers(1, 255))
    assert not verify(public_key_text(key), flip(message, index, mask), signature)


@SETTINGS
@given(keys, st.binary(), st.integers(0, 63), st.integers(1, 255))
def test_flipping_any_signature_byte_breaks_the_signature(
    key: Ed25519PrivateKey, message: bytes, index: int, mask: int
) -> None:
    raw = b64url_decode(sign(key, message))
    assert not verify(public_key_text(key), message, b64url_encode(flip(raw, index, mask)))


@SETTINGS
@given(
    st.text() | st.binary(min_size=32, max_size=32).map(b64url_encode),
    st.binary(),
    st.text() | st.binary(min_size=64, max_size=64).map(b64url_encode),
)
def test_verify_never_raises_on_arbitrary_text(key: str, message: bytes, signature: str) -> None:
    assert verify(key, message, signature) in (True, False)


@SETTINGS
@given(st.none() | st.integers() | st.binary() | st.lists(st.text()))
def test_verify_is_false_for_arguments_of_the_wrong_type(junk: Any) -> None:
    public = public_key_text(new_private_key())
    assert verify(junk, b"m", "AAAA") is False
    assert verify(public, junk, "AAAA") is False
    assert verify(public, b"m", junk) is False


@SETTINGS
@given(st.binary())
def test_b64url_round_trip(data: bytes) -> None:
    text = b64url_encode(data)
    assert "=" not in text
    assert b64url_decode(text) == data
    assert b64url_decode(text + "=" * (-len(text) % 4)) == data


@SETTINGS
@given(st.text())
def test_b64url_decode_raises_only_value_error(text: str) -> None:
    try:
        b64url_decode(text)
    except ValueError:
        pass


# Issue 14, item 4. The eight points of small order (orders 1, 2, 4, 4, 8, 8, 8, 8) and
# non-canonical encodings of small-order points, from "Taming the many EdDSAs"
# (Chalkias, Garillot, Nikolaenko, 2020, table 6) and libsodium's blocklist.
SMALL_ORDER = [
    "0100000000000000000000000000000000000000000000000000000000000000",  # identity
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # order 2
    "0000000000000000000000000000000000000000000000000000000000000000",  # order 4
    "0000000000000000000000000000000000000000000000000000000000000080",  # order 4
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  # order 8
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",  # order 8
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",  # order 8
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",  # order 8
]
NON_CANONICAL = [
    "0100000000000000000000000000000000000000000000000000000000000080",  # identity, x = -0
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  # order 2, x = -0
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = p (order 4)
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  # y = p, sign set
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = p + 1 (identity)
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  # y = p + 1, sign set
]
P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493


@pytest.mark.parametrize("key_hex", SMALL_ORDER + NON_CANONICAL)
def test_small_order_and_non_canonical_keys_are_refused(key_hex: str) -> None:
    """The identity key with the signature (R = identity, S = 0) verifies every message
    under OpenSSL's check; every small-order key is refused before that can matter."""
    raw = bytes.fromhex(key_hex)
    with pytest.raises(InvalidKey):
        parse_public_key(b64url_encode(raw))
    forged = b64url_encode(bytes.fromhex(SMALL_ORDER[0]) + bytes(32))  # R = identity, S = 0
    for message in (b"", b"order 1", b"order 2"):
        assert not verify(b64url_encode(raw), message, forged)


@pytest.mark.parametrize("offset", range(19))
def test_every_encoding_of_y_at_or_above_p_is_refused(offset: int) -> None:
    for sign_bit in (0, 1):
        raw = ((P + offset) | (sign_bit << 255)).to_bytes(32, "little")
        with pytest.raises(InvalidKey):
            parse_public_key(b64url_encode(raw))


def test_a_key_with_a_small_order_component_is_refused() -> None:
    """A real key plus a point of order 8 (mixed order): OpenSSL takes it, libraries
    disagree on its signatures; no honest key generation makes one."""
    from service.crypto import edwards

    honest = new_private_key()
    point = edwards.decode(b64url_decode(public_key_text(honest)))
    torsion = edwards.decode(bytes.fromhex(SMALL_ORDER[4]))
    x, y, z, _ = edwards.add(point, torsion)
    zi = pow(z, P - 2, P)
    x, y = x * zi % P, y * zi % P
    mixed = (y | ((x & 1) << 255)).to_bytes(32, "little")
    Ed25519PublicKey.from_public_bytes(mixed)  # the library alone accepts it
    with pytest.raises(InvalidKey, match="small-order component"):
        parse_public_key(b64url_encode(mixed))
    parse_public_key(public_key_text(honest))


def test_a_signature_with_s_at_or_above_l_is_refused() -> None:
    """S and S + L verify the same equation; only S < L is a signature (RFC 8032 5.1.7)."""
    key = new_private_key()
    message = b"attack 1432"
    signature = b64url_decode(sign(key, message))
    s = int.from_bytes(signature[32:], "little")
    assert verify(public_key_text(key), message, b64url_encode(signature))
    for bad in (s + L, L, 2**256 - 1):
        malleated = signature[:32] + bad.to_bytes(32, "little")
        assert not verify(public_key_text(key), message, b64url_encode(malleated))
