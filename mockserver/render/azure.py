"""OpenAI's answers as Azure OpenAI writes them: the same API, with its content filter's results.

Azure OpenAI serves OpenAI's models behind its own gateway, which writes every answer anew:
keys in its schema's order (alphabetical, but for the filter results), no ``service_tier`` or
stream ``obfuscation``, and the results of the content filter that judges every prompt and
every completion (``prompt_filter_results``; each choice's ``content_filter_results``: per
category ``filtered`` and ``severity``). A stream opens with a chunk without choices (empty
``id``, ``created: 0``) that carries the prompt's results. A prompt the filter blocks is a
400 ``content_filter`` error with an ``innererror`` (``ResponsibleAIPolicyViolation``); a
completion it blocks ends with ``finish_reason: content_filter``.

The verdicts come from the moderation step every family shares (``engine/moderated.py``): a
scenario's ``moderation`` flags (OpenAI's categories) are judged in Azure's four, and what a
flag marks is filtered, as Azure's default filter does at medium severity and above.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from mockserver import ids
from mockserver.errors import APIError
from mockserver.reply.moderation import ModerationVerdict
from mockserver.values import Json, value_class

__all__ = [
    "CONTENT_FILTERED",
    "RATE_LIMITED",
    "AzureFilters",
    "azure_body",
    "azure_chunks",
    "azure_error_body",
    "azure_headers",
    "azure_json",
    "content_filter_results",
    "filter_error_body",
    "gateway_headers",
    "prompt_filter_results",
]

#: Azure's categories, and the moderation categories each one judges.
_CATEGORIES: dict[str, tuple[str, ...]] = {
    "hate": ("hate", "hate/threatening", "harassment", "harassment/threatening"),
    "self_harm": ("self-harm", "self-harm/intent", "self-harm/instructions"),
    "sexual": ("sexual", "sexual/minors"),
    "violence": ("violence", "violence/graphic", "illicit", "illicit/violent"),
}
#: A flagged category's score from which Azure says ``high`` (else ``medium``).
_HIGH = 0.93
#: What Azure says when its filter could not judge a side.
_NOT_FILTERED = {"code": "content_filter_error", "message": "The contents are not filtered"}
#: The message of a prompt the filter blocks.
CONTENT_FILTERED = (
    "The response was filtered due to the prompt triggering Azure OpenAI's content management "
    "policy. Please modify your prompt and retry. To learn more about our content filtering "
    "policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766"
)
#: Keys OpenAI writes that Azure's answers do not carry.
_NOT_AZURE = frozenset({"service_tier", "obfuscation", "moderation"})
#: The region a mock resource answers from.
REGION = "East US"


@value_class
class AzureFilters:
    """The content filter's results for one answer: the prompt's, and the completion's."""

    prompt: list[Json]
    completion: Json


def content_filter_results(verdict: ModerationVerdict | None) -> Json:
    """Per Azure category, ``filtered`` and ``severity`` (``None``: the filter failed)."""
    if verdict is None:
        return {"error": dict(_NOT_FILTERED)}
    results: Json = {}
    for category, judged in _CATEGORIES.items():
        flagged = [verdict.scores[c] for c in judged if verdict.categories.get(c)]
        severity = "safe" if not flagged else "high" if max(flagged) >= _HIGH else "medium"
        results[category] = {"filtered": bool(flagged), "severity": severity}
    return results


def prompt_filter_results(verdict: ModerationVerdict | None, *, index: int = 0) -> list[Json]:
    """The results of the prompt at ``index`` (of a request's prompts): its categories and the
    jailbreak shield's (never detected)."""
    results = content_filter_results(verdict)
    if "error" not in results:
        results = {
            "hate": results["hate"],
            "jailbreak": {"filtered": False, "detected": False},
            **{k: v for k, v in results.items() if k != "hate"},
        }
    return [{"prompt_index": index, "content_filter_results": results}]


def filter_error_body(verdict: ModerationVerdict) -> Json:
    """The ``error`` fields Azure adds to OpenAI's for a prompt its filter blocked."""
    return {
        "type": None,
        "status": 400,
        "innererror": {
            "code": "ResponsibleAIPolicyViolation",
            "content_filter_result": prompt_filter_results(verdict)[0]["content_filter_results"],
        },
    }


