"""Which addresses notifications may go to (issue 33): every address that maps onto a
non-public one is refused, whichever way IPv6 spells it (docs/security.md)."""

from __future__ import annotations

import ipaddress

import pytest

from service.referee import egress

NOT_PUBLIC = [
    # IPv4: loopback, private, shared, link-local (metadata), reserved, special, multicast
    "127.0.0.1", "10.1.2.3", "172.16.5.4", "192.168.0.10", "100.64.0.1", "169.254.169.254",
    "0.0.0.0", "240.0.0.1", "255.255.255.255", "192.0.0.8", "198.18.0.1", "224.0.0.1",
    # IPv6 outside 2000::/3: loopback, unspecified, unique local, link-local, site-local,
    # multicast, discard
    "::1", "::", "fd00:ec2::254", "fc00::1", "fe80::1", "fec0::1", "feff::1", "ff02::1",
    "100::1",
    # IPv4 spelt in IPv6: mapped, IPv4-compatible, SIIT (IPv4-translated), NAT64 with a
    # private address, local-use NAT64 (any address), 6to4 of a private address
    "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::7f00:1", "::a00:1", "::ffff:0:7f00:1",
    "::ffff:0:a9fe:a9fe", "64:ff9b::7f00:1", "64:ff9b::a00:1", "64:ff9b:1::1",
    "64:ff9b:1::5db8:d70e", "2002:7f00:1::1", "2002:a9fe:a9fe::1", "2002:c0a8:1::1",
    # Teredo whose client (or server) is not public; the rest of 2001::/23; documentation
    "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001:0:7f00:1::1", "2001:2::1", "2001:10::1",
    "2001:db8::1", "3fff::1",
]
PUBLIC = ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e",
          "::ffff:93.184.215.14", "64:ff9b::5db8:d70e", "2002:5db8:d70e::1",
          "2001:0:5db8:d70e:0:0:a2ff:fef0"]


@pytest.mark.parametrize("text", NOT_PUBLIC)
def test_an_address_that_maps_onto_a_non_public_one_is_refused(text: str) -> None:
    address = ipaddress.ip_address(text)
    assert not egress.public(address)
    assert not egress.Policy().permits(address)


@pytest.mark.parametrize("text", PUBLIC)
def test_a_public_address_is_taken_in_any_spelling(text: str) -> None:
    assert egress.public(ipaddress.ip_address(text))


def test_an_allowed_network_is_taken_although_not_public() -> None:
    policy = egress.Policy.of(["fec0::/10", "10.1.2.0/24"], timeout=1)
    assert policy.permits(ipaddress.ip_address("fec0::1"))
    assert policy.permits(ipaddress.ip_address("10.1.2.3"))
    assert not policy.permits(ipaddress.ip_address("10.1.3.3"))


async def test_a_name_resolving_to_an_embedded_private_address_is_refused() -> None:
    """DNS may answer any of these spellings: each is judged as the address it carries."""
    async def dns(host: str, port: int) -> list[str]:
        return {"nat64.example": ["64:ff9b:1::a00:1"], "compat.example": ["::7f00:1"],
                "siit.example": ["::ffff:0:7f00:1"], "site.example": ["fec0::1"]}[host]

    policy = egress.Policy(resolver=dns)
    for host in ("nat64.example", "compat.example", "siit.example", "site.example"):
        with pytest.raises(egress.Failed, match="not a public one"):
            await egress.check(f"https://{host}/hook", policy)
