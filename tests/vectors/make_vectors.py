"""Regenerate the published crypto test vectors in this folder.

Run from the repository root: `.venv/bin/python -m tests.vectors.make_vectors`.

canonical.json and the RFC 8032 part of signatures.json hold expected outputs written
down from the RFCs, not computed: the script refuses to write them if the code
disagrees. The order signature, dice and chain vectors are computed by service.crypto;
the tests re-check them, and the dice ones with an independent implementation.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.crypto import dice
from service.crypto.canonical import canonical_bytes
from service.crypto.chain import event_hash, genesis_hash
from service.crypto.signing import (
    b64url_encode,
    order_signing_bytes,
    public_key_text,
    sign,
    verify,
)

HERE = Path(__file__).resolve().parent

# (name, input as JSON text, expected canonical text). Expected values are from
# RFC 8785 (sections 3.2.2, 3.2.3, appendix B) and ECMAScript Number::toString.
CANONICAL_CASES: list[tuple[str, str, str]] = [
    (
        "rfc8785 3.2.2 example: whitespace, numbers, string escapes, key order",
        '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],'
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",'
        ' "literals": [null, true, false]}',
        '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    ),
    (
        "rfc8785 3.2.3 example: keys sorted by UTF-16 code units, not code points"
        " (U+1F600 is D83D DE00, so it sorts before U+FB33)",
        '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet'
        ' With Dagesh", "1": "One", "\\ud83d\\ude00": "Emoji: Grinning Face",'
        ' "\\u0080": "Control", "\\u00f6": "Latin Small Letter O With Diaeresis"}',
        '{"\\r":"Carriage Return","1":"One","\u0080":"Control",'
        '"\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",'
        '"\U0001f600":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    ),
    (
        "key order: empty key first, upper case before lower case, prefix before longer",
        '{"aa": 1, "a": 2, "B": 3, "": 4, "\\u00e9": 5, "z": 6}',
        '{"":4,"B":3,"a":2,"aa":1,"z":6,"\u00e9":5}',
    ),
    (
        "numbers: exponent from 1e21, plain below; 1e-7 exponent, 0.000001 plain",
        "[1e21, 1e20, 1e-6, 0.000001, 1e-7, 0.1, 4.0, 1.5e300, 123e-20, 0.000001234]",
        "[1e+21,100000000000000000000,0.000001,0.000001,1e-7,0.1,4,1.5e+300,1.23e-18,0.000001234]",
    ),
    (
        "numbers: minus zero is 0; shortest round-trip digits; extremes",
        "[-0, -0.0, 0.0, 5e-324, 1.7976931348623157e308, 12345678901234567890.0,"
        " 9007199254740991, -9007199254740991, 9007199254740992.0]",
        "[0,0,0,5e-324,1.7976931348623157e+308,12345678901234567000,"
        "9007199254740991,-9007199254740991,9007199254740992]",
    ),
    (
        "strings: only C0 controls, quote and backslash escaped; short forms where they"
        " exist; DEL, U+2028 and '/' stay raw",
        '["\\u0000\\u001f\\u007f\\u2028</script>", "\\t\\b\\f\\n\\r", "caf\\u00e9 \\ud83c\\udfb2"]',
        '["\\u0000\\u001f\u007f\u2028</script>","\\t\\b\\f\\n\\r","caf\u00e9 \U0001f3b2"]',
    ),
    (
        "nesting and empty containers",
        '{"b": [], "a": {}, "c": [{"z": 1, "y": [true, {"k": null}]}]}',
        '{"a":{},"b":[],"c":[{"y":[true,{"k":null}],"z":1}]}',
    ),
]

# (name, input as JSON text): values with no canonical form; canonical_bytes raises.
CANONICAL_INVALID: list[tuple[str, str]] = [
    ("integer above 2**53 - 1", "9007199254740992"),
    ("integer below -(2**53 - 1)", "[-9007199254740992]"),
    ("lone surrogate in a string", '{"a": "\\ud800"}'),
    ("lone surrogate in a key", '{"\\udfff": 1}'),
]

# RFC 8032 section 7.1, TEST 1 and TEST 2 (hex).
RFC8032_CASES: list[dict[str, str]] = [
    {
        "name": "RFC 8032 7.1 TEST 1",
        "private_seed_hex": "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "public_key_hex": "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "message_hex": "",
        "signature_hex": "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    },
    {
        "name": "RFC 8032 7.1 TEST 2",
        "private_seed_hex": "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "public_key_hex": "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "message_hex": "72",
        "signature_hex": "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
        "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    },
]

ORDER_SEED_HEX = "a3f1c2d4e5b60718293a4b5c6d7e8f90112233445566778899aabbccddeeff00"
ORDER: dict[str, Any] = {
    "game": "g-7f3a9c",
    "player": "p-allies-1",
    "seq": 7,
    "turn": 3,
    "impulse": 12,
    "step": "reorganization",
    "kind": "reorg",
    "body": {
        "power": "cw",
        "items": [
            {"unit": "cw-inf-1", "method": "hq", "hq": "cw-hq-8army"},
            {"unit": "cw-arm-7", "method": "overseas", "source": "1332", "port": "1431"},
        ],
    },
}

GAME_ID = "g-7f3a9c"
DICE_SEED_HEX = "5f1d7c3a9b2e4f6081a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708"
MASTER_SEED_HEX = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
# An Ed25519 signature's base64url text (64 bytes), as a command that rolls carries one.
TRIGGER_SIGNATURE = ("L6hr2GjK0xW3b5LkGJNQ8h3b2nqRLjzrZSbXdIxxgY8ZK4fcHc8Eb4tOv1e2mJ3Yr0k9"
                     "o3Vq1oRZHkT1b9oFCw")


def _write(name: str, payload: dict[str, Any]) -> None:
    text = json.dumps(payload, indent=2, ensure_ascii=True) + "\n"
    (HERE / name).write_text(text, encoding="utf-8")


def build_canonical() -> dict[str, Any]:
    """RFC 8785 cases; fails loudly if the code disagrees with the written-down answers."""
    cases = []
    for name, input_json, expected in CANONICAL_CASES:
        got = canonical_bytes(json.loads(input_json)).decode("utf-8")
        if got != expected:
            raise SystemExit(f"canonical case {name!r}: code gives {got!r}, RFC {expected!r}")
        cases.append({"name": name, "input_json": input_json, "expected": expected})
    invalid = [{"name": name, "input_json": text} for name, text in CANONICAL_INVALID]
    return {
        "about": "RFC 8785 canonical JSON: json.loads(input_json) -> expected (UTF-8).",
        "cases": cases,
        "invalid": invalid,
    }


def build_signatures() -> dict[str, Any]:
    """The RFC 8032 vectors (checked) and one signed order of docs/api.md."""
    rfc = []
    for case in RFC8032_CASES:
        key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(case["private_seed_hex"]))
        signature = sign(key, bytes.fromhex(case["message_hex"]))
        public = public_key_text(key)
        if (public, signature) != (
            b64url_encode(bytes.fromhex(case["public_key_hex"])),
            b64url_encode(bytes.fromhex(case["signature_hex"])),
        ):
            raise SystemExit(f"{case['name']}: code disagrees with the RFC")
        rfc.append({**case, "public_key_b64url": public, "signature_b64url": signature})

    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(ORDER_SEED_HEX))
    message = order_signing_bytes(ORDER)
    signature = sign(key, message)
    if not verify(public_key_text(key), message, signature):
        raise SystemExit("order signature does not verify")
    return {
        "about": "Ed25519 (deterministic). The order's signed message is its RFC 8785 bytes.",
        "rfc8032": rfc,
        "order": {
            "private_seed_hex": ORDER_SEED_HEX,
            "public_key_b64url": public_key_text(key),
            "order": ORDER,
            "canonical": message.decode("utf-8"),
            "signature_b64url": signature,
        },
    }


def _roll_case(
    name: str,
    seed: bytes,
    *,
    turn: int,
    roll_index: int,
    purpose: str,
    trigger: str,
    count: int,
    faces: int,
) -> dict[str, Any]:
    values = dice.roll_dice(
        seed,
        game_id=GAME_ID,
        turn=turn,
        roll_index=roll_index,
        purpose=purpose,
        trigger=trigger,
        count=count,
        faces=faces,
    )
    messages = [
        dice.roll_message(GAME_ID, turn, roll_index, j, purpose, trigger) for j in range(count)
    ]
    return {
        "name": name,
        "seed_hex": seed.hex(),
        "game_id": GAME_ID,
        "turn": turn,
        "roll_index": roll_index,
        "purpose": purpose,
        "trigger": trigger,
        "faces": faces,
        "count": count,
        "messages": messages,
        "values": values,
    }


def _first_byte_rejected(seed: bytes, faces: int, trigger: str) -> int:
    """The first roll index whose die 0 digest starts with a byte the die must skip."""
    bound = 256 - 256 % faces
    for roll_index in range(100_000):
        message = dice.roll_message(GAME_ID, 1, roll_index, 0, "roll", trigger)
        digest = hmac.new(seed, message.encode(), hashlib.sha256).digest()
        if digest[0] >= bound:
            return roll_index
    raise SystemExit(f"no rejected first byte found for d{faces}")


def build_dice() -> dict[str, Any]:
    """Dice of docs/dice.md: d10, d6, d100, seeded mode, byte rejection and the re-hash loop."""
    seed = bytes.fromhex(DICE_SEED_HEX)
    chain = dice.trigger_of(TRIGGER_SIGNATURE)
    rolls = [
        _roll_case(
            "d10 initiative, one die per side",
            seed,
            turn=1,
            roll_index=0,
            purpose="initiative",
            trigger=chain,
            count=3,
            faces=10,
        ),
        _roll_case(
            "d6 generic roll",
            seed,
            turn=2,
            roll_index=4,
            purpose="roll",
            trigger=chain,
            count=4,
            faces=6,
        ),
        _roll_case(
            "d100 generic roll",
            seed,
            turn=2,
            roll_index=5,
            purpose="roll",
            trigger=chain,
            count=5,
            faces=100,
        ),
        _roll_case(
            "d10 turn_end dice",
            seed,
            turn=7,
            roll_index=31,
            purpose="turn_end",
            trigger=chain,
            count=2,
            faces=10,
        ),
    ]
    for faces in (10, 97):
        index = _first_byte_rejected(seed, faces, chain)
        rolls.append(
            _roll_case(
                f"d{faces} whose die 0 skips the digest's first byte (>= {256 - 256 % faces})",
                seed,
                turn=1,
                roll_index=index,
                purpose="roll",
                trigger=chain,
                count=1,
                faces=faces,
            )
        )

    master = bytes.fromhex(MASTER_SEED_HEX)
    seeded_root = dice.seeded_root(master, 0)
    turn_seed = dice.chain_seed(seeded_root, 2)  # turn 3 of a chain from turn 1
    seeded = {
        "name": "seeded mode: chain 0's root = HMAC-SHA256(master_seed, 'chain|0'); turn 3's "
                "seed = H^(1000-1-2)(root); then a weather roll",
        "master_seed_hex": MASTER_SEED_HEX,
        "chain": 0,
        "root_hex": seeded_root.hex(),
        "anchor": dice.anchor(seeded_root),
        "turn": 3,
        "turn_seed_hex": turn_seed.hex(),
        "roll": _roll_case(
            "weather roll with the seeded turn seed",
            turn_seed,
            turn=3,
            roll_index=1,
            purpose="weather",
            trigger=chain,
            count=1,
            faces=10,
        ),
    }
    small_root = bytes.fromhex(DICE_SEED_HEX)
    small = {
        "name": "a chain of 4 turns from turn 1: seed of turn 1+k = H^(4-1-k)(root), anchor = "
                "H^4(root); each seed hashes to the one before, the first to the anchor",
        "root_hex": DICE_SEED_HEX,
        "length": 4,
        "anchor": dice.anchor(small_root, 4),
        "seeds_hex": [dice.chain_seed(small_root, k, 4).hex() for k in range(4)],
        "full_length_anchor": dice.anchor(small_root),
    }
    trigger = {
        "name": "a roll's trigger: SHA-256 (hex) of the raw 64 bytes of the base64url "
                "signature of the command that rolls",
        "signature": TRIGGER_SIGNATURE,
        "trigger": chain,
    }

    forced = bytes([0xFF] * 32)
    rehash_seed = bytes.fromhex(DICE_SEED_HEX)
    rehashed = hmac.new(rehash_seed, forced, hashlib.sha256).digest()
    rehash = {
        "name": "re-hash loop: a first digest with no byte below the bound",
        "note": "No real message is known whose digest has no usable byte (even for the"
        " worst die, d86, the chance is 0.33**32, about 3e-16), so this case starts"
        " from a forced first digest of 32 bytes 0xff: the die must use"
        " HMAC-SHA256(key=seed, msg=that digest).",
        "seed_hex": rehash_seed.hex(),
        "message": dice.roll_message(GAME_ID, 1, 0, 0, "roll", chain),
        "faces": 10,
        "forced_first_digest_hex": forced.hex(),
        "rehashed_digest_hex": rehashed.hex(),
        "value": dice._value_from_digest(rehash_seed, forced, 10),
    }
    return {
        "about": "docs/dice.md (wif-dice/2). msg = game|T|i|j|purpose|trigger; digest ="
        " HMAC-SHA256(seed_T, msg); value = first byte b < 256 - 256 % faces, as"
        " b % faces + 1; none: digest = HMAC-SHA256(seed_T, digest), repeat.",
        "chain": small,
        "trigger": trigger,
        "rolls": rolls,
        "seeded": seeded,
        "rehash": rehash,
    }


def build_chain() -> dict[str, Any]:
    """A three-event log chained from sha256(game_id)."""
    bodies: list[dict[str, Any]] = [
        {
            "seq": 1,
            "turn": 0,
            "impulse": 0,
            "step": "join",
            "kind": "GameCreated",
            "actor": "gm",
            "text": "Game created",
            "data": {"scenario": "dno-demo"},
            "rules_version": "1",
        },
        {
            "seq": 2,
            "turn": 1,
            "impulse": 0,
            "step": "initiative.reroll",
            "kind": "DiceCommitted",
            "actor": "server",
            "text": "Dice chain committed from turn 1",
            "data": {"chain": 0, "from_turn": 1,
                     "anchor": dice.anchor(bytes.fromhex(DICE_SEED_HEX))},
            "rules_version": "1",
        },
        {
            "seq": 3,
            "turn": 1,
            "impulse": 0,
            "step": "initiative.reroll",
            "kind": "InitiativeRolled",
            "actor": "server",
            "text": "Initiative: 7, 2, 10",
            "data": {"dice": [7, 2, 10], "note": "caf\u00e9"},
            "rules_version": "1",
        },
    ]
    prev = genesis_hash(GAME_ID)
    events = []
    for body in bodies:
        prev = event_hash(prev, body)
        events.append({**body, "hash": prev})
    return {
        "about": "hash = sha256(prev_hash_hex + RFC 8785 bytes of the event without 'hash');"
        " the first event chains from sha256(game_id).",
        "game_id": GAME_ID,
        "genesis_hash": genesis_hash(GAME_ID),
        "events": events,
    }


def main() -> None:
    _write("canonical.json", build_canonical())
    _write("signatures.json", build_signatures())
    _write("dice.json", build_dice())
    _write("chain.json", build_chain())


if __name__ == "__main__":
    main()
