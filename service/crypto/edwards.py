"""Checks on Ed25519 public keys and signatures that the signature library leaves out.

OpenSSL (through `cryptography`) verifies with the cofactorless equation and accepts
any 32 bytes as a public key. So a key of small order (the identity, or any of the
eight points of order 1, 2, 4 or 8) makes one constant signature, or a handful,
verify for every message: its orders could not be attributed to anyone. A key with a
small-order part (mixed order) or a non-canonical encoding verifies differently in
different libraries. This module decodes a key strictly (RFC 8032 5.1.3, refusing
y >= p and a set sign bit on x = 0) and says whether the point is of small order or
outside the prime-order subgroup; see "Taming the many EdDSAs" (Chalkias, Garillot,
Nikolaenko, 2020) for the cases.
"""

from __future__ import annotations

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493  # the prime-order subgroup's order
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)

Point = tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z
IDENTITY: Point = (0, 1, 1, 0)


class BadPoint(ValueError):
    """32 bytes that are not the canonical encoding of a point on Ed25519."""


def decode(raw: bytes) -> Point:
    """The point `raw` encodes, strictly: BadPoint for y >= p, for an x that does not
    exist, and for the "negative zero" encodings (x = 0 with the sign bit set)."""
    if len(raw) != 32:
        raise BadPoint("a point is 32 bytes")
    number = int.from_bytes(raw, "little")
    sign, y = number >> 255, number & ((1 << 255) - 1)
    if y >= P:
        raise BadPoint("non-canonical encoding (y is not below 2^255 - 19)")
    u, v = (y * y - 1) % P, (D * y * y + 1) % P
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P
    if v * x * x % P == (-u) % P:
        x = x * SQRT_M1 % P
    if v * x * x % P != u:
        raise BadPoint("not a point on the curve")
    if x == 0 and sign:
        raise BadPoint("non-canonical encoding (x is zero but its sign bit is set)")
    if x & 1 != sign:
        x = P - x
    return (x, y, 1, x * y % P)


def add(a: Point, b: Point) -> Point:
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    pa = (y1 - x1) * (y2 - x2) % P
    pb = (y1 + x1) * (y2 + x2) % P
    pc = 2 * D * t1 * t2 % P
    pd = 2 * z1 * z2 % P
    e, f, g, h = pb - pa, pd - pc, pd + pc, pb + pa
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _double(a: Point) -> Point:
    x1, y1, z1, _ = a
    pa, pb = x1 * x1 % P, y1 * y1 % P
    pc = 2 * z1 * z1 % P
    h = pa + pb
    e = h - (x1 + y1) * (x1 + y1)
    g = pa - pb
    f = pc + g
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def multiply(scalar: int, point: Point) -> Point:
    result, addend = IDENTITY, point
    while scalar:
        if scalar & 1:
            result = add(result, addend)
        addend = _double(addend)
        scalar >>= 1
    return result


def is_identity(point: Point) -> bool:
    x, y, z, _ = point
    return x % P == 0 and (y - z) % P == 0


def has_small_order(point: Point) -> bool:
    """Whether [8]point is the identity: the eight points of order 1, 2, 4 and 8."""
    return is_identity(_double(_double(_double(point))))


def in_prime_subgroup(point: Point) -> bool:
    """Whether [L]point is the identity (no small-order component)."""
    return is_identity(multiply(L, point))


def canonical_scalar(raw: bytes) -> bool:
    """Whether the 32 bytes are a scalar below L (a signature's S must be)."""
    return len(raw) == 32 and int.from_bytes(raw, "little") < L
