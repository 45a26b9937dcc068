"""A scenario's reply spec → :class:`Content` (then ``compose`` applies the finishing rules)."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mockserver import ids
from mockserver.errors import InvalidRequestError
from mockserver.prompt import Prompt
from mockserver.reply.arguments import fitted_arguments
from mockserver.reply.generate import Content, Generator
from mockserver.reply.model import Annotation, Reasoning, RefusalDetails, Token, ToolCall
from mockserver.reply.prompt_schema import schema_in_messages
from mockserver.reply.tokens import count_tokens
from mockserver.scenario.terms import PLACEHOLDER

if TYPE_CHECKING:  # read, never built here: start-up does not import the scenario models
    from mockserver.scenario.model import Reply, ToolCallSpec

__all__ = ["scripted_content"]

_COMPACT = {"separators": (",", ":"), "ensure_ascii": False}


def scripted_content(
    spec: Reply, prompt: Prompt, *, rng: random.Random, generator: Generator, rule: str
) -> Content:
    """What ``spec`` says for ``prompt``. ``error`` and ``fixture`` are resolved before this."""
    if prompt.api == "embeddings" or spec.embedding is not None:
        return _embedding_content(spec, prompt, rule=rule)
    text = _text(spec, prompt, rng=rng, generator=generator, rule=rule)
    if len(spec.tool_calls or ()) > 1 and not prompt.parallel_tool_calls:
        raise InvalidRequestError(
            f"mockserver: scenario rule '{rule}' makes {len(spec.tool_calls or ())} tool calls, "
            "but the request sets parallel_tool_calls: false (a model then makes one call per "
            "turn)",
            param="parallel_tool_calls",
            code="scenario_reply_invalid",
        )
    calls = tuple(
        _call(c, prompt, rng=rng, generator=generator, rule=rule) for c in spec.tool_calls or ()
    )
    if not calls and text is None and spec.refusal is None:
        text = ""
    details = spec.refusal_details
    return Content(
        text=text,
        refusal=spec.refusal,
        refusal_details=RefusalDetails(details.category, details.explanation) if details else None,
        tool_calls=calls,
        reasoning=_reasoning(spec, rng=rng, prompt=prompt, generator=generator),
        annotations=_annotations(spec, text or ""),
        finish_reason=spec.finish_reason,
        usage={str(k): v for k, v in (spec.usage or {}).items()},
        hosted=tuple(spec.hosted or ()),
        tokens=_scripted_tokens(spec),
    )


def _embedding_content(spec: Reply, prompt: Prompt, *, rule: str) -> Content:
    """An embeddings request's reply: a vector, or a text to embed in place of the input.
    What else a reply can say (tool calls, JSON, …) an embedding model does not; nor does a
    chat model say a vector."""
    if prompt.api != "embeddings":
        raise InvalidRequestError(
            f"mockserver: scenario rule '{rule}' replies with an embedding, which only answers "
            f"embeddings requests (this is a {prompt.api} request; add when: {{api: embeddings}})",
            code="scenario_reply_invalid",
        )
    if isinstance(spec.embedding, list):
        return Content(text="", embedding=tuple(float(x) for x in spec.embedding))
    if spec.embedding == "generate" or not (set(spec.kinds()) - {"text"}):
        return Content(text=fill_placeholders(spec.text, prompt) if spec.text else "")
    raise InvalidRequestError(
        f"mockserver: scenario rule '{rule}' answers an embeddings request with "
        f"{', '.join(spec.kinds())}: an embeddings reply is embedding (a vector or generate), "
        "text (embedded in place of the input), or error",
        code="scenario_reply_invalid",
    )


def _scripted_tokens(spec: Reply) -> tuple[Token, ...] | None:
    if spec.logprobs is None:
        return None
    return tuple(
        Token(
            text=t.token,
            logprob=t.logprob,
            top=tuple((alt.token, alt.logprob) for alt in t.top_logprobs),
        )
        for t in spec.logprobs
    )


def _text(
    spec: Reply, prompt: Prompt, *, rng: random.Random, generator: Generator, rule: str
) -> str | None:
    if spec.text is not None:
        text = fill_placeholders(spec.text, prompt)
        _text_fits_a_strict_schema(text, prompt, rule=rule)
        return text
    if spec.generate is not None:
        return _generated(spec, prompt, rng=rng, generator=generator)
    if spec.json_ is not None:
        return _json(spec.json_, prompt, rng=rng, generator=generator, rule=rule)
    return None


def _generated(spec: Reply, prompt: Prompt, *, rng: random.Random, generator: Generator) -> str:
    assert spec.generate is not None
    words = spec.generate.words
    sentences = spec.generate.sentences or (max(1, words // 8) if words else rng.randint(2, 5))
    text = generator.text.prose(rng, topic_text=prompt.last_user_text, sentences=sentences)
    if words is None:
        return text
    while len(text.split()) < words:
        text += " " + generator.text.prose(rng, topic_text=prompt.last_user_text, sentences=2)
    return " ".join(text.split()[:words]).rstrip(",;:.") + "."


def _json(
    value: Any, prompt: Prompt, *, rng: random.Random, generator: Generator, rule: str
) -> str:
    schema = prompt.output_format.schema if prompt.output_format.type == "json_schema" else None
    if value == "generate":
        if schema is None and prompt.output_format.type == "json_object":
            schema = schema_in_messages(prompt)
        if schema is None:
            value = {
                "answer": generator.text.prose(rng, topic_text=prompt.last_user_text, sentences=1)
            }
        else:
            value = generator.json_value(
                schema, rng=rng, what="response format", param="response_format"
            )
    elif schema is not None:
        problems = _validation_errors(value, schema, param="response_format")
        if problems:
            raise InvalidRequestError(
                f"mockserver: the json reply of scenario rule '{rule}' does not validate against "
                f"the request's response_format schema: {problems[0]}",
                param="response_format",
                code="scenario_reply_invalid",
            )
    return json.dumps(value, **_COMPACT)  # type: ignore[arg-type]


def _text_fits_a_strict_schema(text: str, prompt: Prompt, *, rule: str) -> None:
    """A model under a strict ``json_schema`` only writes JSON that fits it: so must a text."""
    output = prompt.output_format
    if output.type != "json_schema" or not output.strict or output.schema is None:
        return
    try:
        value = json.loads(text)
    except ValueError:
        problem = "it is not JSON"
    else:
        problems = _validation_errors(value, output.schema, param="response_format")
        if not problems:
            return
        problem = problems[0]
    raise InvalidRequestError(
        f"mockserver: the text reply of scenario rule '{rule}' does not fit the request's strict "
        f"response_format schema: {problem}",
        param="response_format",
        code="scenario_reply_invalid",
    )


def _validation_errors(value: Any, schema: Mapping[str, Any], *, param: str) -> list[str]:
    """Where ``value`` breaks ``schema``; a schema that cannot be followed (a ``$ref`` to
    nothing, or to itself with no end) is the request's 400, as when a value is generated."""
    from referencing.exceptions import Unresolvable

    from mockserver.reply.schema_validator import bounded_validator  # rare and not cheap
    from mockserver.reply.schema_values.keywords import UnsatisfiableSchemaError

    try:
        errors = list(bounded_validator()(schema).iter_errors(value))
    except UnsatisfiableSchemaError as exc:  # a pattern too costly, too slow or invalid
        raise InvalidRequestError(
            f"Invalid schema for {param}: {exc}.", param=param, code="invalid_json_schema"
        ) from None
    except Unresolvable as exc:
        ref = str(getattr(exc, "ref", ""))
        ref = "#" + ref if ref.startswith("/") else ref  # a JSON pointer, as the $ref wrote it
        raise InvalidRequestError(
            f"Invalid schema for {param}: unresolvable $ref '{ref}'.",
            param=param,
            code="invalid_json_schema",
        ) from None
    except RecursionError:
        raise InvalidRequestError(
            f"Invalid schema for {param}: its $refs lead back to themselves with no end.",
            param=param,
            code="invalid_json_schema",
        ) from None
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors]


