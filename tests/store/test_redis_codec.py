"""What the Redis backend writes for every request reads back as what was written: a journal
entry (its request and answer kept unparsed, as their bytes), a namespace's rate-limit budgets,
and an entry as an older version wrote it (the dataclass pickled whole)."""

from __future__ import annotations

import pickle
from dataclasses import fields

import orjson

from mockserver.engine.ratelimit import Bucket, Budgets
from mockserver.render import sse
from mockserver.store import JournalEntry, Unparsed
from mockserver.store.redis_codec import decode_entry, encode_entry

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
    back = decode_entry(encode_entry(entry))
    for field in fields(JournalEntry):
        if field.name not in ("request", "response"):
            assert getattr(back, field.name) == getattr(entry, field.name), field.name
    assert isinstance(back.request, Unparsed)
    assert back.request.raw == b'{"model":"gpt-4o-mini"}'
    assert back.requested() == {"model": "gpt-4o-mini"}
    assert isinstance(back.response, Unparsed)
    assert back.response.raw == STREAM  # made when written
    assert back.answer() == entry.answer()


def test_parsed_values_and_tuples_in_an_entry_stay_what_they_were() -> None:
    entry = _entry(request={"messages": [["a", "b"]]}, response=("not", "unparsed"), timing=None)
    back = decode_entry(encode_entry(entry))
    assert back.request == {"messages": [["a", "b"]]}
    assert back.response == ("not", "unparsed")
    assert back.timing is None


def test_an_entry_an_older_version_wrote_still_reads_back() -> None:
    entry = _entry(response=Unparsed(b"{}", orjson.loads))
    back = decode_entry(pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == entry


def test_budgets_pickle_as_their_values_and_show_their_limits_again() -> None:
    budgets = Budgets(Bucket(30, 12.5, 100.0), Bucket(1000, 999.0, 100.0), True)
    back = pickle.loads(pickle.dumps(budgets, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == budgets
    assert (back.requests.shown, back.tokens.shown) == ("30", "1000")
    assert back.headers() == budgets.headers()
