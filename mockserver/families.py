"""The one table of API families: what routing, recording, importing and reports read.

A row is one API that mockserver serves at one path: its ``api`` name (what the journal, a
recording's ``when: {api: …}`` and a scenario's ``api:`` condition say), the path it is served
at, whether a request there is a model's turn (answered from the scenario, recorded as a rule)
and, if so, the endpoint class that serves it and the function that reads its request into the
neutral Prompt, and the shape its errors take. Adding a family is adding its rows here (and its
modules: ``wire/``, ``prompt/``, ``render/``, ``http/routes/``); nothing else keeps a list of
families.

Modules are named, not imported: the table is read at start-up, and a family's wire models cost
time and memory only once it is asked for.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from mockserver.values import value_class

__all__ = ["FAMILIES", "Family", "by_api", "family_at", "socket_at", "turn_families"]

#: How a family's errors are written (``{"error": {message, type, param, code}}`` for OpenAI).
ErrorShape = Literal["openai"]


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

    @property
    def turn(self) -> bool:
        """Is a request here a model's turn (scenario-answered, recorded as a rule)?"""
        return self.endpoint is not None


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
)

_BY_PATH = {family.path: family for family in FAMILIES}
_BY_API = {family.api: family for family in FAMILIES}


def family_at(method: str, path: str) -> Family | None:
    """The family a ``POST`` to ``path`` is a request of (``None`` for any other call)."""
    return _BY_PATH.get(path) if method.upper() == "POST" else None


def socket_at(path: str) -> Family | None:
    """The family served over a WebSocket at ``path`` (``None``: an upgrade there is answered
    as plain HTTP, as the API answers it)."""
    family = _BY_PATH.get(path)
    return family if family is not None and family.socket else None


def by_api(api: str) -> Family:
    """The family called ``api`` (``KeyError`` for a name no row has)."""
    return _BY_API[api]


def turn_families() -> Iterator[Family]:
    """The families whose requests are model turns."""
    return (family for family in FAMILIES if family.turn)
