"""The reference play page (issue 8, item 4): static files served at `/play`.

No build step: `index.html`, `style.css` and plain ES modules (`app.js` and its
helpers). The page talks only to this server's `/v1` API; orders are signed in the
browser with a WebCrypto Ed25519 key that never leaves it.
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


def mount(app: Starlette, path: str = "/play") -> None:
    """Serve the page at `path` (`/play` redirects to `/play/`)."""
    app.mount(path, PageFiles(directory=FOLDER, html=True), name="play")
