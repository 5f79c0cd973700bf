"""The client kit at work (issue 18, item 3): the server serves the ES module
(/client/wif.js) and the API's types (/client/wif-api.d.ts) to every origin, while the
API answers other origins only as `CORS_ORIGINS` says. A page of another origin
(another port) imports the module from the server in Chromium, joins a seat, signs an
order with it and the server accepts it (201), and a refusal comes back as a
WifProblem carrying the server's problem; a page of an origin `CORS_ORIGINS` does not
name still imports the module, but neither the page's other scripts nor the API. Node
imports the same module and plays too.

Needs /usr/bin/chromium and the playwright package (scripts/install-browser.sh), and
node for the Node test (skipped without it)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from conftest import LiveServer, local_settings
from js_tools import KIT, TYPES, run_kit
from support import Game, create_game, join
from test_play_page import browser  # noqa: F401 (the fixture)

if TYPE_CHECKING:  # the browser tests fail through the fixture without playwright
    from playwright.async_api import Browser, Page

PAGE = (b"<!doctype html><html lang='en'><meta charset='utf-8'><title>Elsewhere</title>"
        b"<p>A frontend on another origin.</p></html>")


class _Elsewhere(BaseHTTPRequestHandler):
    """A static site of its own: one page, no CORS, nothing of the referee."""

    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="module")
def elsewhere() -> Iterator[int]:
    """The port of the other site, on 127.0.0.1 (a secure context, as localhost is)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Elsewhere)
    thread = threading.Thread(target=server.serve_forever, name="elsewhere", daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    thread.join(timeout=10)
    server.server_close()


@pytest.fixture(scope="module")
def kit_url(migrated_url: str, elsewhere: int) -> Iterator[str]:
    """A real server whose API lets http://127.0.0.1:<elsewhere> call it (CORS_ORIGINS),
    and no other origin."""
    from service.app import create_app

    settings = local_settings(migrated_url, rate_limit=0,
                              cors_origins=[f"http://127.0.0.1:{elsewhere}"])
    with LiveServer(create_app(settings, database_url=migrated_url)) as url:
        yield url


@pytest.fixture
async def http(kit_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=kit_url) as client:
        yield client


async def _two_seated(http: httpx.AsyncClient) -> Game:
    """A game whose Allies and Communists have joined (Python players): the Axis's join,
    the last, begins turn 1 with the initiative reroll window."""
    game = await create_game(http, "mini")
    for side in ("allies", "communists"):
        await join(game, side)
    return game


async def test_the_kit_is_served_to_every_origin_and_the_api_is_not(
    http: httpx.AsyncClient,
) -> None:
    origin = {"Origin": "https://frontend.example"}
    module = await http.get("/client/wif.js", headers=origin)
    assert module.status_code == 200
    assert module.headers["content-type"] == "text/javascript; charset=utf-8"
    assert module.headers["access-control-allow-origin"] == "*"
    assert module.headers["x-content-type-options"] == "nosniff"
    assert module.text == KIT.read_text()
    types = await http.get("/client/wif-api.d.ts", headers=origin)
    assert types.status_code == 200
    assert types.headers["content-type"] == "application/typescript; charset=utf-8"
    assert types.headers["access-control-allow-origin"] == "*"
    assert types.text == TYPES.read_text()
    again = await http.get("/client/wif.js", headers={**origin,
                                                      "If-None-Match": module.headers["etag"]})
    assert again.status_code == 304 and again.headers["access-control-allow-origin"] == "*"
    # Only the kit: the page's other files and the package's are not under /client,
    for path in ("/client/app.js", "/client/keystore.js", "/client/__init__.py",
                 "/client/index.html"):
        assert (await http.get(path)).status_code == 404, path
    # and neither the page's files nor the API are open to an origin not named.
    for path in ("/play/wif.js", "/play/app.js", "/v1/games/nope", "/openapi.json"):
        answer = await http.get(path, headers=origin)
        assert "access-control-allow-origin" not in answer.headers, path
    assert (await http.get("/play/wif.js")).text == KIT.read_text()  # the page's import


# In the page of the other origin: import the kit from the server, join the Axis, sign
# and send the initiative reroll answer, then an order the referee refuses. Every
# request the kit makes goes through `fetch` below, which notes its status.
PLAY_ELSEWHERE = """async ({server, game, code}) => {
  const kit = await import(`${server}/client/wif.js`);
  const seen = [];
  const fetch = async (url, init) => {
    const response = await window.fetch(url, init);
    seen.push(`${init.method} ${new URL(url).pathname}${new URL(url).search} ${response.status}`);
    return response;
  };
  const keys = await kit.generateKeyPair();
  const client = await kit.WifClient.join(server, {game, side: "axis", joinCode: code,
    name: "Elsewhere", keys}, {fetch});
  const summary = await client.summary();
  const preview = await client.order("initiative.reroll", {demand: false}, {dryRun: true});
  const answer = await client.order("initiative.reroll", {demand: false});
  let refusal = null;
  try {
    await client.order("declare", {actions: {germany: "land"}});
  } catch (error) {
    refusal = {name: error.name, isProblem: error instanceof kit.WifProblem,
      status: error.status, code: error.code, detail: error.message, type: error.problem.type};
  }
  return {origin: location.origin, seen, player: client.player, seq: client.seq,
    playerFromKey: await kit.playerIdOf(await kit.exportPublicKey(keys)),
    awaited: summary.awaiting.map((a) => `${a.side} ${a.step}`), preview: preview.valid,
    accepted: answer.accepted, acceptedSeq: answer.seq, refusal,
    extractable: keys.privateKey.extractable};
}"""


async def _page(chromium: Browser, url: str) -> tuple[Page, list[str]]:
    context = await chromium.new_context()
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    await page.goto(url)
    return page, errors


async def test_a_page_of_another_origin_imports_the_kit_signs_and_is_accepted(
    browser: Browser, http: httpx.AsyncClient, kit_url: str, elsewhere: int,  # noqa: F811
) -> None:
    game = await _two_seated(http)
    page, errors = await _page(browser, f"http://127.0.0.1:{elsewhere}/")
    got = await page.evaluate(PLAY_ELSEWHERE, {"server": kit_url, "game": game.id,
                                               "code": game.join_codes["axis"]})
    await page.context.close()
    assert got["origin"] == f"http://127.0.0.1:{elsewhere}" != kit_url
    orders = f"/v1/games/{game.id}/orders"
    assert got["seen"] == [
        f"POST /v1/games/{game.id}/seats/axis 201",
        f"GET /v1/games/{game.id} 200",
        f"GET /v1/games/{game.id} 200", f"POST {orders}?dry_run=true 200",
        f"GET /v1/games/{game.id} 200", f"POST {orders} 201",
        f"GET /v1/games/{game.id} 200", f"POST {orders} 409",
    ]
    assert got["player"] == got["playerFromKey"] and got["extractable"] is False
    assert "axis initiative.reroll" in got["awaited"]
    assert got["preview"] is True
    assert got["accepted"] is True and got["acceptedSeq"] == 1
    assert got["seq"] == 2  # the refused order used seq 2
    assert got["refusal"]["isProblem"] and got["refusal"]["name"] == "WifProblem"
    assert got["refusal"]["status"] == 409
    assert got["refusal"]["type"] == f"/problems/{got['refusal']['code']}"
    assert got["refusal"]["detail"]
    assert errors == []
    # The server holds the Axis's answer: it no longer awaits the Axis's reroll.
    summary = (await http.get(f"/v1/games/{game.id}", headers=game.gm)).json()
    assert ["axis", "initiative.reroll"] not in [[a["side"], a["step"]]
                                                 for a in summary["awaiting"]]


NOT_NAMED = """async ({server}) => {
  const outcome = async (work) => {
    try { await work(); return "ok"; } catch (error) { return `${error.name}: ${error.message}`; }
  };
  const kit = await import(`${server}/client/wif.js`);
  return {
    origin: location.origin,
    kit: typeof kit.signOrder,
    page: await outcome(() => import(`${server}/play/dom.js`)),
    api: await outcome(() => new kit.WifClient(server, null, {game: "nope"}).summary()),
  };
}"""


async def test_an_origin_cors_origins_does_not_name_imports_the_kit_but_not_the_api(
    browser: Browser, kit_url: str, elsewhere: int,  # noqa: F811
) -> None:
    # localhost and 127.0.0.1 are two origins: only the second is in CORS_ORIGINS.
    page, _ = await _page(browser, f"http://localhost:{elsewhere}/")
    got = await page.evaluate(NOT_NAMED, {"server": kit_url})
    await page.context.close()
    assert got["origin"] == f"http://localhost:{elsewhere}"
    assert got["kit"] == "function"
    assert got["page"].startswith("TypeError")  # /play/dom.js: no CORS for this origin
    assert got["api"].startswith("WifProblem: the server cannot be reached")
    assert got["api"].endswith(f"a page of http://localhost:{elsewhere} may call {kit_url} "
                               "only if the server's CORS_ORIGINS names it")


NODE_PLAYS = """
  const seen = [];
  const fetch = async (url, init) => {
    const response = await globalThis.fetch(url, init);
    seen.push(`${init.method} ${new URL(url).pathname} ${response.status}`);
    return response;
  };
  const keys = await kit.importKeyPair(data.seed);
  const client = await kit.WifClient.join(data.server, {game: data.game, side: "axis",
    joinCode: data.code, name: "Node", keys}, {fetch});
  const answer = await client.order("initiative.reroll", {demand: false});
  const state = await client.state();
  return {seen, accepted: answer.accepted, me: state.me, seat: client.seat.side};
"""


async def test_node_imports_the_kit_joins_and_plays(http: httpx.AsyncClient,
                                                    kit_url: str) -> None:
    from service.crypto import signing

    game = await _two_seated(http)
    key = signing.new_private_key()  # as `wif keygen` makes it: raw 32 bytes
    got = await asyncio.to_thread(run_kit, NODE_PLAYS, {
        "server": kit_url, "game": game.id, "code": game.join_codes["axis"],
        "seed": signing.b64url_encode(key.private_bytes_raw())})
    assert got["seen"] == [f"POST /v1/games/{game.id}/seats/axis 201",
                           f"GET /v1/games/{game.id} 200", f"POST /v1/games/{game.id}/orders 201",
                           f"GET /v1/games/{game.id}/state 200"]
    assert got["accepted"] is True and got["seat"] == "axis"
    assert got["me"]["side"] == "axis"


NODE_RESENDS = """
  const bodies = [];
  let lose = 1;
  const fetch = async (url, init) => {
    const response = await globalThis.fetch(url, init);
    if (init.method === "POST" && new URL(url).pathname.endsWith("/orders")) {
      bodies.push(init.body);
      if (lose > 0) {
        lose -= 1;
        throw new TypeError("fetch failed: the answer was lost on its way back");
      }
    }
    return response;
  };
  const keys = await kit.importKeyPair(data.seed);
  const client = await kit.WifClient.join(data.server, {game: data.game, side: "axis",
    joinCode: data.code, name: "Node", keys}, {fetch, resendWaits: [10, 10, 10]});
  const answer = await client.order("initiative.reroll", {demand: false});
  lose = 4;
  let unanswered = null;
  try {
    await client.order("standing", {step: "initiative.reroll", demand: false});
  } catch (error) {
    unanswered = error.problem;
  }
  const again = await client.send(unanswered.sent);
  return {bodies, accepted: answer.accepted, code: unanswered.code, again: again.accepted,
    seq: client.seq};
"""


async def test_the_kit_resends_the_identical_signed_bytes_never_a_new_signature(
    http: httpx.AsyncClient, kit_url: str,
) -> None:
    """docs/security.md, "Resend, never re-sign": an order whose answer was lost goes
    again byte for byte (the server answers it from what it stored); one that every try
    lost is handed back as `order/unanswered` with its bytes, and sending those later
    takes it once. No second signature, so no second roll."""
    from service.crypto import signing

    game = await _two_seated(http)
    key = signing.new_private_key()
    got = await asyncio.to_thread(run_kit, NODE_RESENDS, {
        "server": kit_url, "game": game.id, "code": game.join_codes["axis"],
        "seed": signing.b64url_encode(key.private_bytes_raw())})
    bodies = got["bodies"]
    assert len(bodies) == 7 and bodies[0] == bodies[1]
    assert len(set(bodies[2:])) == 1 and bodies[2] != bodies[0]
    assert got["accepted"] is True and got["again"] is True
    assert got["code"] == "order/unanswered" and got["seq"] == 2
    log = (await http.get(f"/v1/games/{game.id}/log", headers=game.gm)).json()["events"]
    assert sum(1 for e in log if e["kind"] == "standing.armed") == 1


NODE_WAITS_AS_TOLD = """
  const sent = [];
  let refuse = 1;
  const fetch = async (url, init) => {
    if (init.method === "POST" && new URL(url).pathname.endsWith("/orders")) {
      sent.push(Date.now());
      if (refuse > 0) {
        refuse -= 1;
        return new Response(JSON.stringify({status: 429, code: "request/rate_limited",
          detail: "too many requests"}), {status: 429, headers: {
            "Content-Type": "application/problem+json", "Retry-After": "1"}});
      }
    }
    return globalThis.fetch(url, init);
  };
  const keys = await kit.importKeyPair(data.seed);
  const client = await kit.WifClient.join(data.server, {game: data.game, side: "axis",
    joinCode: data.code, name: "Node", keys}, {fetch, resendWaits: [10, 10, 10]});
  const answer = await client.order("initiative.reroll", {demand: false});
  return {waited: sent[1] - sent[0], tries: sent.length, accepted: answer.accepted};
"""


async def test_the_kit_resends_after_a_429_no_sooner_than_its_retry_after(
    http: httpx.AsyncClient, kit_url: str,
) -> None:
    """Issue 33: a client asking again before its Retry-After gets its next 429 after a
    pause (RATE_LIMIT_PAUSE); the kit waits as told (here 1 s, though its own wait
    before a resend is 10 ms), then sends the same bytes, taken once."""
    from service.crypto import signing

    game = await _two_seated(http)
    key = signing.new_private_key()
    got = await asyncio.to_thread(run_kit, NODE_WAITS_AS_TOLD, {
        "server": kit_url, "game": game.id, "code": game.join_codes["axis"],
        "seed": signing.b64url_encode(key.private_bytes_raw())})
    assert got["tries"] == 2 and got["accepted"] is True
    assert got["waited"] >= 1000
