"""What a recording writes: a scenario that loads, one rule per request, its files beside it."""

from __future__ import annotations

import json
from pathlib import Path

from mockserver.record.cassette import Cassette
from mockserver.record.exchange import Exchange
from mockserver.record.redact import Redactor
from mockserver.scenario.loader import load_file


def completion(text: str) -> dict[str, object]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
    }


def chat(question: str, *, status: int = 200, body: object = None) -> Exchange:
    return Exchange(
        method="POST",
        path="/v1/chat/completions",
        status=status,
        request={
            "model": "gpt-4o",
            "temperature": 0.2,
            "messages": [{"role": "user", "content": question}],
        },
        body=body,
        body_text=json.dumps(body),
    )


def test_a_request_recorded_twice_is_one_rule_answering_in_order(tmp_path: Path) -> None:
    cassette = Cassette(tmp_path / "c.yaml", form="distilled", redactor=Redactor(), fresh=True)
    limited = {"error": {"message": "slow down", "type": "requests", "code": "rate_limit_exceeded"}}
    cassette.add(chat("hi", status=429, body=limited))
    cassette.add(chat("hi", body=completion("Hello")))
    cassette.add(chat("bye", body=completion("Bye")))
    first, second = load_file(tmp_path / "c.yaml").rules
    assert first.id == "chat-001"
    assert first.recordings == ["c/chat-001.json", "c/chat-002.json"]
    error, text = first.sequence
    assert error.error is not None
    assert error.error.status == 429
    assert text.text == "Hello"
    assert second.when.last_user is not None
    assert second.when.last_user.equals == "bye"
    assert second.when.params is None  # temperature is no part of what identifies a request


def test_a_large_distilled_reply_goes_to_a_fixture_beside_the_scenario(tmp_path: Path) -> None:
    cassette = Cassette(tmp_path / "big.yaml", form="distilled", redactor=Redactor(), fresh=True)
    long = "word " * 1000
    cassette.add(chat("essay", body=completion(long)))
    text = (tmp_path / "big.yaml").read_text()
    assert "fixture: big/chat-001.reply.json" in text
    assert long not in text
    [rule] = load_file(tmp_path / "big.yaml").rules
    assert rule.reply is not None
    assert rule.reply.text == long


def test_a_redacted_request_text_is_matched_by_a_regex_around_the_mask(tmp_path: Path) -> None:
    redactor = Redactor((r"\d{4}-\d{4}",))
    cassette = Cassette(tmp_path / "r.yaml", form="exact", redactor=redactor, fresh=True)
    cassette.add(chat("card 1234-5678 please", body=completion("ok")))
    [rule] = load_file(tmp_path / "r.yaml").rules
    assert rule.when.last_user is not None
    assert rule.when.last_user.test("card 9999-0000 please")
    assert not rule.when.last_user.test("something else")


def test_a_call_that_is_not_a_model_turn_is_not_written(tmp_path: Path) -> None:
    cassette = Cassette(tmp_path / "m.yaml", form="exact", redactor=Redactor(), fresh=True)
    assert cassette.add(Exchange(method="GET", path="/v1/models", status=200, body={})) is None
    assert not (tmp_path / "m.yaml").exists()


def test_a_scenario_files_redact_list_masks_what_is_recorded_into_it(tmp_path: Path) -> None:
    path = tmp_path / "kept.yaml"
    path.write_text("name: kept\nfallback: strict\nredact: ['user-\\d+']\nrules: []\n")
    cassette = Cassette(path, form="exact", redactor=Redactor(), fresh=False)
    cassette.add(chat("I am user-77", body=completion("hi user-77")))
    for file in tmp_path.rglob("*.*"):
        assert "user-77" not in file.read_text(), file
    assert load_file(path).redact == ["user-\\d+"]


def test_recording_again_keeps_the_old_cassette_until_the_first_new_exchange(
    tmp_path: Path,
) -> None:
    path = tmp_path / "again.yaml"
    old = Cassette(path, form="exact", redactor=Redactor(), fresh=True)
    old.add(chat("one", body=completion("1")))
    old.add(chat("two", body=completion("2")))
    Cassette(path, form="exact", redactor=Redactor(), fresh=True)  # started, then stopped
    assert len(load_file(path).rules) == 2
    again = Cassette(path, form="exact", redactor=Redactor(), fresh=True)
    again.add(chat("three", body=completion("3")))
    [rule] = load_file(path).rules
    assert rule.when.last_user is not None
    assert rule.when.last_user.equals == "three"
    assert sorted(p.name for p in (tmp_path / "again").iterdir()) == ["chat-001.json"]
