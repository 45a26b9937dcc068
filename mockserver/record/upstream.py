"""Where a recorded call goes upstream, and how a recording's own key goes with it, by the
provider whose API it is: OpenAI's APIs under the base URL given (``https://api.openai.com/v1``:
the path after its ``/v1``), Azure OpenAI's from the resource's root (its paths start with
``/openai``), Bedrock's from the host's root (``/model/…``), Google's from the host's root too,
whatever version the base URL names (a Gemini path names its own, ``/v1beta/models/…``:
``https://generativelanguage.googleapis.com`` and ``…/v1beta`` are the same upstream). Pure:
text in, text out."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, urlencode

from mockserver.families import Provider

__all__ = ["upstream_headers", "upstream_query", "upstream_url"]

#: A base URL's trailing API version (``/v1``, ``/v1beta``, ``/v1beta1``).
_VERSION = re.compile(r"/v\d+(?:(?:alpha|beta)\d*)?\Z")
#: The headers a client's key is sent in, that a recording's own key replaces.
_KEY_HEADERS = frozenset({"authorization", "api-key"})
_GOOGLE_KEY_HEADERS = frozenset({"authorization", "x-goog-api-key"})
_REPLACED = {
    "google": _GOOGLE_KEY_HEADERS,
    "anthropic": frozenset({"authorization", "x-api-key"}),
}


def upstream_url(
    upstream: str, path: str, query: str = "", *, provider: Provider = "openai"
) -> str:
    """The URL of a call to ``path`` (``?query``) of ``provider``'s API at ``upstream``."""
    base = upstream.rstrip("/")
    if provider == "google":
        url = _VERSION.sub("", base) + path
    elif provider == "azure":
        url = base + path
    elif path.startswith("/v1/"):
        url = base + path.removeprefix("/v1")
    else:  # a path from the root (Bedrock's ``/model/…``)
        url = base.removesuffix("/v1") + path
    return url + (f"?{query}" if query else "")


def upstream_query(query: str, *, key: str | None) -> str:
    """The query sent upstream: as the client sent it, or, with a recording's own ``key``,
    without the client's ``?key=`` (the key goes in a header)."""
    if key is None or "key=" not in query:
        return query
    kept = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != "key"]
    return urlencode(kept)


def upstream_headers(
    headers: Iterable[tuple[str, str]], *, key: str | None, provider: Provider = "openai"
) -> list[tuple[str, str]]:
    """``headers`` with a recording's own ``key`` in place of the client's credentials, sent
    the way the provider's own clients send it (Google's ``x-goog-api-key``, Azure's
    ``api-key``, Anthropic's ``x-api-key`` unless the client sent a bearer token, else a bearer
    token); without one, as they are."""
    if key is None:
        return list(headers)
    headers = list(headers)
    replaced = _REPLACED.get(provider, _KEY_HEADERS)
    kept = [(k, v) for k, v in headers if k.lower() not in replaced]
    sent = {"google": ("x-goog-api-key", key), "azure": ("api-key", key)}
    named = {k.lower() for k, _ in headers}
    if provider == "anthropic" and "authorization" not in named:  # x-api-key, as the SDK's
        return [*kept, ("x-api-key", key)]  # older line and Claude Code send it
    return [*kept, sent.get(provider, ("authorization", f"Bearer {key}"))]
