"""What every API endpoint shares: namespaces, body reading, and the journaling of answers and
refusals (the answers themselves are ``http/responses.py``'s)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from mockserver.credentials import journaled_headers
from mockserver.engine import Engine
from mockserver.engine.journaled import kept
from mockserver.errors import (
    APIError,
    PayloadTooLargeError,
    RecordedAnswer,
    UnsupportedMediaTypeError,
)
from mockserver.families import ErrorShape, errors_at, family_at, family_of
from mockserver.http.responses import RecordedResponse, SSEResponse, error_response
from mockserver.render import sse
from mockserver.render.errors import SHAPES
from mockserver.store import JournalEntry, Namespace, Unparsed
from mockserver.wire.json_body import parse_json_body

__all__ = [
    "DEFAULT_NAMESPACE",
    "api_endpoint",
    "api_key_of",
    "aws_access_key",
    "control_endpoint",
    "create_endpoint",
    "engine_of",
    "error_shape",
    "google_key_of",
    "namespace_from",
    "namespace_of",
    "read_body",
    "read_json",
    "reads_as_json",
    "refusal",
    "within_limit",
]

Handler = Callable[[Request], Awaitable[Response]]
SESSION_HEADER = "x-mockserver-session"
#: The lane (``stream_id``) a request sent over a Responses socket named: its journal's mark.
LANE_HEADER = "x-mockserver-stream-id"
GOOGLE_KEY_HEADER = "x-goog-api-key"
ANTHROPIC_KEY_HEADER = "x-api-key"
ANTHROPIC_VERSION_HEADER = "anthropic-version"
#: The header Azure OpenAI's clients send their key in (Entra ID tokens come as a bearer).
AZURE_KEY_HEADER = "api-key"
DEFAULT_NAMESPACE = "default"
#: The scheme of an AWS Signature Version 4 ``Authorization`` header.
AWS_SIGNATURE = "AWS4-HMAC-SHA256"


def engine_of(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


def namespace_of(request: Request) -> str:
    """The explicit session header, else the API key (a bearer token, Azure OpenAI's
    ``api-key`` header, Google's key), else the shared default namespace."""
    return namespace_from(request.headers, request.query_params)


def namespace_from(headers: Mapping[str, str], query: Mapping[str, str] | None = None) -> str:
    """:func:`namespace_of` a request with these headers (and query parameters)."""
    explicit = headers.get(SESSION_HEADER)
    if explicit:
        return explicit
    return api_key_of(headers, query) or DEFAULT_NAMESPACE


def api_key_of(headers: Mapping[str, str], query: Mapping[str, str] | None = None) -> str | None:
    """The API key a request carries, however its family sends it: a bearer token, the access
    key id of an AWS signature (its signature is not checked), Anthropic's ``x-api-key``
    header, Azure OpenAI's ``api-key`` header, Google's ``x-goog-api-key`` header or its
    ``?key=`` parameter (``None``: none)."""
    scheme, _, token = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    if scheme == AWS_SIGNATURE:
        return aws_access_key(token)
    key = (
        headers.get(ANTHROPIC_KEY_HEADER, "").strip()
        or headers.get(AZURE_KEY_HEADER, "").strip()
        or google_key_of(headers, query)
    )
    return key or None


def aws_access_key(signed: str) -> str | None:
    """The access key id of a SigV4 ``Authorization`` value (after its scheme):
    ``Credential=<id>/<date>/<region>/<service>/aws4_request, SignedHeaders=…``."""
    for part in signed.split(","):
        name, _, value = part.strip().partition("=")
        if name == "Credential":
            key = value.split("/")[0].strip()
            return key or None
    return None


def google_key_of(headers: Mapping[str, str], query: Mapping[str, str] | None = None) -> str | None:
    """The key a request sends Google's way (``x-goog-api-key``, else ``?key=``), if any."""
    key = headers.get(GOOGLE_KEY_HEADER) or (query.get("key") if query is not None else None)
    return key.strip() if key and key.strip() else None


def error_shape(path: str, headers: Mapping[str, str], query: Mapping[str, str]) -> ErrorShape:
    """How the refusal of a request is written: its path's family's way; where several
    families are served (``/v1/models``, an unknown route), the way of the family whose client
    sent it: a Google key is Google's, an ``anthropic-version`` (every Anthropic SDK sends
    it) Anthropic's."""
    shape = errors_at(path)
    if shape == "openai" and family_of(path) is None:
        if google_key_of(headers, query) is not None:
            return "google"
        if ANTHROPIC_VERSION_HEADER in headers:
            return "anthropic"
    return shape


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object, with the real API's answers for oversize and non-JSON bodies."""
    _refuse_declared_oversize(request)
    content_type = request.headers.get("content-type", "")
    if not reads_as_json(content_type, request.scope["path"]):
        raise UnsupportedMediaTypeError(
            f"Unsupported content type: '{content_type}'. This API method only accepts "
            f"'application/json' requests, but you specified the header 'Content-Type: "
            f"{content_type}'. Please try again with a supported content type.",
        )
    raw = await read_body(request)
    body = parse_json_body(raw)
    request.state.json_body = body
    request.state.raw_body = raw
    return body


def journaled_body(request: Request) -> Any:
    """What the journal keeps of the request's body: the bytes read, parsed when the journal is
    read (a parsed body is several times the size of its bytes), else the parsed body."""
    raw = getattr(request.state, "raw_body", None)
    if isinstance(raw, bytes):
        return Unparsed(raw, orjson.loads)
    return getattr(request.state, "json_body", None)


def reads_as_json(content_type: str, path: str) -> bool:
    """Does a request to ``path`` with this ``Content-Type`` (``""``: none) get its body read
    as JSON? Ollama's server reads every body as JSON whatever it says it is (Go's
    ``ShouldBindJSON``), and its docs' ``curl -d`` examples send a form's type; elsewhere a
    type that is not JSON is refused."""
    media = content_type.split(";")[0].strip().lower()
    return not media or "json" in media or errors_at(path) == "ollama"


def within_limit(engine: Engine, headers: Mapping[str, str], body: bytes) -> bool:
    """Is a request with these headers and ``body`` one :func:`read_json` reads (no 413)?"""
    limit = engine.settings.max_body_bytes
    declared = headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return False
    return len(body) <= limit


async def read_body(request: Request) -> bytes:
    """The request's body, refused with a 413 once it passes ``max_body_bytes`` (declared or
    read so far: an oversize body is never held whole)."""
    limit = _refuse_declared_oversize(request)
    chunks = bytearray()
    async for chunk in request.stream():
        chunks += chunk
        if len(chunks) > limit:
            raise _too_large(limit)
    return bytes(chunks)


def _refuse_declared_oversize(request: Request) -> int:
    """The body size limit, after refusing a request that declares more."""
    limit = engine_of(request).settings.max_body_bytes
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    return limit


def _too_large(limit: int) -> APIError:
    return PayloadTooLargeError(
        f"Request body too large. The maximum request size is {limit} bytes.",
        code="request_too_large",
    )


def create_endpoint(handler: Handler) -> Handler:
    """A create endpoint: the handler journals its own answers (with the turn's rule, model,
    summary); a request it refuses is journaled here, with OpenAI's error body."""

    @functools.wraps(handler)
    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except APIError as error:
            return refusal(request, error)

    return endpoint


def api_endpoint(handler: Handler) -> Handler:
    """Any other API endpoint (retrieve, list, update, delete…): its answer is journaled here
    and given the headers the API puts on every answer; a refusal as :func:`create_endpoint`
    does."""

    @functools.wraps(handler)
    async def endpoint(request: Request) -> Response:
        try:
            response = await handler(request)
        except APIError as error:
            return refusal(request, error)
        _journal_answer(request, response)
        return response

    return endpoint


def control_endpoint(handler: Handler) -> Handler:
    """A control-plane endpoint: a refusal gets OpenAI's error body too, but control requests
    are not API calls and are never journaled."""

    @functools.wraps(handler)
    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except APIError as error:
            return error_response(error)

    return endpoint


def refusal(request: Request, error: APIError) -> Response:
    """The API's answer to a refused request, journaled (a request id numbered after it, and
    the headers it is sent with), unless the engine journaled it already (a turn that ended in
    this error)."""
    engine = engine_of(request)
    namespace = namespace_of(request)
    shape = error_shape(request.url.path, request.headers, request.query_params)
    entry = error.journaled
    if not isinstance(entry, JournalEntry):
        refused = entry = _refused_entry(request, error, error.status, error.body())
        engine.store.transact(
            namespace, lambda space: engine.refuse(space, refused, error, shape=shape)
        )
    if isinstance(error, RecordedAnswer):  # record & replay: sent as the upstream sent it
        return RecordedResponse(error)
    writer = SHAPES[shape]
    request_id = writer.request_id(engine.settings.seed, namespace, entry.seq, journal=True)
    return error_response(error, request_id=request_id, shape=shape)


def _refused_entry(request: Request, error: APIError, status: int, body: Any) -> JournalEntry:
    """The journal entry of a request refused before any turn took it."""
    path = request.scope["path"]
    sent = getattr(request.state, "json_body", None)
    model = sent.get("model") if isinstance(sent, dict) else None
    family = family_at(request.method, path)
    if model is None and family is not None:  # a model named by the path
        model = (family.parameters(path) or {}).get("model")
    return JournalEntry(
        seq=0,
        method=request.method,
        path=request.url.path,
        status=status,
        api=family.api if family else None,
        model=model if isinstance(model, str) else None,
        stream=isinstance(sent, dict) and sent.get("stream") is True,
        request=journaled_body(request),
        response=body,
        rule=error.rule,
        miss=error.miss,
        summary=f"{error.type}: {error.message}",
        request_headers=journaled_headers(request.headers.items()),
    )


def _journal_answer(request: Request, response: Response) -> None:
    """Journal an answer that is not a turn, and stamp it with the API's headers (its request
    id numbered after its journal entry)."""
    engine = engine_of(request)
    namespace = namespace_of(request)
    body = getattr(response, "body", None)
    answer: Any = None
    summary = ""
    if isinstance(body, bytes) and body:  # kept as bytes, parsed when the journal is read
        if response.media_type == SSEResponse.media_type:
            answer, summary = Unparsed(kept(body), sse.decode_stream), "event stream"
        elif response.media_type == "application/json":
            answer, summary = Unparsed(kept(body), orjson.loads), _summary(orjson.loads(body))
    entry = JournalEntry(
        seq=0,
        method=request.method,
        path=request.url.path,
        status=response.status_code,
        request=journaled_body(request),
        response=answer,
        summary=summary,
        request_headers=journaled_headers(request.headers.items()),
    )
    shape = error_shape(request.scope["path"], request.headers, request.query_params)
    named = {
        k.decode("latin-1"): v.decode("latin-1")
        for k, v in response.raw_headers
        if k not in (b"content-length", b"content-type")
    }

    def journal(space: Namespace) -> None:  # with the headers it is sent with (see below)
        space.record(entry)
        service = engine.service_headers(namespace, entry.seq, shape=shape)
        entry.response_headers = {**service, **named}

    engine.store.transact(namespace, journal)
    own = [
        (k.encode("latin-1"), v.encode("latin-1"))
        for k, v in engine.service_headers(namespace, entry.seq, shape=shape).items()
    ]
    response.raw_headers = own + response.raw_headers


def _summary(answer: Any) -> str:
    """``response resp_…``, ``list of 3``: what the inspector shows for a non-turn answer."""
    if not isinstance(answer, dict):
        return ""
    kind = answer.get("object")
    if kind == "list" and isinstance(answer.get("data"), list):
        return f"list of {len(answer['data'])}"
    ident = answer.get("id")
    return " ".join(str(part) for part in (kind, ident) if part is not None)
