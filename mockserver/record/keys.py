"""Which recorded requests a replayed one is: the ``when`` a recording's rule is written with.

The default identifies a request by what changes its answer — the API, the model, the system
text, the last user message, how many assistant turns came before, the last tool result, the
tools offered — and not by what does not (temperature, metadata, ``user``, stream options,
``max_tokens``, headers). An exact recording adds ``api`` and ``stream`` (its bytes are one
API's, in one framing); a distilled one answers either API, streamed or not.
Users widen a rule by deleting keys of its ``when`` and narrow it with any other condition
(``params``, ``any_message``, …): it is an ordinary scenario rule.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

from mockserver.families import by_api, family_at
from mockserver.prompt import Prompt
from mockserver.record.exchange import Exchange

__all__ = ["api_of", "prompt_of", "sent_to", "when_of"]


def api_of(method: str, path: str) -> str | None:
    """The API of a model turn (``chat``, ``responses``…); ``None`` for any other call."""
    family = family_at(method, path)
    return family.api if family is not None and family.turn else None


def prompt_of(
    api: str, body: Any, headers: Mapping[str, str] | None = None, *, path: str | None = None
) -> Prompt | None:
    """The neutral view of a recorded request body sent to ``path`` (default: the API's own
    path), as the matcher will see its replay (``None`` for a body that is not a request of
    that API). A path's deployment names the model, as Azure's does; a path that names the
    model (Gemini's ``models/{model}:…``, Bedrock's ``/model/{modelId}/…``) names it, and says
    whether the request streams."""
    family = (family_at("POST", path) if path is not None else None) or by_api(api)
    named = (family.parameters(path) or {}) if path is not None else {}
    deployment = named.get("deployment")
    if isinstance(body, Mapping) and deployment is not None:
        body = {**body, "model": deployment}
    model = named.get("model")
    if not isinstance(body, Mapping) or not isinstance(model or body.get("model"), str):
        return None
    reader = family.prompt
    if reader is None:
        return None
    module, name = reader.split(":")
    extra: dict[str, Any] = {"model": model, "stream": family.streams} if model else {}
    try:
        read: Any = getattr(importlib.import_module(module), name)
        prompt: Prompt = read(body, headers=headers or {}, provider=family.provider, **extra)
        return prompt
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def sent_to(exchange: Exchange) -> str | None:
    """Where ``exchange``'s request went, when its API's path does not say (a path that names
    the model, a stream's framing in the query): the path and query, a ``key`` never in it."""
    api = api_of(exchange.method, exchange.path)
    if api is None or (exchange.path == by_api(api).path and not exchange.query):
        return None
    query = [(k, v) for k, v in parse_qsl(exchange.query, keep_blank_values=True) if k != "key"]
    return exchange.path + (f"?{urlencode(query)}" if query else "")


def when_of(exchange: Exchange, *, exact: bool) -> dict[str, Any] | None:
    """The ``when`` of a rule answering ``exchange``'s request (``None``: not a model turn)."""
    api = api_of(exchange.method, exchange.path)
    prompt = prompt_of(api, exchange.request, path=exchange.path) if api else None
    if api is None or prompt is None:
        return None
    when: dict[str, Any] = {"api": api} if exact else {}
    when["model"] = {"equals": prompt.model}
    system = "\n".join(
        [
            prompt.instructions or "",
            *(m.text for m in prompt.messages if m.role in ("system", "developer")),
        ]
    ).strip("\n")
    if system:
        when["system"] = {"equals": system}
    if any(m.role == "user" for m in prompt.messages):
        when["last_user"] = {"equals": prompt.last_user_text}
    continued = isinstance(exchange.request, Mapping) and bool(
        exchange.request.get("previous_response_id") or exchange.request.get("conversation")
    )
    if not continued:  # a stored chain's earlier turns are not in the request itself
        when["turn"] = {"equals": sum(1 for m in prompt.messages if m.role == "assistant")}
    last = prompt.last_message
    if last is not None and last.role == "tool":
        names = {c.call_id: c.name for m in prompt.messages for c in m.tool_calls}
        result: dict[str, Any] = {"content": {"equals": last.text}}
        name = names.get(last.tool_call_id or "", last.name or "")
        if name:
            result = {"name": {"equals": name}, **result}
        when["tool_result"] = result
    if prompt.tools:
        when["tools_offered"] = [t.name for t in prompt.tools]
    if exact:
        when["stream"] = prompt.stream
    return when
