"""The client kit, service/web/wif.js, run by Node (issue 18, item 3): its canonical
JSON is RFC 8785's, byte for byte what the server signs and hashes (the published
vectors, and thousands of numbers against the Python implementation the server uses);
what has no canonical form is refused with the value's JSON pointer; what it signs
(joins, orders) verifies with the server's own code, and the reverse.

Skipped where node is missing (js_tools says how to install it)."""

from __future__ import annotations

import json
import math
import random
import struct
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from js_tools import run_kit

from service.crypto import identity, signing

VECTORS = json.loads((Path(__file__).resolve().parents[1] / "vectors" /
                      "canonical.json").read_text())


def _beyond(value: Any) -> bool:
    return isinstance(value, float | int) and abs(value) > 2**53 - 1


def _without_big_numbers(value: Any) -> Any:
    """`value` with every number beyond +-(2**53 - 1) (which the kit refuses) as null."""
    if isinstance(value, dict):
        return {k: _without_big_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_big_numbers(v) for v in value]
    return None if _beyond(value) else value


def test_canonical_json_matches_the_published_vectors() -> None:
    """Every vector is the kit's canonical JSON, but those with numbers beyond
    +-(2**53 - 1), which it refuses (naming the number): those are compared with their
    big numbers made null. The invalid vectors are refused."""
    cases = [json.loads(case["input_json"]) for case in VECTORS["cases"]]
    got = run_kit("""
      const canonical = (value) => {
        try { return kit.canonicalJSON(value); }
        catch (error) { return `${error.name}: ${error.message}`; }
      };
      return {
        cases: data.cases.map((c) => canonical(JSON.parse(c.input_json))),
        small: data.small.map(canonical),
        invalid: data.invalid.map((c) => canonical(JSON.parse(c.input_json))),
      };""", {**VECTORS, "small": [_without_big_numbers(case) for case in cases]})
    refused = 0
    for case, value, text, small in zip(VECTORS["cases"], cases, got["cases"], got["small"],
                                        strict=True):
        if text.startswith("CanonicalJSONError"):
            refused += 1
            assert "is beyond ±(2^53 − 1)" in text and _without_big_numbers(value) != value
        else:
            assert text == case["expected"], case["name"]
        assert small == rfc8785.dumps(_without_big_numbers(value)).decode(), case["name"]
    # 1E30 in RFC 8785's own example; 1e21, 1.5e300, 1.7976931348623157e308, 2**53...
    assert refused == sum(_without_big_numbers(value) != value for value in cases) == 3
    assert all(text.startswith("CanonicalJSONError: ") for text in got["invalid"])


def _doubles(count: int) -> list[float]:
    """Finite doubles of every kind: random bit patterns (every exponent), decimals
    such as people type, and the edges of the exponent notation (1e-7, 1e21)."""
    rng = random.Random(8785)
    values: list[float] = [0.1, 0.2 + 0.1, 1e-7, 1e-6, 1e20, 1e21, 123e18, 5e-324,
                           2.2250738585072014e-308, 1.7976931348623157e308, -1.5, 4.5]
    while len(values) < count:
        (value,) = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))
        if math.isfinite(value):
            values.append(value)
        values.append(round(rng.uniform(-1e6, 1e6), rng.randrange(0, 8)))
        values.append(rng.randrange(-2**53 + 1, 2**53) / 10 ** rng.randrange(0, 20))
    return values


def test_numbers_are_written_as_rfc8785_writes_them() -> None:
    """Number.prototype.toString is RFC 8785's number format: the kit and the Python
    rfc8785 package agree on every finite double within +-(2**53 - 1), and the kit
    refuses every number beyond."""
    values = _doubles(6000)
    got = run_kit("""
      return data.map((n) => {
        try { return kit.canonicalJSON(n); } catch (error) { return error.name; }
      });""", values)
    for value, text in zip(values, got, strict=True):
        if _beyond(value):
            assert text == "CanonicalJSONError", value
        else:
            assert text == rfc8785.dumps(value).decode(), value
            assert float(text) == value
    assert sum(1 for v in values if _beyond(v)) > 500  # about half the random bit patterns
    assert sum(1 for v in values if not v.is_integer()) > 3000


