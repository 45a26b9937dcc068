"""A validated legacy Completions request → one :class:`Prompt` per prompt it carries.

The text to complete is the prompt's one user message (a prompt of token ids reads as its ids,
space-separated, as embeddings' do), so ``last_user`` matches it. ``max_tokens`` defaults to
16, as the API's does; ``logprobs: k`` asks for the ``k`` most likely tokens (the sampled
one's logprob always comes, so at least one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mockserver.families import Provider
from mockserver.prompt.chat import fingerprint
from mockserver.prompt.model import Message, Prompt
from mockserver.wire.completions import DEFAULT_MAX_TOKENS, PromptText, prompt_texts

__all__ = ["prompt_from_completion", "prompts_from_completion", "text_of_prompt"]


def text_of_prompt(prompt: PromptText) -> str:
    """What a prompt says (token ids: the ids, space-separated)."""
    return prompt if isinstance(prompt, str) else " ".join(map(str, prompt))


def prompts_from_completion(
    body: Mapping[str, Any], *, headers: Mapping[str, str], provider: Provider = "openai"
) -> tuple[Prompt, ...]:
    """One Prompt per prompt of ``body`` (a request ``wire.completions`` accepted)."""
    stop = body.get("stop")
    max_tokens = body.get("max_tokens")
    logprobs = body.get("logprobs")
    lowered = {k.lower(): v for k, v in headers.items()}
    prompts = []
    for value in prompt_texts(body.get("prompt")):
        text = text_of_prompt(value)
        prompts.append(
            Prompt(
                api="completions",
                model=body["model"],
                messages=(Message("user", text),),
                max_output_tokens=DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens,
                stop=(stop,) if isinstance(stop, str) else tuple(stop or ()),
                logprobs=logprobs is not None,
                top_logprobs=max(int(logprobs or 0), 1),
                seed=body.get("seed"),
                stream=body.get("stream") is True,
                headers=lowered,
                params=body,
                fingerprint=fingerprint("completions", {**body, "prompt": text}),
                provider=provider,
            )
        )
    return tuple(prompts)


def prompt_from_completion(
    body: Mapping[str, Any], *, headers: Mapping[str, str], provider: Provider = "openai"
) -> Prompt:
    """The Prompt of a request's first prompt (as recording and importing read a request)."""
    return prompts_from_completion(body, headers=headers, provider=provider)[0]
