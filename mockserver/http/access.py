"""Who may call the server, and from which web pages: CORS, the admin token, API keys.

One ASGI middleware wraps the routes. It refuses control-plane requests for a ``Host`` name
that is not allowed, first (:mod:`mockserver.http.hosts`: DNS rebinding). It answers CORS
preflights itself (:mod:`mockserver.http.cors`: which pages may read our answers), before
any check of credentials (browsers send none on a preflight); refuses control-plane requests
sent by foreign web pages or without the admin token; refuses ``/v1`` requests (and Azure
OpenAI's, under ``/openai``) without a configured API key; adds the CORS headers to every
answer; and times each exchange for the journal.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from urllib.parse import quote, unquote

from starlette.datastructures import Headers, MutableHeaders, QueryParams
from starlette.requests import cookie_parser
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.errors import APIError, AuthenticationError, GatewayError, SettingsError
from mockserver.families import AZURE_PREFIX, ErrorShape, errors_at
from mockserver.http.cors import OriginPolicy, cors_headers, origin_refused, preflight
from mockserver.http.hosts import HostPolicy, host_name, is_loopback_host
from mockserver.http.responses import error_response
from mockserver.http.routes.base import api_key_of, error_shape
from mockserver.ids import monotonic
from mockserver.render import eventstream, ndjson
from mockserver.settings import Settings
from mockserver.store import Exchange, Store, current_exchange

__all__ = [
    "ADMIN_COOKIE",
    "ADMIN_HEADER",
    "MAX_TIMINGS",
    "Access",
    "check_exposure",
]

CONTROL_PREFIX = "/__mockserver"
API_PREFIX = "/v1"
ADMIN_HEADER = "x-mockserver-admin-token"
ADMIN_COOKIE = "mockserver_admin"
PAGE_PATH = CONTROL_PREFIX + "/"

#: The most write times a stream's journal entry keeps.
MAX_TIMINGS = 10_000

AZURE_ACCESS_DENIED = (
    "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide "
    "a valid key for an active subscription and use a correct regional API endpoint for your "
    "resource."
)
NO_API_KEY = (
    "You didn't provide an API key. You need to provide your API key in an Authorization header "
    "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with "
    "blank username) if you're accessing the API from your browser and are prompted for a "
    "username and password. You can obtain an API key from "
    "https://platform.openai.com/account/api-keys."
)


def check_exposure(settings: Settings) -> None:
    """Refuse to serve the control plane to a network without an admin token."""
    if settings.admin_token or is_loopback_host(settings.host):
        return
    raise SettingsError(
        f"refusing to listen on {settings.host}, which is not a loopback address, without an "
        "admin token: anyone on the network could rewrite the scenarios under /__mockserver/. "
        "Pass --admin-token-file PATH (or set MOCKSERVER_ADMIN_TOKEN_FILE or "
        "MOCKSERVER_ADMIN_TOKEN; --admin-token TOKEN shows it to every local user), or bind to "
        "127.0.0.1."
    )


def _secret_equals(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def _masked(key: str) -> str:
    """How the real API quotes a wrong key: its start and last four characters."""
    if len(key) <= 8:
        return "*" * len(key)
    return key[:3] + "*" * (len(key) - 7) + key[-4:]


def _shape(scope: Scope, headers: Headers) -> ErrorShape:
    query = QueryParams(scope.get("query_string", b""))
    return error_shape(scope["path"], headers, query)


def _host_refused(host: str) -> Response:
    return error_response(
        APIError(
            f"The control plane does not answer requests for the host {host!r}: a web page on "
            "a name that resolves to this machine could drive it (DNS rebinding). If the name "
            f"is yours, start mockserver with --allowed-host {host_name(host)} (or "
            "MOCKSERVER_ALLOWED_HOSTS).",
            status=403,
            type="invalid_request_error",
            code="mockserver_host_not_allowed",
        )
    )


def _admin_refused(headers: Headers, *, given: bool) -> Response:
    if "text/html" in headers.get("accept", ""):
        return HTMLResponse(
            "<!doctype html><title>mockserver</title><p>This mockserver needs its admin token. "
            "Open <code>/__mockserver/?token=YOUR_ADMIN_TOKEN</code> once; a cookie keeps it.",
            status_code=401,
        )
    what = "a wrong admin token" if given else "no admin token"
    return error_response(
        AuthenticationError(
            f"The control plane needs the admin token and got {what}. Send it in the "
            f"{ADMIN_HEADER} header (or open /__mockserver/?token=YOUR_ADMIN_TOKEN in a browser).",
            code="mockserver_admin_token_required",
        )
    )


def _api_key_refused(key: str | None, *, shape: ErrorShape) -> Response:
    if shape == "azure":  # Azure's gateway quotes no key
        return error_response(GatewayError(AZURE_ACCESS_DENIED, status=401), shape=shape)
    if shape == "anthropic":
        message = "x-api-key header is required" if key is None else "invalid x-api-key"
        error = AuthenticationError(message, type="authentication_error")
        return error_response(error, shape=shape)
    if key is None:
        return error_response(APIError(NO_API_KEY, status=401, type="invalid_request_error"))
    return error_response(
        AuthenticationError(
            f"Incorrect API key provided: {_masked(key)}. You can find your API key at "
            "https://platform.openai.com/account/api-keys."
        )
    )


def _google_key_refused(key: str | None) -> Response:
    """Google's answers: no key is a caller without identity (403), a wrong one a 400."""
    if key is None:
        error = APIError(
            "Method doesn't allow unregistered callers (callers without established identity). "
            "Please use API Key or other form of API consumer identity to call this API.",
            status=403,
        )
    else:
        error = APIError("API key not valid. Please pass a valid API key.", status=400)
        error.preset = "invalid_api_key"
    return error_response(error, shape="google")


