"""The one table of API families: what routing, recording, importing and reports read.

A row is one API that mockserver serves at one path: its ``api`` name (what the journal, a
recording's ``when: {api: …}`` and a scenario's ``api:`` condition say), the path it is served
at, the ``provider`` that serves the API there (OpenAI's own paths, or Azure OpenAI's), whether
a request there is a model's turn (answered from the scenario, recorded as a rule) and, if so,
the endpoint class that serves it and the function that reads its request into the neutral
Prompt, and the shape its errors take. Adding a family is adding its rows here (and its
modules: ``wire/``, ``prompt/``, ``render/``, ``http/routes/``); nothing else keeps a list of
families.

One API may be served at several paths, by several providers: Azure OpenAI serves Chat
Completions at ``/openai/deployments/{deployment}/chat/completions`` (the deployment names the
model) and at ``/openai/v1/chat/completions``, with OpenAI's endpoint class, so one scenario
answers both. An exact path is found with one dict lookup; only a path under a templated row's
fixed start is matched against the templates.

Modules are named, not imported: the table is read at start-up, and a family's wire models cost
time and memory only once it is asked for.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache, lru_cache
from typing import Literal

from mockserver.values import value_class

__all__ = [
    "API_VERSION",
    "AZURE_PREFIX",
    "FAMILIES",
    "ErrorShape",
    "Family",
    "Provider",
    "by_api",
    "errors_at",
    "errors_of",
    "family_at",
    "family_of",
    "socket_at",
    "turn_families",
]

#: How a family's errors (and the headers around every answer) are written:
#: ``{"error": {message, type, param, code}}`` for OpenAI, ``{"error": {code, message, status,
#: details}}`` for Google's APIs, ``{"type": "error", "error": {type, message}, "request_id"}``
#: for Anthropic's, OpenAI's compacted behind Azure's gateway (its own ``{"error": {code,
#: message}}`` where the gateway answers) for Azure OpenAI's, an ``x-amzn-errortype`` header
#: and ``{"message"}`` for Bedrock's, ``{"error": "…"}`` for Ollama's. ``render/errors.py``
#: writes each.
ErrorShape = Literal["openai", "google", "anthropic", "azure", "bedrock", "ollama"]
#: Who serves an API at a path: OpenAI's own API, Azure OpenAI's, Google's (Gemini's),
#: Anthropic's, AWS's (Bedrock's) or Ollama's.
Provider = Literal["openai", "azure", "google", "anthropic", "aws", "ollama"]
#: The query parameter Azure OpenAI's dated paths require (``?api-version=2024-10-21``).
API_VERSION = "api-version"
#: Where Azure OpenAI's paths start.
AZURE_PREFIX = "/openai"
#: A ``{name}`` segment of a templated path (one path segment, or the part before a ``:``);
#: ``{name+}``, as AWS writes a greedy label, takes any text (a Bedrock model id has colons,
#: an ARN slashes too once its ``%2F`` is decoded).
_PARAMETER = re.compile(r"\{([a-z_]+)(\+?)\}")


@value_class
class Family:
    """One API served at one path (see the module's docstring)."""

    #: The API's name: ``chat``, ``responses``, ``embeddings``…
    api: str
    #: The path it is served at, e.g. ``/v1/chat/completions``.
    path: str
    #: How its errors are written.
    errors: ErrorShape = "openai"
    #: Its turn endpoint, ``module:Class`` (``None``: not a model's turn).
    endpoint: str | None = None
    #: The function that reads a request body into a Prompt, ``module:function`` (a turn's
    #: family only; called as ``prompt(body, headers=…)``, for recording and importing).
    prompt: str | None = None
    #: Served over a WebSocket at its path too (the API's WebSocket mode: each client event a
    #: request, answered with the stream's events as messages).
    socket: bool = False
    #: Who serves the API at this path.
    provider: Provider = "openai"
    #: A query parameter the path requires (refused as the provider refuses it when missing).
    query: str | None = None
    #: Every request here is streamed: the path says so, not the body (Bedrock's
    #: ``/converse-stream``).
    streams: bool = False

    @property
    def turn(self) -> bool:
        """Is a request here a model's turn (scenario-answered, recorded as a rule)?"""
        return self.endpoint is not None

    @property
    def templated(self) -> bool:
        """Does the path name parameters (``/v1beta/models/{model}:generateContent``)?"""
        return "{" in self.path

    @property
    def laned(self) -> bool:
        """May the replay lane answer requests here? Its key is the request's path, query,
        headers and body; Azure OpenAI's answers (its own headers and filter results, a
        required ``api-version``) take the full path."""
        return self.provider != "azure" and self.query is None

    def parameters(self, path: str) -> dict[str, str] | None:
        """The values of the path's ``{name}`` segments in ``path`` (``None``: not served here)."""
        if not self.templated:
            return {} if path == self.path else None
        found = _pattern(self.path).match(path)
        return found.groupdict() if found else None


@cache
def _pattern(template: str) -> re.Pattern[str]:
    """The paths a templated path serves: each ``{name}`` one segment without a ``:``, each
    ``{name+}`` any text."""
    regex, at = "", 0
    for found in _PARAMETER.finditer(template):
        value = ".+?" if found.group(2) else "[^/:]+"
        regex += re.escape(template[at : found.start()]) + f"(?P<{found.group(1)}>{value})"
        at = found.end()
    return re.compile(regex + re.escape(template[at:]) + r"\Z")


#: The Gemini API's versions: the Developer API's (``v1beta``, and ``v1``, google-genai's
#: default) and Vertex AI's (``v1beta1``, ``v1``), whose paths name a project and a location
#: (or, in express mode, only the publisher).
_GEMINI_ROOTS = (
    "/v1beta/models/{model}",
    "/v1/models/{model}",
    "/v1beta1/projects/{project}/locations/{location}/publishers/google/models/{model}",
    "/v1/projects/{project}/locations/{location}/publishers/google/models/{model}",
    # Vertex AI's express mode (an API key, no project)
    "/v1beta1/publishers/google/models/{model}",
    "/v1/publishers/google/models/{model}",
)


def _gemini(method: str, api: str, *, turn: bool = False) -> tuple[Family, ...]:
    """The rows of one Gemini method (``generateContent``…), one per root."""
    return tuple(
        Family(
            api,
            f"{root}:{method}",
            errors="google",
            endpoint="mockserver.http.routes.gemini:GenerateContent" if turn else None,
            prompt="mockserver.prompt.gemini:prompt_from_gemini" if turn else None,
            provider="google",
            streams=method == "streamGenerateContent",
        )
        for root in _GEMINI_ROOTS
    )


FAMILIES: tuple[Family, ...] = (
    Family(
        "chat",
        "/v1/chat/completions",
        endpoint="mockserver.http.routes.chat:ChatCompletions",
        prompt="mockserver.prompt.chat:prompt_from_chat",
    ),
    Family(
        "responses",
        "/v1/responses",
        endpoint="mockserver.http.routes.responses:Responses",
        prompt="mockserver.prompt.responses:prompt_of_request",
        socket=True,
    ),
    Family("embeddings", "/v1/embeddings"),
    Family("moderations", "/v1/moderations"),
    Family(
        "completions",
        "/v1/completions",
        endpoint="mockserver.http.routes.completions:Completions",
        prompt="mockserver.prompt.completions:prompt_from_completion",
    ),
    *_gemini("generateContent", "gemini", turn=True),
    *_gemini("streamGenerateContent", "gemini", turn=True),
    *_gemini("countTokens", "count_tokens"),
    *_gemini("embedContent", "embeddings"),
    *_gemini("batchEmbedContents", "embeddings"),
    Family(
        "messages",
        "/v1/messages",
        errors="anthropic",
        endpoint="mockserver.http.routes.messages:Messages",
        prompt="mockserver.prompt.messages:prompt_from_messages",
        provider="anthropic",
    ),
    Family("count_tokens", "/v1/messages/count_tokens", errors="anthropic", provider="anthropic"),
    # Azure OpenAI: OpenAI's APIs under a deployment (which names the model) or under
    # ``/openai/v1`` (where the body names it), answered by OpenAI's endpoints.
    *(
        Family(
            "chat",
            path,
            endpoint="mockserver.http.routes.chat:ChatCompletions",
            prompt="mockserver.prompt.chat:prompt_from_chat",
            errors="azure",
            provider="azure",
            query=query,
        )
        for path, query in (
            ("/openai/deployments/{deployment}/chat/completions", API_VERSION),
            ("/openai/v1/chat/completions", None),
        )
    ),
    *(
        Family(
            "responses",
            path,
            endpoint="mockserver.http.routes.responses:Responses",
            prompt="mockserver.prompt.responses:prompt_of_request",
            errors="azure",
            provider="azure",
            query=query,
        )
        for path, query in (
            ("/openai/deployments/{deployment}/responses", API_VERSION),
            ("/openai/responses", API_VERSION),
            ("/openai/v1/responses", None),
        )
    ),
    *(
        Family(
            "completions",
            path,
            endpoint="mockserver.http.routes.completions:Completions",
            prompt="mockserver.prompt.completions:prompt_from_completion",
            errors="azure",
            provider="azure",
            query=query,
        )
        for path, query in (
            ("/openai/deployments/{deployment}/completions", API_VERSION),
            ("/openai/v1/completions", None),
        )
    ),
    Family(
        "embeddings",
        "/openai/deployments/{deployment}/embeddings",
        errors="azure",
        provider="azure",
        query=API_VERSION,
    ),
    Family("embeddings", "/openai/v1/embeddings", errors="azure", provider="azure"),
    # Bedrock Runtime: the model (an id, an inference profile, an ARN) is named by the path.
    *(
        Family(
            api,
            f"/model/{{model+}}/{operation}",
            errors="bedrock",
            endpoint=f"mockserver.http.routes.{api}:{api.title()}",
            prompt=f"mockserver.prompt.converse:prompt_from_{api}",
            provider="aws",
            streams=operation.endswith("stream"),
        )
        for api, operation in (
            ("converse", "converse"),
            ("converse", "converse-stream"),
            ("invoke", "invoke"),
            ("invoke", "invoke-with-response-stream"),
        )
    ),
    # Ollama's own API (its OpenAI-compatible /v1 paths are OpenAI's rows).
    Family(
        "ollama_chat",
        "/api/chat",
        errors="ollama",
        endpoint="mockserver.http.routes.ollama:OllamaChat",
        prompt="mockserver.prompt.ollama:prompt_from_ollama_chat",
        provider="ollama",
    ),
    Family(
        "ollama_generate",
        "/api/generate",
        errors="ollama",
        endpoint="mockserver.http.routes.ollama:OllamaGenerate",
        prompt="mockserver.prompt.ollama:prompt_from_ollama_generate",
        provider="ollama",
    ),
    Family("embeddings", "/api/embed", errors="ollama", provider="ollama"),
    Family("embeddings", "/api/embeddings", errors="ollama", provider="ollama"),
    Family("ollama_show", "/api/show", errors="ollama", provider="ollama"),
)

_BY_PATH = {family.path: family for family in FAMILIES if not family.templated}
_TEMPLATED = tuple(family for family in FAMILIES if family.templated)
#: Where templated paths start, before their first parameter: any other path is exact.
_TEMPLATED_STARTS = tuple(dict.fromkeys(f.path.partition("{")[0] for f in _TEMPLATED))
_BY_API: dict[str, Family] = {}
_ERRORS: dict[tuple[str, str], ErrorShape] = {}
for _family in FAMILIES:  # an API's first row names it (its reader, its path)
    _BY_API.setdefault(_family.api, _family)
    _ERRORS.setdefault((_family.api, _family.provider), _family.errors)
#: The first segments of paths whose families all write their errors one way other than
#: OpenAI's (``v1beta``: Google's, ``model``: Bedrock's,
#: ``api``: Ollama's), with that way.
_ROOT_SHAPES: dict[str, ErrorShape] = {}
for _root in {f.path.split("/")[1] for f in FAMILIES}:
    _shapes = {f.errors for f in FAMILIES if f.path.split("/")[1] == _root}
    if len(_shapes) == 1 and _shapes != {"openai"}:
        _ROOT_SHAPES[_root] = _shapes.pop()


def family_at(method: str, path: str) -> Family | None:
    """The family a ``POST`` to ``path`` is a request of (``None`` for any other call)."""
    if method.upper() != "POST":
        return None
    return _BY_PATH.get(path) or _templated_at(path)


@lru_cache(maxsize=512)
def _templated_at(path: str) -> Family | None:
    """The templated row that serves ``path``, if any (remembered: a turn's route and the
    replay lane ask for the same few paths on every request)."""
    if not path.startswith(_TEMPLATED_STARTS):
        return None
    return next((f for f in _TEMPLATED if f.parameters(path) is not None), None)


def family_of(path: str) -> Family | None:
    """The family a request to ``path`` is for, whatever the method: the one served at it, or
    under it (``/v1/messages/batches`` is ``/v1/messages``'s); ``None``: no family's path."""
    return _BY_PATH.get(path) or _templated_at(path) or _under(path)


def errors_at(path: str) -> ErrorShape:
    """How an answer at ``path`` writes its errors, whatever the method: its family's way
    (:func:`family_of`), else Azure's under its prefix, else the one way of every family
    under its root (``/v1beta``: Google's, ``/model``: Bedrock's, ``/api``:
    Ollama's), else OpenAI's."""
    family = family_of(path)
    if family is not None:
        return family.errors
    if path.startswith(AZURE_PREFIX + "/"):
        return "azure"
    root = path.split("/")[1:2]
    return _ROOT_SHAPES.get(root[0], "openai") if root else "openai"


@lru_cache(maxsize=512)
def _under(path: str) -> Family | None:
    """The family whose (plain) path ``path`` lies under, the longest such path."""
    found = None
    for family in _BY_PATH.values():
        if path.startswith(family.path + "/") and (
            found is None or len(family.path) > len(found.path)
        ):
            found = family
    return found


def socket_at(path: str) -> Family | None:
    """The family served over a WebSocket at ``path`` (``None``: an upgrade there is answered
    as plain HTTP, as the API answers it)."""
    family = _BY_PATH.get(path)
    return family if family is not None and family.socket else None


def errors_of(api: str, provider: str) -> ErrorShape:
    """How the answers of ``api``'s turns sent to ``provider`` are written: its row's way
    (OpenAI's for an API the table does not list)."""
    shape = _ERRORS.get((api, provider))
    if shape is None:
        row = _BY_API.get(api)
        shape = "openai" if row is None else row.errors
    return shape


def by_api(api: str) -> Family:
    """The family called ``api`` (``KeyError`` for a name no row has)."""
    return _BY_API[api]


def turn_families() -> Iterator[Family]:
    """The families whose requests are model turns."""
    return (family for family in FAMILIES if family.turn)
