"""Reply → Ollama's ``/api/chat`` and ``/api/generate`` answers: a whole body, or the objects
of an NDJSON stream (framed by ``render/ndjson.py``).

::

    chat, streamed        {model, created_at, message: {role, content, thinking?}, done: false}
                          … a piece of thinking, then of text, a line each; the tool calls in
                          one line (``message.tool_calls``, arguments as an object);
                          then {…, message: {role, content: ""}, done: true, done_reason,
                          total_duration, load_duration, prompt_eval_count,
                          prompt_eval_duration, eval_count, eval_duration}
    generate, streamed    {model, created_at, response, thinking?, done: false} …, then
                          {…, response: "", done: true, done_reason, context, <counters>}
    whole                 the stream's last object, with everything said in it

Keys are in the order Ollama's Go structs write them (``api/types.go``). The counters are
derived from the reply's token counts and the turn's seed (durations in nanoseconds, at the
scenario's tokens per second if it sets one), and each ``created_at`` from the namespace's
clock plus the time the tokens before it took: the same turn always says the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final, Literal

from mockserver import ids
from mockserver.reply.arguments import arguments_object
from mockserver.reply.model import Reply, ToolCall
from mockserver.reply.tokens import group_texts, tokenize
from mockserver.values import Json, value_class

__all__ = [
    "OllamaMeta",
    "Timings",
    "chat_body",
    "chat_chunks",
    "done_reason",
    "generate_body",
    "generate_chunks",
    "ollama_call_id",
    "timings_of",
]

#: A model's speed when the scenario sets none: tokens per second read, and said.
_PROMPT_RATE: Final = 650.0
_EVAL_RATE: Final = 60.0
_NS: Final = 1_000_000_000
#: The vocabulary ``context`` token ids are drawn from (Llama 3's).
_VOCABULARY: Final = 128_256


@value_class
class Timings:
    """A turn's counters, in nanoseconds, and when it started (seconds on its clock)."""

    started: float
    load: int
    prompt_eval: int
    #: Nanoseconds per output token.
    per_token: int
    eval: int
    total: int
    #: How an instant is written, given the start and the nanoseconds since (``None``: RFC
    #: 3339 to the nanosecond, ``ids.rfc3339_nano``; the replay lane writes its template's
    #: sentinels).
    stamp: Callable[[float, int], str] | None = None

    def at(self, tokens: int) -> str:
        """``created_at`` once ``tokens`` output tokens are said."""
        elapsed = self.load + self.prompt_eval + tokens * self.per_token
        return (self.stamp or ids.rfc3339_nano)(self.started, elapsed)

    @property
    def end(self) -> str:
        return (self.stamp or ids.rfc3339_nano)(self.started, self.total)


def timings_of(
    reply: Reply, *, started: float, seed: int, tokens_per_second: float | None = None
) -> Timings:
    """The counters of ``reply`` (jittered by ``seed``, at ``tokens_per_second`` if given)."""
    rng = ids.derive_rng(seed, "ollama-timings")
    load = rng.randint(2_000_000, 60_000_000)
    prompt_eval = int(reply.usage.prompt_tokens / _PROMPT_RATE * _NS * rng.uniform(0.9, 1.1))
    rate = tokens_per_second or _EVAL_RATE * rng.uniform(0.9, 1.1)
    per_token = int(_NS / rate)
    evaluated = reply.usage.completion_tokens * per_token
    total = load + prompt_eval + evaluated + rng.randint(200_000, 2_000_000)
    return Timings(started, load, max(prompt_eval, 1), per_token, max(evaluated, 1), total)


@value_class
class OllamaMeta:
    model: str
    timings: Timings
    #: The request turned ``think`` on: the reply's reasoning is its ``thinking``.
    thinking: bool = False
    #: A request with nothing to say (no messages, no prompt): loads the model, or, with
    #: ``keep_alive: 0``, unloads it; answered with that ``done_reason`` and no counters.
    load: Literal["load", "unload"] | None = None
    #: Stream granularity: one line per token, per word, or per N tokens.
    chunk: int | Literal["token", "word"] = "token"
    #: ``/api/generate``'s ``context`` (raw mode sends none).
    context: tuple[int, ...] = ()


def ollama_call_id(call: ToolCall) -> str:
    """The call's ``call_…`` id, as Ollama's server writes them (eight lowercase letters and
    digits); an id already in that style is kept."""
    if call.call_id.startswith("call_") and len(call.call_id) == 13 and call.call_id.islower():
        return call.call_id
    return "call_" + ids.hex_id("", call.call_id, length=8)


def _tool_calls(reply: Reply) -> list[Json]:
    return [
        {"id": ollama_call_id(call), "function": _function(index, call)}
        for index, call in enumerate(reply.tool_calls)
    ]


def _function(index: int, call: ToolCall) -> Json:
    arguments = arguments_object(call, must="an Ollama tool call's arguments")
    return {"index": index, "name": call.name, "arguments": arguments}


def done_reason(reply: Reply) -> str:
    return "length" if reply.finish_reason == "length" else "stop"