class Access:
    """The ASGI middleware described in this module's docstring."""

    def __init__(self, app: ASGIApp, *, settings: Settings, store: Store) -> None:
        self.app = app
        self.settings = settings
        self.store = store
        self.policy = OriginPolicy.from_settings(settings)
        self.hosts = HostPolicy.from_list(settings.allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self._socket(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        path: str = scope["path"]
        control = path == CONTROL_PREFIX or path.startswith(CONTROL_PREFIX + "/")
        if control and not self.hosts.allows(headers.get("host")):  # first: DNS rebinding
            await _host_refused(headers.get("host", ""))(scope, receive, send)
            return
        origin = headers.get("origin")
        allow = None
        if origin is not None:
            allow = self.policy.allow(origin, control=control, host=headers.get("host"))
        if (
            origin is not None
            and scope["method"] == "OPTIONS"
            and "access-control-request-method" in headers
        ):
            await preflight(headers, allow, origin=origin)(scope, receive, send)
            return
        if origin is not None and control and allow is None:
            refusal: Response | None = origin_refused(origin)
        else:
            refusal = self._refusal(scope, headers, control=control)
        if refusal is not None:
            if allow is not None:
                refusal.headers.update(cors_headers(allow, shape=_shape(scope, headers)))
            await refusal(scope, receive, send)
            return
        await self._serve(scope, receive, send, allow=allow)

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A WebSocket handshake (at a path with a socket mode: ``upgrades.py``): refused as
        plain HTTP for a page whose origin may not call the API (a browser opens a socket to
        any site, and only the server can say no) or without a configured key; each request
        on the socket is checked again as a request."""
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        refusal: Response | None = None
        if origin is not None and (
            self.policy.allow(origin, control=False, host=headers.get("host")) is None
        ):
            refusal = origin_refused(origin)
        else:
            refusal = self._refusal(scope, headers, control=False)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        from mockserver.http.upgrades import as_http

        await refusal(*await as_http(scope, receive, send))

    def _refusal(self, scope: Scope, headers: Headers, *, control: bool) -> Response | None:
        if control and self.settings.admin_token:
            return self._admin_check(scope, headers, self.settings.admin_token)
        path: str = scope["path"]
        azure = path.startswith(AZURE_PREFIX + "/")
        google = errors_at(path) == "google"
        if self.settings.api_keys and (
            path == API_PREFIX or path.startswith(API_PREFIX + "/") or google or azure
        ):
            query = QueryParams(scope.get("query_string", b""))
            key = api_key_of(headers, query)
            if not any(_secret_equals(key, k) for k in self.settings.api_keys):
                shape = error_shape(path, headers, query)
                if shape == "google":
                    return _google_key_refused(key)
                return _api_key_refused(key, shape=shape)
        return None

    def _admin_check(self, scope: Scope, headers: Headers, token: str) -> Response | None:
        query = QueryParams(scope.get("query_string", b""))
        if scope["path"] == PAGE_PATH and "token" in query:
            if not _secret_equals(query["token"], token):
                return _admin_refused(headers, given=True)
            # Trade the token in the address for a cookie, and drop it from the address bar.
            page = RedirectResponse(PAGE_PATH, status_code=303)
            page.set_cookie(
                ADMIN_COOKIE, quote(token), path=CONTROL_PREFIX, httponly=True, samesite="strict"
            )
            return page
        given = headers.get(ADMIN_HEADER)
        if given is None:
            cookie = cookie_parser(headers.get("cookie", "")).get(ADMIN_COOKIE)
            given = unquote(cookie) if cookie is not None else None
        if _secret_equals(given, token):
            return None
        return _admin_refused(headers, given=given is not None)

    async def _serve(
        self, scope: Scope, receive: Receive, send: Send, *, allow: str | None
    ) -> None:
        exchange = Exchange()
        reset_token = current_exchange.set(exchange)
        started = monotonic()
        writes: list[float] = []
        streamed = False
        completed = False

        async def timed_send(message: Message) -> None:
            nonlocal streamed, completed
            if message["type"] == "http.response.start":
                if allow is not None:
                    cors = cors_headers(allow, shape=_shape(scope, Headers(scope=scope)))
                    _add(MutableHeaders(scope=message), cors)
                streamed = _is_stream(message["headers"], exchange)
            await send(message)
            if message["type"] != "http.response.body" or completed:
                return
            if streamed and exchange.entries and len(writes) < MAX_TIMINGS:
                writes.append(round((monotonic() - started) * 1000, 1))
            if not message.get("more_body", False):
                completed = True
                self._complete(exchange, started, writes if streamed else None)

        try:
            await self.app(scope, receive, timed_send)
        finally:
            current_exchange.reset(reset_token)
            if not completed:  # the client went away, or the answer was cut on purpose
                self._complete(exchange, started, writes if streamed else None, cut=streamed)

    def _complete(
        self, exchange: Exchange, started: float, timing: list[float] | None, *, cut: bool = False
    ) -> None:
        if exchange.entries:
            elapsed = round((monotonic() - started) * 1000, 1)
            self.store.complete(exchange, duration_ms=elapsed, timing=timing, cut=cut)


#: The media types of the families' streams: server-sent events, Ollama's NDJSON, AWS's
#: event stream.
_STREAM_TYPES = (b"text/event-stream", ndjson.MEDIA_TYPE.encode(), eventstream.MEDIA_TYPE.encode())


def _is_stream(raw: list[tuple[bytes, bytes]], exchange: Exchange) -> bool:
    """Is the answer a stream, its writes timed for the journal? One of the stream media
    types, or a body of no stated length answering a request for a stream (Gemini's streamed
    JSON array)."""
    kind, sized = b"", False
    for name, value in raw:
        if name == b"content-type":
            kind = value
        elif name == b"content-length":
            sized = True
    if kind.startswith(_STREAM_TYPES):
        return True
    return not sized and any(entry.stream for _, entry in exchange.entries)


def _add(headers: MutableHeaders, extra: Mapping[str, str]) -> None:
    for name, value in extra.items():
        if name == "vary":
            headers.add_vary_header(value)
        elif name not in headers:
            headers[name] = value