def _call(
    spec: ToolCallSpec, prompt: Prompt, *, rng: random.Random, generator: Generator, rule: str
) -> ToolCall:
    call_id = spec.id or ids.opaque_id("call_", rng.getrandbits(64), length=24)
    tool = prompt.tool(spec.name)
    if tool is None:  # a model calls only what it is offered
        offered = ", ".join(t.name for t in prompt.tools) or "none"
        raise InvalidRequestError(
            f"mockserver: scenario rule '{rule}' calls tool '{spec.name}', which the request "
            f"does not offer (offered: {offered})",
            param="tools",
            code="scenario_reply_invalid",
        )
    if "kind" in spec.model_fields_set and spec.kind != tool.kind:
        raise InvalidRequestError(
            f"mockserver: scenario rule '{rule}' calls '{spec.name}' as a {spec.kind} tool, but "
            f"the request offers it as a {tool.kind} tool",
            param="tools",
            code="scenario_reply_invalid",
        )
    if isinstance(spec.arguments, dict):
        given = spec.arguments
        if spec.fill == "generate" and tool.kind == "function":
            given = fitted_arguments(
                given,
                tool.parameters or {},
                generated=lambda: generator.json_value(
                    tool.parameters or {"type": "object", "properties": {}},
                    rng=rng,
                    what=f"function '{tool.name}'",
                    param="tools",
                ),
            )
        if tool.strict and tool.parameters is not None:
            problems = _validation_errors(given, tool.parameters, param="tools")
            if problems:
                raise InvalidRequestError(
                    f"mockserver: the arguments scenario rule '{rule}' gives '{spec.name}' do "
                    f"not validate against its strict parameters schema: {problems[0]}",
                    param="tools",
                    code="scenario_reply_invalid",
                )
        arguments = json.dumps(given, **_COMPACT)  # type: ignore[arg-type]
    elif spec.arguments != "generate":
        arguments = spec.arguments
    elif tool.kind == "function":
        value = generator.json_value(
            tool.parameters or {"type": "object", "properties": {}},
            rng=rng,
            what=f"function '{tool.name}'",
            param="tools",
        )
        arguments = json.dumps(value, **_COMPACT)  # type: ignore[arg-type]
    else:
        arguments = generator.text.sentence(rng, topic=spec.name)
    return ToolCall(call_id=call_id, name=spec.name, arguments=arguments, kind=tool.kind)


