"""Security headers on every answer (issue 33): the page's Content-Security-Policy (a
`<meta>` cannot carry `frame-ancestors`, so the page could be framed: the GM's, with
its end and rollback buttons, too), one that lets nothing load for the API's answers,
`X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer` everywhere
(docs/security.md, "Security headers"). Plain ASGI middleware: nothing per route."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

PAGE_POLICY = ("default-src 'self'; img-src 'self' data:; object-src 'none'; "
               "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
# The OpenAPI viewers load their scripts and styles from a CDN and inline.
DOCS_POLICY = "frame-ancestors 'none'; object-src 'none'; base-uri 'none'"
API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'"
_DOCS = ("/docs", "/redoc")


def policy_of(path: str) -> str:
    """The Content-Security-Policy an answer on `path` carries."""
    if path == "/play" or path.startswith("/play/"):
        return PAGE_POLICY
    if path.startswith(_DOCS):
        return DOCS_POLICY
    return API_POLICY


class SecurityHeaders:
    """Adds the security headers to every HTTP answer that does not set them itself."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        added = [(b"content-security-policy", policy_of(scope["path"]).encode()),
                 (b"x-content-type-options", b"nosniff"),
                 (b"referrer-policy", b"no-referrer"),
                 (b"x-frame-options", b"DENY")]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {key.lower() for key, _ in headers}
                headers += [(k, v) for k, v in added if k not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