REFUSED = {
    "NaN": ("{a: [1, NaN]}", "/a/1: NaN is not a JSON number"),
    "Infinity": ("{b: {c: -Infinity}}", "/b/c: -Infinity is not a JSON number"),
    "2**53": ("{seq: 2 ** 53}", "/seq: 9007199254740992 is beyond ±(2^53 − 1)"),
    "-(2**53)": ("[-(2 ** 53)]", "/0: -9007199254740992 is beyond ±(2^53 − 1)"),
    "1e21": ("{big: 1e21}", "/big: 1e+21 is beyond ±(2^53 − 1)"),
    "lone surrogate": ('{name: "\\ud800"}', "/name: the string has a lone surrogate"),
    "lone surrogate key": ('{"\\udfff": 1}', "/\udfff: the string has a lone surrogate"),
    "BigInt": ("{n: 5n}", "/n: the BigInt 5 has no JSON form"),
    "function": ("{f() {}}", "/f: a function has no JSON form"),
    "symbol": ("[Symbol('s')]", "/0: a symbol has no JSON form"),
    "Date": ("{at: new Date(0)}", "/at: Date is not a plain object"),
    "Map": ("new Map()", "/: Map is not a plain object"),
    "toJSON": ("{x: {toJSON: () => 1}}", "/x: Object is not a plain object"),
    "cycle": ("(() => { const a = {k: []}; a.k.push(a); return a; })()",
              "/k/0: the value contains itself"),
    "escaped pointer": ('{"a/b~c": NaN}', "/a~1b~0c: NaN is not a JSON number"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_what_has_no_canonical_form_is_refused_with_its_pointer(case: str) -> None:
    expression, message = REFUSED[case]
    got = run_kit(f"""
      try {{ return `accepted: ${{kit.canonicalJSON({expression})}}`; }}
      catch (error) {{
        return {{name: error.name, message: error.message, type: error instanceof TypeError}};
      }}""")
    assert got["name"] == "CanonicalJSONError" and got["type"], got
    assert got["message"].startswith(message), got


def test_what_json_leaves_out_the_kit_leaves_out() -> None:
    """As JSON.stringify (which sends the order) does: undefined properties go, undefined
    array items are null, -0 is 0; keys sort by UTF-16 code units."""
    got = run_kit("""
      const value = {z: undefined, b: [undefined, -0, 1.5], "\\u{1F600}": 1, "\\uFB33": 2, a: "é"};
      return {canonical: kit.canonicalJSON(value), stringified: JSON.parse(JSON.stringify(value))};
    """)
    assert got["canonical"] == '{"a":"é","b":[null,0,1.5],"\U0001F600":1,"\ufb33":2}'
    assert got["canonical"].encode() == rfc8785.dumps(got["stringified"])


def test_what_the_kit_signs_verifies_with_the_servers_code() -> None:
    """A key imported from its raw 32 bytes (as `wif keygen` writes them) signs a join
    and an order; the server's code verifies both, derives the same player id, and the
    kit verifies the server's signature."""
    key = signing.new_private_key()
    seed = signing.b64url_encode(key.private_bytes_raw())
    order = {"game": "g1", "player": "p1", "seq": 7, "prev": "a" * 64, "turn": 1,
             "impulse": 2, "step": "action", "kind": "mode",
             "body": {"changes": [{"unit": "ger-hq-1", "mode": "move"}], "x": [0.5, -3]}}
    python_signature = signing.sign(key, signing.order_signing_bytes(order))
    got = run_kit("""
      const keys = await kit.importKeyPair(data.seed);
      const made = await kit.generateKeyPair();
      const publicKey = await kit.exportPublicKey(keys);
      return {
        publicKey,
        player: await kit.playerIdOf(publicKey),
        join: await kit.signJoin(keys, {game: "g1", side: "axis", joinCode: "CODE", name: "Dave"}),
        envelope: await kit.signOrder(keys, kit.makeOrder({...data.order,
          position: {turn: 1, impulse: 2, step: "action"}})),
        verifies: await kit.verifyObject(publicKey, data.order, data.signature),
        forged: await kit.verifyObject(publicKey, {...data.order, seq: 8}, data.signature),
        extractable: [made.privateKey.extractable, keys.privateKey.extractable],
      };""", {"seed": seed, "order": order, "signature": python_signature})
    public_key = signing.public_key_text(key)
    assert got["publicKey"] == public_key
    assert got["player"] == identity.player_id_of(public_key)
    join: dict[str, Any] = got["join"]
    assert join == {"join_code": "CODE", "name": "Dave", "public_key": public_key,
                    "powers": None, "signature": join["signature"]}
    signed = identity.join_object("g1", "axis", "Dave", public_key, None)
    assert signing.verify(public_key, identity.signing_bytes(signed), join["signature"])
    assert got["envelope"]["order"] == order
    assert got["envelope"]["signature"] == python_signature  # Ed25519 is deterministic
    assert got["verifies"] is True and got["forged"] is False
    assert got["extractable"] == [False, False]
