"""AWS Signature Version 4 for recording from Bedrock itself (and checking its drift).

A boto3 client pointed at the recording proxy signs its request for the proxy's host, with
whatever credentials it has; AWS would refuse that signature. The proxy signs the request
again, as it goes upstream, with the credentials of the process that records (the usual AWS
variables of its environment), in the region and for the service the client signed for (read
from the client's credential scope, else from a ``bedrock-runtime.<region>.amazonaws.com``
upstream). The algorithm is AWS's, as botocore implements it (``SigV4Auth``); the tests compare
the two byte for byte. Pure: text in, text out; "now" is the caller's.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from collections.abc import Iterable, Mapping
from urllib.parse import parse_qsl, quote, urlsplit

from mockserver.values import value_class

__all__ = ["AwsCredentials", "aws_credentials", "resign", "signing_scope"]

ALGORITHM = "AWS4-HMAC-SHA256"
#: The client's signing headers: replaced by the proxy's own.
_SIGNING = frozenset(
    {"authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256"}
)
#: Headers never signed (botocore's list: hop by hop, tracing, or changed on the way).
_UNSIGNED = frozenset(
    {
        "baggage",
        "connection",
        "expect",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "traceparent",
        "tracestate",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "user-agent",
        "x-amzn-trace-id",
    }
)
_SCOPE = re.compile(r"Credential=[^/,\s]+/\d{8}/([a-z0-9-]+)/([a-z0-9-]+)/aws4_request")
_REGION_HOST = re.compile(r"\A[a-z-]+\.([a-z]{2}(?:-[a-z]+)+-\d+)\.amazonaws\.com\Z")


@value_class
class AwsCredentials:
    """The credentials a recording signs with (never written anywhere)."""

    access_key_id: str
    secret_access_key: str
    session_token: str | None = None
    #: The region signed for when the request does not say (``AWS_REGION``).
    region: str | None = None

    def __repr__(self) -> str:  # never print the secret
        return f"AwsCredentials(access_key_id={self.access_key_id!r}, …)"


def aws_credentials(environ: Mapping[str, str]) -> AwsCredentials | None:
    """The credentials ``AWS_ACCESS_KEY_ID`` and ``AWS_SECRET_ACCESS_KEY`` (with
    ``AWS_SESSION_TOKEN`` and ``AWS_REGION`` or ``AWS_DEFAULT_REGION``, if set) of
    ``environ``; ``None`` without both."""
    key, secret = environ.get("AWS_ACCESS_KEY_ID"), environ.get("AWS_SECRET_ACCESS_KEY")
    if not key or not secret:
        return None
    region = environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION") or None
    return AwsCredentials(key, secret, environ.get("AWS_SESSION_TOKEN") or None, region)


def signing_scope(
    headers: Iterable[tuple[str, str]], url: str, *, region: str | None = None
) -> tuple[str, str] | None:
    """``(region, service)`` the request is for: the client's signature's scope, else the
    upstream host's region for Bedrock Runtime, else ``region``; ``None`` if none says."""
    for name, value in headers:
        if name.lower() == "authorization" and (found := _SCOPE.search(value)):
            return found[1], found[2]
    host = urlsplit(url).hostname or ""
    if found := _REGION_HOST.match(host):
        return found[1], "bedrock"
    return None if region is None else (region, "bedrock")


def resign(
    method: str,
    url: str,
    headers: Iterable[tuple[str, str]],
    body: bytes,
    *,
    credentials: AwsCredentials,
    scope: tuple[str, str],
    now: float,
) -> list[tuple[str, str]]:
    """``headers`` with the client's signature replaced by one of ``credentials`` for the
    request to ``url`` (its path as sent, percent-encoded), made at ``now`` (epoch seconds)."""
    region, service = scope
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
    kept = [(k, v) for k, v in headers if k.lower() not in _SIGNING]
    kept.append(("x-amz-date", stamp))
    if credentials.session_token is not None:
        kept.append(("x-amz-security-token", credentials.session_token))
    parts = urlsplit(url)
    signed = _signed_headers(kept, host=parts.netloc)
    names = ";".join(signed)
    canonical = "\n".join(
        [
            method.upper(),
            quote(parts.path or "/", safe="/~"),
            _canonical_query(parts.query),
            "".join(f"{name}:{value}\n" for name, value in signed.items()),
            names,
            hashlib.sha256(body).hexdigest(),
        ]
    )
    day = stamp[:8]
    credential_scope = f"{day}/{region}/{service}/aws4_request"
    to_sign = "\n".join(
        [ALGORITHM, stamp, credential_scope, hashlib.sha256(canonical.encode()).hexdigest()]
    )
    key = _signing_key(credentials.secret_access_key, day, region, service)
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    kept.append(
        (
            "authorization",
            f"{ALGORITHM} Credential={credentials.access_key_id}/{credential_scope}, "
            f"SignedHeaders={names}, Signature={signature}",
        )
    )
    return kept


def _signed_headers(headers: Iterable[tuple[str, str]], *, host: str) -> dict[str, str]:
    """The signed headers, lower-case names in order, each value trimmed (inner runs of
    spaces made one), repeated ones joined with commas; ``host`` as it is sent."""
    signed: dict[str, list[str]] = {"host": [host]}
    for name, value in headers:
        lowered = name.lower()
        if lowered in _UNSIGNED or lowered == "host":
            continue
        signed.setdefault(lowered, []).append(" ".join(value.split()))
    return {name: ",".join(signed[name]) for name in sorted(signed)}


def _canonical_query(query: str) -> str:
    pairs = parse_qsl(query, keep_blank_values=True)
    encoded = sorted((quote(k, safe="-_.~"), quote(v, safe="-_.~")) for k, v in pairs)
    return "&".join(f"{k}={v}" for k, v in encoded)


def _signing_key(secret: str, day: str, region: str, service: str) -> bytes:
    key = f"AWS4{secret}".encode()
    for part in (day, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key
