"""What the Redis backend writes reads back as what was written, as JSON: a journal entry (its
request and answer kept unparsed, as their text), its fields read by their types (a field
added later, or one this release does not know, read tolerantly), a stored object of every
kind, a namespace's state with its budgets; and a value that is not this layout's is
refused, never used."""

from __future__ import annotations

import pickle
from collections import OrderedDict, deque
from dataclasses import fields

import orjson
import pytest

from mockserver.engine.ratelimit import Bucket, Budgets
from mockserver.render import sse
from mockserver.render.responses import ResponseMeta
from mockserver.reply.logprobs import ScoredTokens
from mockserver.reply.model import Reply, ToolCall, Usage
from mockserver.scenario.model import Reply as ScriptedReply
from mockserver.store import (
    JournalEntry,
    Namespace,
    StoredChatCompletion,
    StoredConversation,
    StoredMessageBatch,
    StoredPromptCache,
    StoredResponse,
    Unparsed,
)
from mockserver.store.redis.codec import (
    ScenarioCodec,
    Unreadable,
    decode_entry,
    decode_stored,
    encode_entry,
    encode_stored,
)

STREAM = b'data: {"id":"chatcmpl-1"}\n\ndata: [DONE]\n\n'


def _entry(**changes: object) -> JournalEntry:
    values: dict[str, object] = {
        "seq": 7,
        "method": "POST",
        "path": "/v1/chat/completions",
        "status": 200,
        "api": "chat",
        "model": "gpt-4o-mini",
        "stream": True,
        "request": Unparsed(b'{"model":"gpt-4o-mini"}', orjson.loads),
        "response": Unparsed(lambda: STREAM, sse.decode_stream),
        "rule": "greeting",
        "miss": None,
        "summary": "hello",
        "duration_ms": 3.25,
        "timing": [0.5, 1.0],
        "cut": True,
        "number": 41,
        "size": 1234,
    }
    values.update(changes)
    return JournalEntry(**values)  # type: ignore[arg-type]


def test_an_entry_reads_back_field_for_field_its_answer_as_the_bytes_sent() -> None:
    entry = _entry()
    written = encode_entry(entry)
    assert isinstance(orjson.loads(written), dict)  # JSON, nothing else
    back = decode_entry(written)
    for field in fields(JournalEntry):
        if field.name not in ("request", "response"):
            assert getattr(back, field.name) == getattr(entry, field.name), field.name
    assert isinstance(back.request, Unparsed)
    assert back.request.raw == b'{"model":"gpt-4o-mini"}'
    assert back.requested() == {"model": "gpt-4o-mini"}
    assert isinstance(back.response, Unparsed)
    assert back.response.raw == STREAM  # made when written
    assert back.answer() == entry.answer()


def test_bytes_that_are_not_text_read_back_as_they_were() -> None:
    raw = b'{"x": "\xff\xfe"}'
    back = decode_entry(encode_entry(_entry(request=Unparsed(raw, orjson.loads))))
    assert isinstance(back.request, Unparsed)
    assert back.request.raw == raw


def test_parsed_values_in_an_entry_read_back_as_json() -> None:
    entry = _entry(request={"messages": [["a", "b"]]}, response={"error": {"code": 1}})
    back = decode_entry(encode_entry(entry))
    assert back.request == {"messages": [["a", "b"]]}
    assert back.response == {"error": {"code": 1}}
    assert back.timing == [0.5, 1.0]


def test_an_entry_without_a_later_field_or_with_an_unknown_one_reads_back() -> None:
    written = orjson.loads(encode_entry(_entry(request=None, response=None)))
    del written["cut"], written["number"]  # as a release before those fields wrote it
    written["headers_of_a_later_release"] = [["x-id", "1"]]
    back = decode_entry(orjson.dumps(written))
    assert (back.seq, back.path, back.rule) == (7, "/v1/chat/completions", "greeting")
    assert (back.cut, back.number) == (False, 0)  # their defaults


@pytest.mark.parametrize(
    "blob",
    [
        pickle.dumps(_entry(response=Unparsed(b"{}", orjson.loads))),  # a release that pickled
        b"\x00\xffnot json",
        b'{"seq": "seven", "method": "POST", "path": "/", "status": 200}',
        b'{"method": "POST", "path": "/", "status": 200}',  # no seq
        b'{"seq": 1, "method": "POST", "path": "/", "status": 200, "kept": {"request": "eval"}}',
        b"[1, 2, 3]",
    ],
)
def test_an_entry_that_is_not_this_layouts_is_unreadable(blob: bytes) -> None:
    with pytest.raises(Unreadable):
        decode_entry(blob)


