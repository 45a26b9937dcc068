"""Journal entries: what the control API shows of them, parsed or kept as bytes."""

from __future__ import annotations

import dataclasses

import orjson

from mockserver.store import JournalEntry, Unparsed


def test_as_json_shows_every_field_but_its_bookkeeping() -> None:
    entry = JournalEntry(seq=1, method="POST", path="/v1/chat/completions", status=200)
    fields = [f.name for f in dataclasses.fields(entry)]
    assert list(entry.as_json()) == [name for name in fields if name != "size"]


def test_a_request_kept_as_bytes_is_parsed_when_read() -> None:
    raw = b'{"model": "gpt-4o-mini"}'
    entry = JournalEntry(
        seq=1, method="POST", path="/", status=200, request=Unparsed(raw, orjson.loads)
    )
    assert entry.requested() == {"model": "gpt-4o-mini"}
    assert entry.as_json()["request"] == {"model": "gpt-4o-mini"}
    assert entry.weigh() == len(raw)


def test_an_unparsed_answer_is_parsed_when_read() -> None:
    raw = b'{"id": "chatcmpl-1", "choices": []}'
    entry = JournalEntry(
        seq=1, method="POST", path="/", status=200, response=Unparsed(raw, orjson.loads)
    )
    assert entry.answer() == {"id": "chatcmpl-1", "choices": []}
    assert entry.as_json()["response"] == {"id": "chatcmpl-1", "choices": []}
    plain = JournalEntry(seq=2, method="POST", path="/", status=200, response={"a": 1})
    assert plain.answer() == {"a": 1}


def test_an_answer_kept_as_what_remakes_it_is_made_when_read() -> None:
    made: list[int] = []

    def remake() -> bytes:
        made.append(1)
        return b'{"id": "chatcmpl-2"}'

    entry = JournalEntry(
        seq=1, method="POST", path="/", status=200, response=Unparsed(remake, orjson.loads)
    )
    assert made == []
    assert entry.answer() == entry.as_json()["response"] == {"id": "chatcmpl-2"}
    assert len(made) == 2
