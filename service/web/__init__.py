"""The reference play page (issue 8, item 4): static files served at `/play`; and the
client kit (issue 18, item 3) at `/client`.

No build step: `index.html`, `style.css` and plain ES modules (`app.js` and its
helpers). The page talks only to this server's `/v1` API; orders are signed in the
browser with a WebCrypto Ed25519 key that never leaves it.

The client kit is `wif.js`, the ES module the page signs and calls the API with, which
any frontend may import from any origin (`/client/wif.js`, with
`Access-Control-Allow-Origin: *`), and `wif-api.d.ts`, the API's TypeScript types
(written by scripts/client_types.py). The API's own CORS stays `CORS_ORIGINS`'s.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

FOLDER = Path(__file__).resolve().parent
SERVED_SUFFIXES = frozenset({".html", ".js", ".css", ".svg", ".png"})


class PageFiles(StaticFiles):
    """StaticFiles for this folder that serves only the page's own kinds of files (not
    this module or its bytecode) and asks browsers to revalidate, so an upgraded server
    is never paired with stale scripts."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        suffix = os.path.splitext(path)[1]
        if suffix and suffix not in SERVED_SUFFIXES:
            raise HTTPException(status_code=404)
        return await super().get_response(path, scope)

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "no-cache"
        return response


class ClientFiles(StaticFiles):
    """The client kit's files, and nothing else of this folder, each with its media type
    and open to every origin: a page anywhere may import the module."""

    MEDIA_TYPES = {
        "wif.js": "text/javascript; charset=utf-8",
        "wif-api.d.ts": "application/typescript; charset=utf-8",
    }

    async def get_response(self, path: str, scope: Scope) -> Response:
        media_type = self.MEDIA_TYPES.get(path)
        if media_type is None:
            raise HTTPException(status_code=404)
        response = await super().get_response(path, scope)
        if response.status_code == 200:
            response.headers["Content-Type"] = media_type
        response.headers["Access-Control-Allow-Origin"] = "*"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Cache-Control"] = "no-cache"
        return response


def mount(app: Starlette, path: str = "/play") -> None:
    """Serve the page at `path` (`/play` redirects to `/play/`) and the client kit at
    `/client` (`/client/wif.js`, `/client/wif-api.d.ts`)."""
    app.mount(path, PageFiles(directory=FOLDER, html=True), name="play")
    app.mount("/client", ClientFiles(directory=FOLDER), name="client")