def _said(reply: Reply) -> str:
    return (reply.refusal if reply.refusal is not None else reply.text) or ""


def _thinking(reply: Reply, meta: OllamaMeta) -> str:
    reasoning = reply.reasoning
    if not meta.thinking or reasoning is None:
        return ""
    return reasoning.text if reasoning.text is not None else "\n\n".join(reasoning.summary)


def _counters(reply: Reply, meta: OllamaMeta) -> Json:
    timings = meta.timings
    return {
        "total_duration": timings.total,
        "load_duration": timings.load,
        "prompt_eval_count": reply.usage.prompt_tokens,
        "prompt_eval_duration": timings.prompt_eval,
        "eval_count": reply.usage.completion_tokens,
        "eval_duration": timings.eval,
    }


def _message(content: str, *, thinking: str = "", calls: list[Json] | None = None) -> Json:
    message: Json = {"role": "assistant", "content": content}
    if thinking:
        message["thinking"] = thinking
    if calls:
        message["tool_calls"] = calls
    return message


def _ending(reply: Reply, meta: OllamaMeta) -> Json:
    """What closes an answer: its reason and counters (a load's: its reason alone)."""
    if meta.load is not None:
        return {"done": True, "done_reason": meta.load}
    return {"done": True, "done_reason": done_reason(reply), **_counters(reply, meta)}


def chat_body(reply: Reply, meta: OllamaMeta) -> Json:
    """The whole ``/api/chat`` answer (``stream: false``)."""
    message = (
        _message("")
        if meta.load is not None
        else _message(_said(reply), thinking=_thinking(reply, meta), calls=_tool_calls(reply))
    )
    end = meta.timings.end if meta.load is None else meta.timings.at(0)
    return {"model": meta.model, "created_at": end, "message": message, **_ending(reply, meta)}


def _pieces(reply: Reply, meta: OllamaMeta) -> Iterator[tuple[str, str, int]]:
    """``(thinking, text, tokens said so far)`` of each line that says something."""
    said = 0
    thinking = _thinking(reply, meta)
    if thinking:
        for piece in group_texts(tokenize(thinking), meta.chunk):
            said += 1
            yield piece, "", said
    for piece in group_texts(reply.token_texts, meta.chunk):
        said += 1
        yield "", piece, said


def chat_chunks(reply: Reply, meta: OllamaMeta) -> list[Json]:
    """The objects of a streamed ``/api/chat`` answer, the ``done`` one last."""
    head = {"model": meta.model}
    chunks: list[Json] = []
    if meta.load is None:
        for thinking, text, said in _pieces(reply, meta):
            message = _message(text, thinking=thinking)
            chunks.append(
                {**head, "created_at": meta.timings.at(said), "message": message, "done": False}
            )
        calls = _tool_calls(reply)
        if calls:
            at = meta.timings.at(reply.usage.completion_tokens)
            chunks.append(
                {**head, "created_at": at, "message": _message("", calls=calls), "done": False}
            )
    end = meta.timings.end if meta.load is None else meta.timings.at(0)
    chunks.append({**head, "created_at": end, "message": _message(""), **_ending(reply, meta)})
    return chunks


def _generate_ending(reply: Reply, meta: OllamaMeta) -> Json:
    ending = _ending(reply, meta)
    if meta.load is not None or not meta.context:
        return ending
    done, reason = ending.pop("done"), ending.pop("done_reason")
    return {"done": done, "done_reason": reason, "context": list(meta.context), **ending}


def generate_body(reply: Reply, meta: OllamaMeta) -> Json:
    """The whole ``/api/generate`` answer (``stream: false``)."""
    body: Json = {"model": meta.model}
    if meta.load is not None:
        return {**body, "created_at": meta.timings.at(0), "response": "", **_ending(reply, meta)}
    body["created_at"] = meta.timings.end
    body["response"] = _said(reply)
    thinking = _thinking(reply, meta)
    if thinking:
        body["thinking"] = thinking
    return {**body, **_generate_ending(reply, meta)}


def generate_chunks(reply: Reply, meta: OllamaMeta) -> list[Json]:
    """The objects of a streamed ``/api/generate`` answer, the ``done`` one last."""
    head = {"model": meta.model}
    chunks: list[Json] = []
    if meta.load is None:
        for thinking, text, said in _pieces(reply, meta):
            chunk: Json = {**head, "created_at": meta.timings.at(said), "response": text}
            if thinking:
                chunk["thinking"] = thinking
            chunks.append({**chunk, "done": False})
    end = meta.timings.end if meta.load is None else meta.timings.at(0)
    chunks.append({**head, "created_at": end, "response": "", **_generate_ending(reply, meta)})
    return chunks


def context_of(reply: Reply, *, seed: int) -> tuple[int, ...]:
    """``/api/generate``'s ``context``: a token id for each token read and said."""
    rng = ids.derive_rng(seed, "ollama-context")
    size = reply.usage.prompt_tokens + reply.usage.completion_tokens
    return tuple(rng.randrange(_VOCABULARY) for _ in range(size))
