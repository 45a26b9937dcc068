"""Which request headers carry credentials, and the journal's copy of headers with them masked.

Outside ``record/`` so that serving a request does not import record & replay (a recording
masks the same headers: ``record/redact.py`` reads them from here).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from urllib.parse import parse_qsl

__all__ = ["MASK", "SECRET_HEADERS", "credentials_in", "journaled_headers"]

#: What a masked secret reads as in a written file.
MASK = "[REDACTED]"
#: Headers whose values are credentials or session state: never written.
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "api-key",
        "x-api-key",
        "x-goog-api-key",
        "x-amz-security-token",
        "openai-organization",
        "openai-project",
        # the organization an Anthropic key belongs to (sent on every answer)
        "anthropic-organization-id",
        "cookie",
        "set-cookie",
    }
)


def journaled_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Every header (lower-case names) as the journal keeps it: a secret header's value masked
    and the credentials it carries masked wherever another value repeats them, as a recording
    masks them (it leaves the secret headers out; the journal shows that they were sent).
    Made on every request: the usual case (ASGI's lower-case names, no credential repeated)
    costs a copy of the headers and a few lookups."""
    kept = dict(headers)
    names = "".join(kept)
    if names != names.lower():  # names as a client wrote them (lower() has an ASCII fast path,
        kept = {k.lower(): v for k, v in kept.items()}  # islower() has not)
    secret = SECRET_HEADERS.intersection(kept)
    if not secret:
        return kept
    found = _credentials(tuple([(name, kept[name]) for name in secret]))
    for name in secret:
        kept[name] = MASK
    sent = "\n".join(kept.values())
    for value in found:  # (a loop, not any(): this runs for every request)
        if value in sent:
            break
    else:  # no other header repeats a credential
        return kept
    from mockserver.record.redact import Redactor  # rare: a credential repeated elsewhere

    redactor = Redactor().with_secrets(found)
    return {k: v if k in secret else redactor.text(v) for k, v in kept.items()}


#: A client sends the same credentials on every request: what they hold, found once (kept in
#: memory as the requests' headers are, never written).
@functools.lru_cache(maxsize=256)
def _credentials(headers: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    return tuple(credentials_in(headers))


def credentials_in(headers: Iterable[tuple[str, str]], query: str = "") -> list[str]:
    """The credential values among request headers (a bearer token without its scheme, an
    AWS signature's access key id and signature) and in the query (Google's ``?key=``)."""
    found = [value for name, value in parse_qsl(query) if name == "key" and value] if query else []
    for name, value in headers:
        if name.lower() in SECRET_HEADERS and value:
            found.append(value)
            scheme, _, token = value.partition(" ")
            if scheme.lower() in ("bearer", "basic") and token.strip():
                found.append(token.strip())
            elif scheme == "AWS4-HMAC-SHA256":
                found += _signed(token)
    return found


def _signed(token: str) -> list[str]:
    """The access key id and the signature of a SigV4 ``Authorization`` value."""
    found = []
    for part in token.split(","):
        name, _, value = part.strip().partition("=")
        if name == "Credential" and value.split("/")[0]:
            found.append(value.split("/")[0])
        elif name == "Signature" and value:
            found.append(value)
    return found
