"""Requests the server makes to addresses players give it: every notification channel
(today the webhook) goes through `check` when the address is registered and `post`
when a message is sent, so a player cannot point the server at itself, its network or
a cloud metadata service (SSRF).

- Only http and https, and only to public addresses: loopback, private, link-local,
  multicast, unspecified and reserved addresses are refused (the metadata services
  169.254.169.254 and fd00:ec2::254 are link-local and private). An IPv6 address is
  public only inside the global unicast block 2000::/3 and outside its special-purpose
  parts; one that carries an IPv4 address (IPv4-mapped, NAT64 64:ff9b::/96, 6to4
  2002::/16, Teredo 2001::/32) is as public as what it carries, and every other way of
  spelling IPv4 in IPv6 (IPv4-compatible ::a.b.c.d, SIIT ::ffff:0:a.b.c.d, local-use
  NAT64 64:ff9b:1::/48) lies outside 2000::/3, as do site-local fec0::/10 and unique
  local fc00::/7: refused (docs/security.md). The operator may allow networks
  (`WEBHOOK_ALLOW_NETWORKS`; the tests allow 127.0.0.0/8 for their receivers).
- The name is resolved once per attempt, every address checked, and the connection
  made to the checked address (the URL's host goes in the Host header and, for https,
  in SNI and the certificate check): DNS rebinding cannot switch it afterwards.
- No redirect is followed, no proxy from the environment used, no connection reused.
- One limit on the whole attempt (resolution, connection, request, response headers),
  not per read: a receiver that drips a byte at a time holds one delivery slot for
  `timeout` seconds at most.
- Failures are reported as `Failed` with a fixed text; the transport's own message
  (which would tell a player what answered inside the network) goes to the log only.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field

import httpx

log = logging.getLogger("service.egress")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Awaitable[list[str]]]

NOT_PUBLIC = "the address is not a public one"
NO_ANSWER = "no connection or no answer"
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_GLOBAL_UNICAST = ipaddress.ip_network("2000::/3")
# Inside 2000::/3 but not the internet's: IETF protocol assignments (2001::/23; Teredo,
# 2001::/32, is judged by what it carries before this), documentation (2001:db8::/32,
# 3fff::/20).
_SPECIAL = tuple(ipaddress.ip_network(n) for n in ("2001::/23", "2001:db8::/32", "3fff::/20"))
_SPECIAL_V4 = ipaddress.ip_network("192.0.0.0/24")  # IETF protocol assignments


class Failed(Exception):
    """A message could not be sent; `str()` is safe to show the player."""


async def system_resolver(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def carried(address: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, ...]:
    """The IPv4 addresses a packet to `address` may end up at, when it carries any:
    IPv4-mapped, NAT64 (the well-known prefix), 6to4, and Teredo (its server and its
    client)."""
    if address.ipv4_mapped is not None:
        return (address.ipv4_mapped,)
    if address in _NAT64:
        return (ipaddress.IPv4Address(int(address) & 0xFFFFFFFF),)
    if address.sixtofour is not None:
        return (address.sixtofour,)
    if address.teredo is not None:
        return address.teredo
    return ()


def public(address: Address) -> bool:
    """Whether `address` is on the public internet (and not multicast)."""
    if isinstance(address, ipaddress.IPv4Address):
        return (address.is_global and not address.is_multicast and not address.is_reserved
                and not address.is_loopback and not address.is_link_local
                and address not in _SPECIAL_V4)
    inside = carried(address)
    if inside:
        return all(public(v4) for v4 in inside)
    return (address in _GLOBAL_UNICAST and address.is_global
            and not any(address in special for special in _SPECIAL))


@dataclass(frozen=True)
class Policy:
    """Where notifications may go, and how long one attempt may take in all."""

    allowed: tuple[Network, ...] = ()
    timeout: float = 10.0
    resolver: Resolver = field(default=system_resolver, compare=False)

    @classmethod
    def of(cls, networks: Iterable[str], timeout: float) -> Policy:
        return cls(tuple(ipaddress.ip_network(n.strip(), strict=False) for n in networks),
                   timeout)

    def permits(self, address: Address) -> bool:
        return public(address) or any(address in network for network in self.allowed)


@dataclass(frozen=True)
class Target:
    """A URL and the checked address its connection must go to."""

    url: httpx.URL
    address: Address

    def pinned(self) -> httpx.URL:
        return self.url.copy_with(host=str(self.address))


def parse(url: str) -> httpx.URL:
    """The URL if it is http(s) with a host; Failed otherwise."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError):
        raise Failed("not a valid URL") from None
    if parsed.scheme not in ("http", "https") or not parsed.raw_host:
        raise Failed("only http and https URLs with a host")
    return parsed


async def resolve(url: str, policy: Policy) -> Target:
    """Resolve the URL's host and keep the first permitted address; Failed (with one
    text for "does not resolve" and "resolves only to forbidden addresses") if none."""
    parsed = parse(url)
    host = parsed.raw_host.decode("ascii")
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        found = await policy.resolver(host.strip("[]"), port)
    except (OSError, UnicodeError, ValueError) as error:
        log.info("egress: %s does not resolve: %s", host, error)
        found = []
    for text in found:
        address = ipaddress.ip_address(text.split("%")[0])
        if policy.permits(address):
            return Target(parsed, address)
    if found:
        log.info("egress: refused %s (%s)", host, ", ".join(found))
    raise Failed(NOT_PUBLIC)


async def check(url: str, policy: Policy) -> None:
    """At registration: Failed unless the URL is http(s) and its host resolves, within
    the time limit, to at least one permitted address."""
    try:
        async with asyncio.timeout(policy.timeout):
            await resolve(url, policy)
    except TimeoutError:
        raise Failed(NOT_PUBLIC) from None


def client() -> httpx.AsyncClient:
    """The client for notifications: no proxy from the environment, no redirects,
    no kept connections (each is made to an address checked for it)."""
    return httpx.AsyncClient(trust_env=False, follow_redirects=False,
                             limits=httpx.Limits(max_keepalive_connections=0))


async def post(http: httpx.AsyncClient, url: str, body: bytes, headers: Mapping[str, str],
               policy: Policy) -> int:
    """POST `body` to `url` at a checked address within `policy.timeout` seconds in all;
    the response's status code (its body is not read). Failed on anything else."""
    try:
        async with asyncio.timeout(policy.timeout):
            target = await resolve(url, policy)
            request = http.build_request(
                "POST", target.pinned(), content=body,
                headers={**headers, "host": target.url.netloc.decode("ascii")},
                extensions={"sni_hostname": target.url.raw_host.decode("ascii")},
                timeout=policy.timeout)
            response = await http.send(request, stream=True, follow_redirects=False)
            await response.aclose()
            return response.status_code
    except TimeoutError:
        raise Failed(f"no answer within {policy.timeout:g} s") from None
    except httpx.HTTPError as error:
        log.info("egress: POST to %s failed: %r", url, error)
        raise Failed(NO_ANSWER) from None
