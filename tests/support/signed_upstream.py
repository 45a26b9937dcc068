"""A Bedrock upstream on loopback that checks each request's SigV4 signature as AWS does
(botocore's own signer, over the headers the signature names) and refuses a wrong one with
AWS's 403: what recording from Bedrock itself is tested against."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.http.app import create_app
from mockserver.http.server import BackgroundServer
from mockserver.record.sigv4 import AwsCredentials
from mockserver.settings import Settings

__all__ = ["RECORDER", "signed_upstream"]

RECORDER = AwsCredentials(
    "AKIARECORDER00000001", "recorders/secret+key", "session-token-9", region="us-east-1"
)
_AUTH = re.compile(
    r"AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/\d{8}/(?P<region>[^/]+)/(?P<service>[^/]+)/"
    r"aws4_request, SignedHeaders=(?P<names>[^,]+), Signature=(?P<signature>[0-9a-f]{64})"
)


class CheckedSignatures:
    """ASGI middleware: a request is let through only with a valid signature by ``RECORDER``;
    ``seen`` keeps each request's verdict."""

    def __init__(self, app: ASGIApp, *, seen: list[str]) -> None:
        self.app = app
        self.seen = seen

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        verdict = _verdict(scope, body)
        self.seen.append(verdict)
        if verdict != "valid":
            answer = json.dumps({"message": f"signature: {verdict}"}).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"x-amzn-errortype", b"InvalidSignatureException:http://internal.amazon.com/"),
            ]
            await send({"type": "http.response.start", "status": 403, "headers": headers})
            await send({"type": "http.response.body", "body": answer})
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _verdict(scope: Scope, body: bytes) -> str:
    headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
    found = _AUTH.fullmatch(headers.get("authorization", ""))
    if found is None:
        return "no SigV4 authorization"
    if found["key"] != RECORDER.access_key_id:
        return f"signed by {found['key']}"
    host = headers["host"]
    url = f"http://{host}{scope['raw_path'].decode()}"
    signed = {name: headers[name] for name in found["names"].split(";")}
    request = AWSRequest(method=scope["method"], url=url, data=body, headers=signed)
    request.context["timestamp"] = headers["x-amz-date"]
    credentials = Credentials(
        RECORDER.access_key_id, RECORDER.secret_access_key, RECORDER.session_token
    )
    signer = SigV4Auth(credentials, found["service"], found["region"])
    expected = signer.signature(
        signer.string_to_sign(request, signer.canonical_request(request)), request
    )
    if headers.get("x-amz-security-token") != RECORDER.session_token:
        return "no session token"
    return "valid" if expected == found["signature"] else "signature mismatch"


@contextmanager
def signed_upstream() -> Iterator[tuple[BackgroundServer, list[str]]]:
    """A Bedrock upstream on loopback that checks signatures, and its verdicts."""
    # no replay lane: it would answer before the middleware that checks the signature
    app = create_app(Settings(port=0, seed=7, clock="frozen", replay=False))
    seen: list[str] = []
    app.add_middleware(CheckedSignatures, seen=seen)
    server = BackgroundServer(app).start()
    try:
        yield server, seen
    finally:
        server.stop()
