"""Reply → the Gemini API's ``GenerateContentResponse``, and its other answers (token counts,
embeddings, the model list).

camelCase throughout, keys in the order the API writes them, and zero counts left out as
protobuf's JSON leaves them out. A function call ends with ``STOP`` (the API has no
``FUNCTION_CALL`` finish reason); the first call of a step carries a ``thoughtSignature``.
Vertex AI's answers add ``createTime`` and per-modality candidate details.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final

from mockserver import ids
from mockserver.reply.model import FinishReason, Reply, Token, Usage
from mockserver.values import Json, value_class

__all__ = [
    "GeminiMeta",
    "Safety",
    "candidate_body",
    "count_tokens_body",
    "embeddings_body",
    "finish_reason",
    "gemini_response",
    "model_body",
    "parts_of",
    "usage_metadata",
]

_FINISH: Final[dict[str, str]] = {
    "stop": "STOP",
    "length": "MAX_TOKENS",
    "tool_calls": "STOP",
    "content_filter": "SAFETY",
}
#: The harm categories the API rates, in its order.
HARM_CATEGORIES: Final = (
    "HARM_CATEGORY_HATE_SPEECH",
    "HARM_CATEGORY_DANGEROUS_CONTENT",
    "HARM_CATEGORY_HARASSMENT",
    "HARM_CATEGORY_SEXUALLY_EXPLICIT",
)


@value_class
class Safety:
    """What the safety filters said: the harm categories flagged, and which side they blocked
    (``input``: the prompt, answered with ``promptFeedback.blockReason``; ``output``: the
    candidate, ending with ``SAFETY``; ``None``: rated, let through)."""

    flagged: tuple[str, ...] = ()
    blocked: str | None = None


@value_class
class GeminiMeta:
    response_id: str
    model_version: str
    #: Vertex AI's ``createTime`` (RFC 3339); ``None`` for the Developer API.
    create_time: str | None = None
    #: The seed thought signatures derive from (the response, so each step has its own).
    signed: bool = True
    safety: Safety | None = None
    #: Stream granularity: one chunk per token, per word, or per N tokens.
    chunk: int | str = "token"
    #: The prompt's tokens that are images (``promptTokensDetails``' ``IMAGE`` row).
    image_tokens: int = 0

    @property
    def vertex(self) -> bool:
        return self.create_time is not None


def finish_reason(reason: FinishReason) -> str:
    return _FINISH[reason]


def safety_ratings(safety: Safety, *, side: str) -> list[Json]:
    """The ratings of each category: what was flagged ``HIGH`` (and ``blocked`` on the side
    it blocked), the rest ``NEGLIGIBLE``."""
    ratings = []
    for category in HARM_CATEGORIES:
        flagged = category in safety.flagged
        rating: Json = {"category": category, "probability": "HIGH" if flagged else "NEGLIGIBLE"}
        if flagged and safety.blocked == side:
            rating["blocked"] = True
        ratings.append(rating)
    return ratings


def thought_signature(meta: GeminiMeta, step: int) -> str:
    return ids.signature(meta.response_id, step)


def call_parts(reply: Reply, meta: GeminiMeta, *, candidate: int = 0) -> list[Json]:
    """The function calls, each a part; the step's first carries its thought signature."""
    parts: list[Json] = []
    for index, call in enumerate(reply.tool_calls):
        try:
            args = json.loads(call.arguments) if call.kind == "function" else {}
        except ValueError:
            args = {}
        part: Json = {"functionCall": {"name": call.name, "args": args}}
        if index == 0 and meta.signed:
            part["thoughtSignature"] = thought_signature(meta, candidate)
        parts.append(part)
    return parts


def thought_text(reply: Reply) -> str | None:
    """The thought summary the model shows (``includeThoughts``), if it thought."""
    reasoning = reply.reasoning
    if reasoning is None:
        return None
    text = "\n\n".join(reasoning.summary) or reasoning.text
    return text or None


def parts_of(reply: Reply, meta: GeminiMeta, *, candidate: int = 0) -> list[Json]:
    """A whole answer's parts: thoughts, then the text, then the function calls."""
    parts: list[Json] = []
    thought = thought_text(reply)
    if thought is not None:
        parts.append({"text": thought, "thought": True})
    text = reply.text if reply.text is not None else reply.refusal
    if text:
        parts.append({"text": text})
    parts.extend(call_parts(reply, meta, candidate=candidate))
    return parts


def _citations(reply: Reply, meta: GeminiMeta) -> Json | None:
    if not reply.annotations:
        return None
    if meta.vertex:
        cited = [
            {"startIndex": a.start_index, "endIndex": a.end_index, "uri": a.url, "title": a.title}
            for a in reply.annotations
        ]
        return {"citations": cited}
    sources = [
        {"startIndex": a.start_index, "endIndex": a.end_index, "uri": a.url}
        for a in reply.annotations
    ]
    return {"citationSources": sources}


def _logprobs(tokens: Sequence[Token]) -> Json:
    return {
        "topCandidates": [
            {"candidates": [{"token": t, "logProbability": p} for t, p in token.top]}
            for token in tokens
        ],
        "chosenCandidates": [{"token": t.text, "logProbability": t.logprob} for t in tokens],
    }


