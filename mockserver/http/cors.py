"""Which web pages may read our answers (CORS): the origins allowed, the headers a browser
may send and read, the preflight's answer and a refused page's."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import Response

from mockserver.errors import APIError
from mockserver.families import ErrorShape
from mockserver.http.hosts import is_loopback_host
from mockserver.http.responses import error_response
from mockserver.settings import Settings
from mockserver.values import value_class

__all__ = [
    "ALLOWED_METHODS",
    "ANTHROPIC_EXPOSED_HEADERS",
    "DEFAULT_ALLOWED_HEADERS",
    "EXPOSED_HEADERS",
    "OriginPolicy",
    "cors_headers",
    "origin_refused",
    "preflight",
]

#: Response headers the OpenAI SDKs read; a browser hides any header not listed here.
EXPOSED_HEADERS = (
    "x-request-id",
    "openai-processing-ms",
    "openai-version",
    "openai-organization",
    "openai-project",
    "retry-after",
    "retry-after-ms",
    "x-ratelimit-limit-requests",
    "x-ratelimit-limit-tokens",
    "x-ratelimit-remaining-requests",
    "x-ratelimit-remaining-tokens",
    "x-ratelimit-reset-requests",
    "x-ratelimit-reset-tokens",
    "apim-request-id",
)
#: Response headers the Anthropic SDKs read (the same rule, for answers in Anthropic's shape).
ANTHROPIC_EXPOSED_HEADERS = (
    "request-id",
    "anthropic-organization-id",
    "retry-after",
    "x-should-retry",
    *(
        f"anthropic-ratelimit-{kind}-{part}"
        for kind in ("requests", "tokens", "input-tokens", "output-tokens")
        for part in ("limit", "remaining", "reset")
    ),
)
_EXPOSED = {"openai": ", ".join(EXPOSED_HEADERS), "anthropic": ", ".join(ANTHROPIC_EXPOSED_HEADERS)}
#: Allowed when a preflight names no headers (normally the request's own list is reflected).
DEFAULT_ALLOWED_HEADERS = (
    "authorization, api-key, content-type, openai-organization, openai-project, openai-beta, "
    "idempotency-key, x-stainless-arch, x-stainless-lang, x-stainless-os, "
    "x-stainless-package-version, x-stainless-retry-count, x-stainless-runtime, "
    "x-stainless-runtime-version, x-stainless-timeout, x-mockserver-session, "
    "x-mockserver-scenario, x-mockserver-admin-token"
)
ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
#: A list of header names (RFC 9110 tokens), the only thing we reflect back.
_HEADER_LIST = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*,\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*")


@value_class
class OriginPolicy:
    """Which web pages may read our answers.

    ``/v1`` serves any page (``*``) on loopback unless a list is configured. The control plane
    never serves ``*``: only listed origins, pages on loopback, and the server's own pages (the
    inspector), so a web site a developer happens to visit cannot rewrite the scenarios."""

    listed: frozenset[str]
    any_for_api: bool

    @classmethod
    def from_settings(cls, settings: Settings) -> OriginPolicy:
        listed = frozenset(o.rstrip("/").lower() for o in settings.cors_origins if o != "*")
        any_for_api = "*" in settings.cors_origins or (
            not settings.cors_origins and is_loopback_host(settings.host)
        )
        return cls(listed, any_for_api)

    def allow(self, origin: str, *, control: bool, host: str | None) -> str | None:
        """The ``Access-Control-Allow-Origin`` value for ``origin``, or ``None`` (refused)."""
        normal = origin.rstrip("/").lower()
        if normal in self.listed or _same_origin(normal, host):
            return origin
        if control:
            return origin if _is_loopback_origin(normal) else None
        return "*" if self.any_for_api else None


def _same_origin(origin: str, host: str | None) -> bool:
    try:
        return host is not None and urlsplit(origin).netloc == host.lower()
    except ValueError:  # not a URL (``http://[``): no origin of ours
        return False


def _is_loopback_origin(origin: str) -> bool:
    try:
        parts = urlsplit(origin)
        hostname = parts.hostname or ""
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and is_loopback_host(hostname)


def cors_headers(allow: str, *, shape: ErrorShape) -> dict[str, str]:
    """The CORS headers of an answer to a page ``allow`` lets read it, in the family's shape
    (the headers its SDK reads, exposed)."""
    headers = {
        "access-control-allow-origin": allow,
        "access-control-expose-headers": _EXPOSED.get(shape, _EXPOSED["openai"]),
    }
    if allow != "*":
        headers["vary"] = "Origin"
    return headers


def preflight(headers: Headers, allow: str | None, *, origin: str) -> Response:
    """The answer to a preflight (``allow``: what :meth:`OriginPolicy.allow` said)."""
    if allow is None:
        return origin_refused(origin)
    requested = headers.get("access-control-request-headers", "").strip()
    answer = {
        "access-control-allow-origin": allow,
        "access-control-allow-methods": ALLOWED_METHODS,
        "access-control-allow-headers": (
            requested if _HEADER_LIST.fullmatch(requested) else DEFAULT_ALLOWED_HEADERS
        ),
        "access-control-max-age": "600",
        "vary": "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
    }
    if headers.get("access-control-request-private-network") == "true":
        # Chrome asks before a public page may call a loopback server.
        answer["access-control-allow-private-network"] = "true"
    return Response(status_code=204, headers=answer)


def origin_refused(origin: str) -> Response:
    """The 403 of a page the policy does not let call."""
    return error_response(
        APIError(
            f"Requests from the web page at {origin} are not allowed here. Start mockserver "
            f"with --cors-origin {origin} (or MOCKSERVER_CORS_ORIGINS) to allow them.",
            status=403,
            type="invalid_request_error",
            code="mockserver_origin_not_allowed",
        )
    )
