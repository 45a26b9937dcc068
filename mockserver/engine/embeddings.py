"""``POST /v1/embeddings``: each input is one turn of the engine (matched against the rules
that say ``api: embeddings``, committed, rate-limited), then one list of vectors, journaled."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from mockserver.engine.core import Engine
from mockserver.engine.journaled import kept
from mockserver.engine.turn import Turn
from mockserver.errors import InvalidRequestError
from mockserver.families import Provider
from mockserver.plans import BodyPlan, plan_body
from mockserver.prompt import Message, Prompt
from mockserver.prompt.chat import fingerprint
from mockserver.render.azure import azure_headers, azure_json
from mockserver.render.embeddings import embeddings_list
from mockserver.reply.embeddings import (
    check_token_limits,
    embedding_vector,
    input_text,
    input_tokens,
    model_dimensions,
)
from mockserver.store import JournalEntry, Namespace, Unparsed
from mockserver.values import value_class
from mockserver.wire.embeddings import EmbeddingsRequest, Input
from mockserver.wire.json_body import encode_json, encode_json_pretty

__all__ = ["Embedded", "EmbeddingsAnswer", "create_embeddings", "embed"]


@value_class
class EmbeddingsAnswer:
    """The encoded body, its headers, and how to deliver it (latency, reset, truncation)."""

    body: bytes
    headers: dict[str, str]
    plan: BodyPlan


def _prompt(
    request: EmbeddingsRequest,
    value: Input,
    *,
    headers: Mapping[str, str],
    body: Any,
    provider: Provider,
) -> Prompt:
    text = input_text(value)
    return Prompt(
        api="embeddings",
        model=request.model,
        messages=(Message("user", text),),
        headers=headers,
        params=body,
        fingerprint=fingerprint("embeddings", {"input": text, "model": request.model}),
        provider=provider,
    )


def _seed(engine: Engine, space: Namespace, prompt: Prompt) -> int:
    """The seed vectors derive from: the namespace's, else its scenario's, else the server's."""
    return engine.seed_for(space, engine.active_scenario(space, prompt))


def _vector(turn: Turn, value: Input, *, request: EmbeddingsRequest, seed: int) -> list[float]:
    size = request.dimensions or model_dimensions(request.model)
    scripted = turn.reply.embedding
    if scripted is not None:
        if request.dimensions is not None and len(scripted) != request.dimensions:
            raise InvalidRequestError(
                f"mockserver: scenario rule '{turn.rule}' scripts a vector of {len(scripted)} "
                f"dimensions, but the request asks for {request.dimensions}",
                param="dimensions",
                code="scenario_reply_invalid",
            )
        return list(scripted)
    source: Input = turn.reply.text if turn.reply.text else value
    return embedding_vector(source, seed=seed, model=request.model, dimensions=size)


@value_class
class Embedded:
    """Each input's vector, and the turn that decided it (matched, committed, rate-limited)."""

    vectors: list[list[float]]
    turns: list[Turn]

    def journal(
        self,
        space: Namespace,
        *,
        path: str,
        model: str,
        body: Any,
        encoded: bytes,
        request_headers: dict[str, str] | None = None,
        response_headers: dict[str, str] | None = None,
    ) -> None:
        """Journal the request in ``space`` (held by the caller; one entry for all its
        inputs) with the answer's bytes, and the headers of both (the request's as the
        journal keeps them: secrets masked)."""
        vectors, turns = self.vectors, self.turns
        first = next((t for t in turns if t.rule is not None), turns[0])
        space.record(
            JournalEntry(
                seq=0,
                method="POST",
                path=path,
                status=200,
                api="embeddings",
                model=model,
                request=body,
                response=Unparsed(kept(encoded), orjson.loads),
                rule=first.rule,
                miss=first.miss,
                summary=f"{len(vectors)} embedding{'s' if len(vectors) != 1 else ''} of "
                f"{len(vectors[0])} dimensions",
                request_headers=request_headers or {},
                response_headers=response_headers or {},
            ),
        )

    def plan(self) -> BodyPlan:
        """How the answer is delivered: as the first input with latency or a fault says."""
        paced = next((t for t in self.turns if t.latency or t.fault), self.turns[0])
        return plan_body(paced.latency, paced.fault, seed=paced.seed)


def embed(
    engine: Engine,
    space: Namespace,
    request: EmbeddingsRequest,
    *,
    headers: Mapping[str, str],
    body: Any,
    provider: Provider = "openai",
) -> Embedded:
    """Match and commit each input (sent to ``provider``) in ``space`` (held by the caller),
    and make its vector. A scripted error (or a strict scenario's miss) on any input refuses
    the whole request, as it is raised."""
    prompts = [
        _prompt(request, v, headers=headers, body=body, provider=provider) for v in request.inputs
    ]
    seed = _seed(engine, space, prompts[0])
    turns = [engine.turn(space, prompt) for prompt in prompts]
    vectors = [
        _vector(turn, value, request=request, seed=seed)
        for turn, value in zip(turns, request.inputs, strict=True)
    ]
    return Embedded(vectors, turns)


def create_embeddings(
    engine: Engine,
    space: Namespace,
    request: EmbeddingsRequest,
    *,
    path: str,
    headers: Mapping[str, str],
    body: Any,
    journaled_headers: dict[str, str] | None = None,
    provider: Provider = "openai",
) -> EmbeddingsAnswer:
    """Match, commit and journal each input in ``space`` (held by the caller); the answer's
    bytes (in ``provider``'s shape). ``journaled_headers``: the request's headers as the
    journal keeps them (secrets masked)."""
    counts = [input_tokens(value) for value in request.inputs]
    check_token_limits(request.model, counts, request.dimensions)
    embedded = embed(engine, space, request, headers=headers, body=body, provider=provider)
    result = embeddings_list(
        embedded.vectors,
        model=request.model,
        prompt_tokens=sum(counts),
        encoding_format=request.encoding_format,
    )
    azure = provider == "azure"
    encoded = encode_json(azure_json(result)) if azure else encode_json_pretty(result)
    answer_headers = engine.request_headers(space.name, embedded.turns[-1])
    if azure:
        answer_headers = azure_headers(answer_headers, deployment=request.model)
    embedded.journal(
        space,
        path=path,
        model=request.model,
        body=body,
        encoded=encoded,
        request_headers=journaled_headers,
        response_headers=answer_headers,
    )
    return EmbeddingsAnswer(encoded, answer_headers, embedded.plan())
