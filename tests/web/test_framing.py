"""The page cannot be framed (issue 33): Chromium, asked to show `/play/` in a frame of
another origin, refuses it for the `frame-ancestors 'none'` the page's
Content-Security-Policy header carries, so a GM's page (its end and rollback buttons)
cannot be put under another site's clicks. The same page opened on its own loads.

Needs /usr/bin/chromium and the playwright package: scripts/install-browser.sh."""

from __future__ import annotations

import asyncio
import http.server
import threading
import time
from collections.abc import Iterator

import pytest
from test_event_source import WAIT_MS, browser  # noqa: F401 - the module's fixture

try:
    from playwright.async_api import Browser
except ImportError:  # the `browser` fixture reports it
    Browser = object  # type: ignore[assignment,misc]


@pytest.fixture
def framing_site(live_url: str) -> Iterator[str]:
    """A page of another origin (another port) that frames the play page."""
    html = f'<!doctype html><iframe id="f" src="{live_url}/play/"></iframe>'.encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the standard library's name
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(html)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


async def test_another_site_cannot_frame_the_page(
        live_url: str, framing_site: str, browser: Browser) -> None:  # noqa: F811
    context = await browser.new_context()
    context.set_default_timeout(WAIT_MS)
    try:
        page = await context.new_page()
        refused: list[str] = []
        page.on("console", lambda m: refused.append(m.text) if "frame" in m.text else None)
        await page.goto(framing_site)
        deadline = time.monotonic() + WAIT_MS / 1000
        while not refused:
            assert time.monotonic() < deadline, "the frame was neither refused nor loaded"
            await asyncio.sleep(0.05)
        assert "frame-ancestors" in refused[0], refused
        framed = next(f for f in page.frames if f is not page.main_frame)
        assert not framed.url.startswith(live_url)  # an error page, not the play page
        alone = await context.new_page()
        await alone.goto(f"{live_url}/play/")
        assert await alone.title() == "WiF referee · play"
    finally:
        await context.close()