def _response() -> StoredResponse:
    meta = ResponseMeta(
        id="resp_1",
        created_at=1700,
        echo={"model": "gpt-4o", "tools": [{"type": "function", "name": "f"}]},
        include=frozenset({"reasoning.encrypted_content", "message.output_text.logprobs"}),
        chunk=3,
    )
    reply = Reply(
        usage=Usage(5, 7),
        text="Hello there",
        tokens=ScoredTokens(("Hello", " there"), seed=9, top_k=2),
        tool_calls=(ToolCall("call_1", "f", '{"a": 1}'),),
        finish_reason="tool_calls",
        logprobs=True,
        hosted=({"type": "web_search_call", "status": "completed"},),
    )
    items = ([{"id": "msg_1", "type": "message"}], [{"id": "msg_1", "type": "message"}])
    return StoredResponse(
        meta=meta, reply=reply, status="completed", items=lambda: items, size=99, expires_at=4.5
    )


def test_a_stored_response_reads_back_whole_its_tokens_scored_alike() -> None:
    stored = _response()
    back = decode_stored("responses", encode_stored(stored))
    assert isinstance(back, StoredResponse)
    assert back.meta == stored.meta
    assert isinstance(back.reply.tokens, ScoredTokens)  # still scored only when read
    assert back.reply == stored.reply
    assert back.reply.tokens[1] == stored.reply.tokens[1]
    assert back.reply.tokens[1].text == " there"
    assert (back.items, back.size, back.expires_at) == (stored.items, 99, 4.5)
    assert encode_stored(back) == encode_stored(stored)  # read back unchanged: written alike


def test_stored_completions_and_conversations_read_back() -> None:
    completion = StoredChatCompletion({"id": "chatcmpl-1", "n": [1]}, [{"id": "m"}], {"k": "v"}, 3)
    assert decode_stored("chat", encode_stored(completion)) == completion
    items = OrderedDict([("b", {"id": "b"}), ("a", {"id": "a"})])
    conversation = StoredConversation("conv_1", 5, {"k": "v"}, items)
    back = decode_stored("conversations", encode_stored(conversation))
    assert back == conversation
    assert isinstance(back.items, OrderedDict)
    assert list(back.items) == ["b", "a"]


def test_a_stored_message_batch_reads_back() -> None:
    batch = StoredMessageBatch(
        id="msgbatch_01x",
        created_at=12.5,
        seconds=1.0,
        custom_ids=["a", "b"],
        results=[{"type": "succeeded", "message": {"id": "msg_1"}}, {"type": "errored"}],
        root="http://127.0.0.1:1",
        cancel_initiated_at=13.0,
        size=40,
    )
    assert decode_stored("message_batches", encode_stored(batch)) == batch


def test_a_prompt_cache_reads_back() -> None:
    cache = StoredPromptCache(id="prompt_cache", entries={"ab12": 300.5, "cd34": 3600.0})
    assert decode_stored("prompt_cache", encode_stored(cache)) == cache


def test_a_stored_object_that_is_not_this_layouts_is_unreadable() -> None:
    with pytest.raises(Unreadable):
        decode_stored("chat", pickle.dumps(StoredChatCompletion({"id": "x"}, [], {})))
    with pytest.raises(Unreadable):
        decode_stored("responses", b'{"meta": {"id": 1}, "status": "completed"}')


def _codec() -> ScenarioCodec:
    return ScenarioCodec(fetch=lambda digest: None, keep=lambda digest, text: None)


def test_a_namespaces_state_reads_back_budgets_and_one_off_replies_too() -> None:
    codec = _codec()
    space = Namespace(name="sk-a", journal=deque(), counter=3, journal_seq=2, seed=7)
    space.rule_hits = {"weather": {"ask": 2}}
    space.pending = deque([ScriptedReply(text="one")])
    space.clock_offset = 1.5
    space.incarnation = 12
    space.budgets = Budgets(Bucket(30, 12.5, 100.0), Bucket(1000, 999.0, 100.0), True)
    back = Namespace(name="sk-a", journal=deque())
    codec.decode_state(codec.encode_state(space), back)
    assert (back.counter, back.journal_seq, back.seed, back.incarnation) == (3, 2, 7, 12)
    assert (back.rule_hits, back.clock_offset) == ({"weather": {"ask": 2}}, 1.5)
    assert list(back.pending) == [ScriptedReply(text="one")]
    budgets = Budgets.from_json(back.budgets)  # as the engine takes them up
    assert budgets == space.budgets
    assert (budgets.requests.shown, budgets.tokens.shown) == ("30", "1000")
    assert budgets.headers() == space.budgets.headers()


@pytest.mark.parametrize(
    "blob",
    [
        pickle.dumps((1, 2, {}, None, [], 0.0, None, None, 1)),  # the layout that pickled
        b"garbage",
        b'{"counter": "three"}',
        b'{"counter": 1, "journal_seq": 0, "rule_hits": {}, "scenario": ["name", "no-such"],'
        b' "pending": [], "clock_offset": 0, "budgets": null, "seed": null, "incarnation": 1}',
        b'{"counter": 1, "journal_seq": 0, "rule_hits": {}, "scenario": null,'
        b' "pending": [{"text": 5}], "clock_offset": 0, "budgets": null, "seed": null,'
        b' "incarnation": 1}',
    ],
)
def test_a_state_that_is_not_this_layouts_is_unreadable(blob: bytes) -> None:
    with pytest.raises(Unreadable):
        _codec().decode_state(blob, Namespace(name="sk-a", journal=deque()))
