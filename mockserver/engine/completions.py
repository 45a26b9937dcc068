"""One legacy Completions request: a turn per prompt → render.

Each prompt of the request is matched and answered as its own turn (as each input of an
embeddings request is); the first is journaled as the request's, and an error in a later one
is the request's answer (the first turn's entry says so). Every prompt's reply is given ``n``
times. Azure OpenAI's content filter judges every prompt, as it does a chat's.
"""

from __future__ import annotations

from collections.abc import Sequence

from mockserver import ids
from mockserver.engine.core import Engine
from mockserver.engine.moderated import azure_filtered
from mockserver.engine.rendered import Rendered, as_raised, streamed, whole
from mockserver.engine.turn import Journaled, Turn, answered_by
from mockserver.errors import APIError
from mockserver.prompt import Prompt
from mockserver.render.azure import AzureFilters, azure_body, azure_chunks, azure_headers
from mockserver.render.completions import (
    Choice,
    CompletionMeta,
    completion_body,
    completion_chunks,
)
from mockserver.reply.logprobs import score_tokens
from mockserver.reply.model import Reply
from mockserver.reply.tokens import tokenize
from mockserver.store import Namespace
from mockserver.values import Json, value_class
from mockserver.wire.completions import CompletionCreateParams

__all__ = ["CompletionResult", "complete_text", "completion_id"]


#: A rendered completion: ``body`` when not streamed, ``chunks`` when streamed; its turn is the
#: first prompt's (the request's journal entry is its), a scripted in-stream error sends
#: ``{"error": {...}}``.
CompletionResult = Rendered[CompletionMeta]


def completion_id(engine: Engine, namespace: str, counter: int) -> str:
    return ids.numbered_opaque_id("cmpl-", engine.settings.seed, namespace, number=counter)


def complete_text(
    engine: Engine,
    space: Namespace,
    prompts: Sequence[Prompt],
    params: CompletionCreateParams,
    *,
    journal: Journaled | None = None,
) -> CompletionResult:
    """The turns of a request's prompts in ``space`` (held by the caller), rendered."""
    namespace = space.name
    turns = _turns(engine, space, prompts, journal=journal)
    first, prompt = turns[0], prompts[0]
    filters = None
    if prompt.provider == "azure":
        turns, filters = _filtered(turns)
    choices = [
        _choice(turn, each, echo=params.echo is True)
        for turn, each in zip(turns, prompts, strict=True)
        for _ in range(params.choices_per_prompt)
    ]
    meta = CompletionMeta(
        id=completion_id(engine, namespace, first.counter),
        created=engine.now(),
        model=prompt.model,
        include_usage=params.include_usage,
        chunk=first.latency.chunk if first.latency else "token",
    )
    headers = engine.request_headers(namespace, first)
    if filters is not None:
        headers = azure_headers(headers, deployment=prompt.model)
    choices_of = _Choices(first, meta, choices, [turn.reply for turn in turns], headers, filters)
    return choices_of.stream() if prompt.stream else choices_of.body()


@value_class
class _Choices:
    """A request's choices, to be rendered whole or streamed (in Azure's shape with
    ``filters``)."""

    first: Turn
    meta: CompletionMeta
    choices: list[Choice]
    replies: list[Reply]
    headers: dict[str, str]
    filters: AzureFilters | None

    def stream(self) -> CompletionResult:
        chunks = list(completion_chunks(self.meta, self.choices, self.replies))
        if self.filters is not None:
            chunks = list(azure_chunks(chunks, self.filters))
        tokens = sum(c.reply.usage.completion_tokens for c in self.choices)
        return streamed(self.first, self.meta, chunks, self.headers, words=as_raised, tokens=tokens)

    def body(self) -> CompletionResult:
        body = completion_body(self.meta, self.choices, self.replies)
        if self.filters is not None:
            body = azure_body(body, self.filters)
        return whole(self.first, self.meta, body, self.headers)


def _turns(
    engine: Engine, space: Namespace, prompts: Sequence[Prompt], *, journal: Journaled | None
) -> list[Turn]:
    """A turn per prompt; the first journaled as the request's, which a later one's error
    answers instead."""
    first = engine.turn(space, prompts[0], journal=journal)
    turns = [first]
    for prompt in prompts[1:]:
        try:
            turns.append(engine.turn(space, prompt))
        except APIError as error:
            raise answered_by(first, error) from None
    return turns


def _filtered(turns: list[Turn]) -> tuple[list[Turn], AzureFilters]:
    """The turns as Azure's filter leaves them, and its results: every prompt's, and the first
    completion's (a prompt it blocks refuses the request)."""
    filtered, prompt_results = [], []
    completion: Json = {}
    for index, turn in enumerate(turns):
        try:
            kept, filters = azure_filtered(turn)
        except APIError as error:
            raise answered_by(turns[0], error) from None
        filtered.append(kept)
        entry = dict(filters.prompt[0], prompt_index=index)
        prompt_results.append(entry)
        completion = completion or filters.completion
    return filtered, AzureFilters(prompt_results, completion)


def _choice(turn: Turn, prompt: Prompt, *, echo: bool) -> Choice:
    """A choice answering ``prompt``: its reply, after the prompt when echoed."""
    text = prompt.last_user_text
    reply: Reply = turn.reply
    if echo and reply.logprobs:  # the prompt's tokens are scored too (the first is not)
        rng = ids.derive_rng(turn.seed, "echo")
        scored = score_tokens(tokenize(text), rng=rng, top_k=prompt.top_logprobs)
        return Choice(reply, echo=text, echo_tokens=scored, offset=len(text))
    return Choice(reply, echo=text if echo else None, offset=len(text))
