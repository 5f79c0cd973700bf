"""Verifiable dice (service.crypto.dice) against docs/dice.md (wif-dice/2).

The stored vectors are checked twice: against the code, and against `reference_die`,
written here from the documented formula with hashlib and hmac only, so a change to the
code that silently changed every game's dice cannot pass.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.crypto import dice

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "vectors" / "dice.json").read_text("utf-8")
)
SETTINGS = settings(database=None, deadline=None)


def reference_digest(seed: bytes, message: str) -> bytes:
    return hmac.new(seed, message.encode("utf-8"), hashlib.sha256).digest()


def reference_value_from(seed: bytes, digest: bytes, faces: int) -> int:
    """docs/dice.md: first byte b < 256 - 256 % faces -> b % faces + 1, else re-hash."""
    bound = 256 - 256 % faces
    while not any(b < bound for b in digest):
        digest = hmac.new(seed, digest, hashlib.sha256).digest()
    return next(b for b in digest if b < bound) % faces + 1


def reference_die(seed: bytes, message: str, faces: int) -> int:
    return reference_value_from(seed, reference_digest(seed, message), faces)


def roll_of(case: dict[str, Any]) -> list[int]:
    return dice.roll_dice(
        bytes.fromhex(case["seed_hex"]),
        game_id=case["game_id"],
        turn=case["turn"],
        roll_index=case["roll_index"],
        purpose=case["purpose"],
        trigger=case["trigger"],
        count=case["count"],
        faces=case["faces"],
    )


def check_roll_case(case: dict[str, Any]) -> None:
    seed = bytes.fromhex(case["seed_hex"])
    expected_messages = [
        f"{case['game_id']}|{case['turn']}|{case['roll_index']}|{j}|{case['purpose']}"
        f"|{case['trigger']}"
        for j in range(case["count"])
    ]
    assert case["messages"] == expected_messages
    assert [
        dice.roll_message(
            case["game_id"],
            case["turn"],
            case["roll_index"],
            j,
            case["purpose"],
            case["trigger"],
        )
        for j in range(case["count"])
    ] == expected_messages
    reference = [reference_die(seed, message, case["faces"]) for message in expected_messages]
    assert case["values"] == reference
    assert roll_of(case) == reference
    assert all(1 <= value <= case["faces"] for value in reference)


@pytest.mark.parametrize("case", VECTORS["rolls"], ids=lambda case: case["name"])
def test_roll_vector(case: dict[str, Any]) -> None:
    check_roll_case(case)


def test_vectors_cover_d10_d6_d100_and_a_skipped_first_byte() -> None:
    faces = {case["faces"] for case in VECTORS["rolls"]}
    assert {6, 10, 100} <= faces
    skipped = [
        case
        for case in VECTORS["rolls"]
        if reference_digest(bytes.fromhex(case["seed_hex"]), case["messages"][0])[0]
        >= 256 - 256 % case["faces"]
    ]
    assert {case["faces"] for case in skipped} >= {10, 97}


def reference_hashes(data: bytes, times: int) -> bytes:
    for _ in range(times):
        data = hashlib.sha256(data).digest()
    return data


def test_chain_vector_links_every_seed_to_the_one_before_and_the_first_to_the_anchor() -> None:
    case = VECTORS["chain"]
    root, length = bytes.fromhex(case["root_hex"]), case["length"]
    seeds = [bytes.fromhex(s) for s in case["seeds_hex"]]
    assert case["anchor"] == reference_hashes(root, length).hex()
    assert [dice.chain_seed(root, k, length) for k in range(length)] == seeds
    assert [s.hex() for s in seeds] == [reference_hashes(root, length - 1 - k).hex()
                                        for k in range(length)]
    assert dice.links(seeds[0], case["anchor"])
    assert all(dice.links(later, earlier.hex())
               for earlier, later in zip(seeds, seeds[1:], strict=False))
    assert not dice.links(seeds[1], case["anchor"])
    assert case["full_length_anchor"] == reference_hashes(root, dice.CHAIN_LENGTH).hex()


def test_trigger_vector_is_sha256_of_the_raw_signature() -> None:
    case = VECTORS["trigger"]
    raw = base64.urlsafe_b64decode(case["signature"] + "==")
    assert len(raw) == 64
    assert case["trigger"] == hashlib.sha256(raw).hexdigest() == dice.trigger_of(case["signature"])


def test_seeded_mode_vector_derives_the_chain_from_the_master_seed() -> None:
    case = VECTORS["seeded"]
    master = bytes.fromhex(case["master_seed_hex"])
    root = hmac.new(master, f"chain|{case['chain']}".encode(), hashlib.sha256).digest()
    assert case["root_hex"] == root.hex() == dice.seeded_root(master, case["chain"]).hex()
    assert case["anchor"] == reference_hashes(root, dice.CHAIN_LENGTH).hex()
    turn_seed = reference_hashes(root, dice.CHAIN_LENGTH - 1 - (case["turn"] - 1))
    assert case["turn_seed_hex"] == turn_seed.hex()
    assert case["roll"]["seed_hex"] == turn_seed.hex()
    check_roll_case(case["roll"])


@pytest.fixture
def forced_first_digest(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bytes]]:
    """Make die_value's message digest the digest appended to the list; re-hashes stay real.

    No natural message is known whose digest has no usable byte (for the worst die,
    d86, the chance is 0.33**32), so the re-hash loop is reached by forcing one.
    """
    forced: list[bytes] = []
    real = dice._hmac

    def fake(key: bytes, msg: bytes) -> bytes:
        if forced:
            return forced.pop()
        return real(key, msg)

    monkeypatch.setattr(dice, "_hmac", fake)
    yield forced


def test_rehash_vector_follows_hmac_of_the_previous_digest(
    forced_first_digest: list[bytes],
) -> None:
    case = VECTORS["rehash"]
    seed = bytes.fromhex(case["seed_hex"])
    forced = bytes.fromhex(case["forced_first_digest_hex"])
    assert all(b >= 250 for b in forced)
    rehashed = hmac.new(seed, forced, hashlib.sha256).digest()
    assert case["rehashed_digest_hex"] == rehashed.hex()
    assert case["value"] == reference_value_from(seed, forced, case["faces"])
    forced_first_digest.append(forced)
    assert dice.die_value(seed, case["message"], case["faces"]) == case["value"]
    assert not forced_first_digest


@pytest.mark.parametrize(
    ("digest", "value"),
    [
        (bytes([249]) + bytes(31), 10),
        (bytes([250, 249]) + bytes(30), 10),
        (bytes([255, 254, 253, 252, 251, 250, 0]) + bytes(25), 1),
        (bytes([250] * 31 + [7]), 8),
    ],
)
def test_d10_skips_bytes_250_and_up(
    forced_first_digest: list[bytes], digest: bytes, value: int
) -> None:
    forced_first_digest.append(digest)
    assert dice.die_value(b"seed", "msg") == value


@pytest.mark.parametrize("faces", range(2, 101))
def test_every_face_gets_exactly_the_same_share_of_accepted_bytes(faces: int) -> None:
    bound = 256 - 256 % faces
    counts = Counter(dice._value_from_digest(b"seed", bytes([b]), faces) for b in range(bound))
    assert sorted(counts) == list(range(1, faces + 1))
    assert set(counts.values()) == {bound // faces}


@pytest.mark.parametrize("faces", [-1, 0, 1, 101, 256, True])
def test_faces_outside_2_to_100_are_refused(faces: int) -> None:
    with pytest.raises(ValueError):
        dice.die_value(b"seed", "msg", faces)


def test_roll_dice_of_no_dice_is_empty_and_negative_count_is_refused() -> None:
    common: dict[str, Any] = {
        "game_id": "g",
        "turn": 1,
        "roll_index": 0,
        "purpose": "roll",
        "trigger": "00",
    }
    assert dice.roll_dice(b"seed", count=0, **common) == []
    with pytest.raises(ValueError):
        dice.roll_dice(b"seed", count=-1, **common)


def test_new_roots_are_32_fresh_bytes() -> None:
    roots = {dice.new_root() for _ in range(20)}
    assert len(roots) == 20
    assert all(len(root) == 32 for root in roots)


def test_rolls_depend_on_the_trigger_of_the_command_that_rolls() -> None:
    seed = bytes.fromhex(VECTORS["chain"]["root_hex"])
    common: dict[str, Any] = {"game_id": "g", "turn": 1, "roll_index": 0, "purpose": "roll"}
    first = dice.roll_dice(seed, trigger="a" * 64, count=20, **common)
    second = dice.roll_dice(seed, trigger="b" * 64, count=20, **common)
    assert first != second


@pytest.mark.parametrize("seed_number", range(4))
def test_d10_is_roughly_uniform(seed_number: int) -> None:
    """Chi-square over 10,000 d10 with fixed seeds; 9 degrees of freedom, bound p < 1e-6."""
    seed = hashlib.sha256(f"uniformity seed {seed_number}".encode()).digest()
    rolls = 10_000
    values = dice.roll_dice(
        seed,
        game_id="g-uniform",
        turn=1,
        roll_index=0,
        purpose="roll",
        trigger="0" * 64,
        count=rolls,
    )
    counts = Counter(values)
    expected = rolls / 10
    chi_square = sum((counts[face] - expected) ** 2 / expected for face in range(1, 11))
    assert chi_square < 45.0


@SETTINGS
@given(st.binary(max_size=64), st.text(), st.integers(2, 100))
def test_die_values_are_always_between_1_and_faces(seed: bytes, message: str, faces: int) -> None:
    value = dice.die_value(seed, message, faces)
    assert 1 <= value <= faces
    assert value == reference_die(seed, message, faces)


@SETTINGS
@given(st.binary(min_size=32, max_size=32), st.integers(2, 40))
def test_any_revealed_seed_proves_every_earlier_seed_of_its_chain(root: bytes, length: int
                                                                   ) -> None:
    """Revealing turn k's seed fixes the seeds of every earlier turn of the chain: each
    is the hash of the next, down to the anchor committed when the chain was made."""
    anchor = dice.anchor(root, length)
    seeds = [dice.chain_seed(root, k, length) for k in range(length)]
    for k in range(length - 1, 0, -1):
        assert hashlib.sha256(seeds[k]).digest() == seeds[k - 1]
    assert dice.links(seeds[0], anchor)
    assert len(set(seeds)) == length