def _reasoning(
    spec: Reply, *, rng: random.Random, prompt: Prompt, generator: Generator
) -> Reasoning | None:
    if spec.reasoning is None:
        return generator.reasoning(prompt, rng=rng)
    r = spec.reasoning
    tokens = (
        r.tokens
        if r.tokens is not None
        else sum(count_tokens(t) for t in [*r.summary, r.text or ""])
    )
    return Reasoning(summary=tuple(r.summary), text=r.text, tokens=tokens, redacted=r.redacted)


def _annotations(spec: Reply, text: str) -> tuple[Annotation, ...]:
    out = []
    for a in spec.annotations or ():
        start = text.find(a.cite)
        if start < 0:
            raise InvalidRequestError(
                f"mockserver: annotation cites {a.cite!r}, which is not in the reply text",
                code="scenario_reply_invalid",
            )
        out.append(
            Annotation(url=a.url, title=a.title, start_index=start, end_index=start + len(a.cite))
        )
    return tuple(out)


def fill_placeholders(template: str, prompt: Prompt) -> str:
    """``{{last_user}}``, ``{{model}}``, ``{{api}}``, ``{{turn}}``, ``{{tool_result}}`` (the
    last one; ``{{tool_result.NAME}}`` the last of tool NAME, ``{{tool_result.N}}`` the Nth,
    from 0, negative from the end), ``{{tool_results}}`` (all, one per line),
    ``{{metadata.key}}`` — plain substitution, no code runs; a value that is not there is
    empty."""

    def value(name: str) -> str:
        root, _, key = name.partition(".")
        if root == "metadata":
            return prompt.metadata.get(key, "")
        if root in ("tool_result", "tool_results"):
            return _tool_result(prompt, key, every=root == "tool_results")
        values: Mapping[str, Any] = {
            "last_user": prompt.last_user_text,
            "model": prompt.model,
            "api": prompt.api,
            "turn": sum(1 for m in prompt.messages if m.role == "assistant"),
        }
        return str(values[root])

    return PLACEHOLDER.sub(lambda m: value(m.group(1)), template)


def _tool_result(prompt: Prompt, key: str, *, every: bool) -> str:
    results = prompt.tool_results()
    if every:
        return "\n".join(text for _, text in results)
    if not key:
        return results[-1][1] if results else ""
    if key.lstrip("-").isdigit():
        index = int(key)
        return results[index][1] if -len(results) <= index < len(results) else ""
    return next((text for name, text in reversed(results) if name == key), "")