def candidate_body(
    reply: Reply, meta: GeminiMeta, *, index: int = 0, parts: list[Json] | None = None
) -> Json:
    """One candidate, whole (``parts``: the stream's last chunk's, else all of them)."""
    body: Json = {}
    safety = meta.safety
    blocked = safety is not None and safety.blocked == "output"
    if not blocked:
        shown = parts_of(reply, meta, candidate=index) if parts is None else parts
        body["content"] = {"parts": shown, "role": "model"}
    body["finishReason"] = finish_reason(reply.finish_reason)
    if safety is not None:
        body["safetyRatings"] = safety_ratings(safety, side="output")
    citations = _citations(reply, meta)
    if citations is not None:
        body["citationMetadata"] = citations
    if reply.logprobs and reply.tokens:
        tokens = list(reply.tokens)
        body["avgLogprobs"] = sum(t.logprob for t in tokens) / len(tokens)
        body["logprobsResult"] = _logprobs(tokens)
    body["index"] = index
    return body


def usage_metadata(
    usages: Sequence[Usage], meta: GeminiMeta, *, candidates: int | None = None
) -> Json:
    """``usageMetadata`` over the candidates' usages (``candidates``: the tokens sent so far,
    in a stream; every one by default). Thoughts are counted apart from the candidates."""
    usage = usages[0]
    thoughts = sum(u.reasoning_tokens for u in usages)
    if candidates is None:
        candidates = sum(u.completion_tokens - u.reasoning_tokens for u in usages)
    body: Json = {"promptTokenCount": usage.prompt_tokens}
    if candidates:
        body["candidatesTokenCount"] = candidates
    body["totalTokenCount"] = usage.prompt_tokens + candidates + thoughts
    if usage.cached_tokens:
        body["cachedContentTokenCount"] = usage.cached_tokens
    body["promptTokensDetails"] = prompt_details(usage.prompt_tokens, images=meta.image_tokens)
    if meta.vertex and candidates:
        body["candidatesTokensDetails"] = [{"modality": "TEXT", "tokenCount": candidates}]
    if thoughts:
        body["thoughtsTokenCount"] = thoughts
    if meta.vertex:
        body["trafficType"] = "ON_DEMAND"
    return body


def _prompt_feedback(meta: GeminiMeta) -> Json | None:
    safety = meta.safety
    if safety is None or safety.blocked != "input":
        return None
    return {"blockReason": "SAFETY", "safetyRatings": safety_ratings(safety, side="input")}


def response_tail(meta: GeminiMeta, usage: Json) -> Json:
    """What follows the candidates in every answer and chunk, in the API's order."""
    tail: Json = {"usageMetadata": usage, "modelVersion": meta.model_version}
    if meta.create_time is not None:
        tail["createTime"] = meta.create_time
    tail["responseId"] = meta.response_id
    return tail


def gemini_response(replies: Sequence[Reply], meta: GeminiMeta) -> Json:
    """A whole ``GenerateContentResponse`` (one candidate per reply); a blocked prompt has no
    candidates, only its ``promptFeedback``."""
    feedback = _prompt_feedback(meta)
    usages = [r.usage for r in replies]
    if feedback is not None:
        return {"promptFeedback": feedback, **response_tail(meta, usage_metadata(usages, meta))}
    candidates = [candidate_body(reply, meta, index=i) for i, reply in enumerate(replies)]
    return {"candidates": candidates, **response_tail(meta, usage_metadata(usages, meta))}


def prompt_details(total: int, *, images: int) -> list[Json]:
    """``promptTokensDetails``: the prompt's tokens by modality, text first."""
    images = min(images, total)
    details: list[Json] = [{"modality": "TEXT", "tokenCount": total - images}]
    if images:
        details.append({"modality": "IMAGE", "tokenCount": images})
    return details


def count_tokens_body(total: int, *, cached: int = 0, images: int = 0) -> Json:
    """``countTokens``' answer."""
    body: Json = {"totalTokens": total}
    if cached:
        body["cachedContentTokenCount"] = cached
    body["promptTokensDetails"] = prompt_details(total, images=images)
    return body


def embeddings_body(vectors: Sequence[Sequence[float]], *, batch: bool) -> Json:
    """``embedContent``'s ``{embedding}`` or ``batchEmbedContents``' ``{embeddings}``."""
    if batch:
        return {"embeddings": [{"values": list(v)} for v in vectors]}
    return {"embedding": {"values": list(vectors[0])}}


def model_body(name: str, *, embedding: bool, input_limit: int, output_limit: int) -> Json:
    """One ``Model`` of the list (``models/…``), with the methods it supports."""
    methods = (
        ["embedContent", "countTextTokens", "countTokens", "asyncBatchEmbedContent"]
        if embedding
        else ["generateContent", "countTokens", "createCachedContent", "batchGenerateContent"]
    )
    body: Json = {
        "name": f"models/{name}",
        "version": "001",
        "displayName": name.replace("-", " ").title(),
        "description": f"mockserver's stand-in for {name}",
        "inputTokenLimit": input_limit,
        "outputTokenLimit": output_limit,
        "supportedGenerationMethods": methods,
    }
    if not embedding:
        body.update({"temperature": 1, "topP": 0.95, "topK": 64, "maxTemperature": 2})
        if "2.5" in name or name.startswith("gemini-3"):
            body["thinking"] = True
    return body