def azure_json(value: Any) -> Any:
    """``value`` (an OpenAI answer, or part of one) in Azure's order: every object's keys
    sorted, without the keys Azure does not write."""
    if isinstance(value, dict):
        return {k: azure_json(value[k]) for k in sorted(value) if k not in _NOT_AZURE}
    if isinstance(value, list):
        return [azure_json(item) for item in value]
    return value


def azure_body(body: Json, filters: AzureFilters) -> Json:
    """A completion (``chat.completion`` or ``text_completion``) as Azure writes it, with the
    filter's results."""
    answer = azure_json(body)
    answer["choices"] = [
        {"content_filter_results": filters.completion, **choice} for choice in answer["choices"]
    ]
    return _with_prompt_results(answer, filters)


def azure_chunks(chunks: Iterable[Json], filters: AzureFilters) -> Iterator[Json]:
    """A stream's chunks (chat or text completion) as Azure writes them: first the prompt's
    results (a chunk without choices), then each chunk, its choices with the completion's
    results where they carry text (an empty object on the others, as Azure's do)."""
    yield {
        "choices": [],
        "created": 0,
        "id": "",
        "model": "",
        "object": "",
        "prompt_filter_results": filters.prompt,
    }
    for chunk in chunks:
        answer = azure_json(chunk)
        answer["choices"] = [
            {"content_filter_results": _chunk_results(choice, filters), **choice}
            for choice in answer["choices"]
        ]
        yield answer


def _chunk_results(choice: Mapping[str, Any], filters: AzureFilters) -> Json:
    delta = choice.get("delta") or choice  # a chat chunk's delta, or a text chunk's choice
    said = any(isinstance(delta.get(k), str) and delta[k] for k in ("content", "refusal", "text"))
    if said or choice.get("finish_reason") == "content_filter":
        return filters.completion
    return {}


def _with_prompt_results(answer: Json, filters: AzureFilters) -> Json:
    """``answer`` with ``prompt_filter_results`` in its place among the sorted keys."""
    merged = {**answer, "prompt_filter_results": filters.prompt}
    return {k: merged[k] for k in sorted(merged)}


def azure_headers(headers: Mapping[str, str], *, deployment: str) -> dict[str, str]:
    """The headers of an Azure answer (the ``azure`` shape's, ``render/errors.py``) with the
    deployment that answered it."""
    return {**headers, "x-ms-deployment-name": deployment}


def gateway_headers(request_id: str, limits: Mapping[str, str]) -> dict[str, str]:
    """The headers Azure's gateway puts on an answer: its request ids (``request_id``, the
    API's, and the gateway's own derived from it), its region, and the rate limits."""
    return {
        "apim-request-id": ids.uuid_id("apim", request_id),
        "x-request-id": request_id,
        "x-ms-region": REGION,
        "x-ms-rai-invoked": "true",
        "x-content-type-options": "nosniff",
        **limits,
    }


#: Azure's words for a request over its deployment's rate limit (``{seconds}``: retry-after).
RATE_LIMITED = (
    "Requests to the {model} deployment under your Azure OpenAI resource have exceeded the rate "
    "limit of your current pricing tier. Please retry after {seconds} seconds. Please go here: "
    "https://aka.ms/oai/quotaincrease if you would like to further increase the default rate "
    "limit."
)


def azure_error_body(error: APIError) -> Json:
    """``error``'s body as Azure OpenAI answers it: the gateway's ``{"error": {code, message}}``
    for a 429 (in Azure's words unless the scenario gave its own) and for what the gateway
    refuses itself, else OpenAI's (a content filter's with its ``innererror``)."""
    if error.status != 429:
        return error.body()
    message = error.message
    if not error.gave("message"):
        seconds = error.headers.get("retry-after", "1")
        model = error.facts.get("model", "requested")
        message = RATE_LIMITED.format(model=model, seconds=seconds)
    return {"error": {"code": "429", "message": message}}
