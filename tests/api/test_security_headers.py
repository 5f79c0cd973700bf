"""Security headers as headers (issue 33): the page's Content-Security-Policy with
`frame-ancestors 'none'` (a `<meta>` policy cannot say it), a policy that loads
nothing on the API's answers, `X-Content-Type-Options` and `Referrer-Policy` on every
answer, refusals by the limits included (docs/security.md, "Security headers")."""

from __future__ import annotations

import httpx
from conftest import local_settings

from service.api.headers import API_POLICY, PAGE_POLICY
from service.app import create_app


def _secured(r: httpx.Response, policy: str) -> None:
    assert r.headers["content-security-policy"] == policy, r.request.url
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "no-referrer"
    assert r.headers["x-frame-options"] == "DENY"


async def test_the_page_sends_its_policy_as_a_header_and_no_meta(
        client: httpx.AsyncClient) -> None:
    r = await client.get("/play/")
    assert r.status_code == 200
    _secured(r, PAGE_POLICY)
    assert "http-equiv" not in r.text  # one policy, in the header only
    for path in ("/play/app.js", "/play/style.css"):
        _secured(await client.get(path), PAGE_POLICY)


async def test_every_api_answer_carries_the_headers(client: httpx.AsyncClient) -> None:
    for r in (await client.get("/healthz"), await client.get("/v1/games"),
              await client.post("/v1/games", json={"name": 7}),
              await client.get("/v1/nowhere"), await client.get("/openapi.json"),
              await client.get("/client/wif.js")):
        _secured(r, API_POLICY)
    assert (await client.get("/v1/games")).status_code == 401


async def test_a_refusal_by_the_limits_carries_them_too(migrated_url: str) -> None:
    app = create_app(local_settings(migrated_url, rate_limit=1, rate_burst=1,
                                    rate_limit_address=1, rate_burst_address=1,
                                    rate_limit_shared=False, max_body_bytes=10),
                     database_url=migrated_url)
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        too_big = await client.post("/v1/games", content=b"x" * 100)
        assert too_big.status_code == 413
        _secured(too_big, API_POLICY)
        limited = await client.get("/v1/games")
        assert limited.status_code == 429
        _secured(limited, API_POLICY)
