"""Reply → Responses stream events: ordering, nesting, sequence numbers, deltas = done texts.

``assert_well_formed`` (``tests/support/events.py``) is the one checker of a whole event stream;
the SDK end-to-end tests use it too.
"""

from __future__ import annotations

from typing import Any, get_args

import pytest
from openai.types.responses import ResponseStreamEvent

from mockserver.render.responses import ResponseMeta, echo_params, output_items
from mockserver.render.responses_hosted import HOSTED
from mockserver.render.responses_stream import response_events
from mockserver.reply.model import Annotation, Reasoning, Reply, Token, ToolCall, Usage
from mockserver.reply.tokens import tokenize
from tests.support.events import assert_well_formed


def _meta(*include: str, background: bool = False) -> ResponseMeta:
    body = {"model": "gpt-4o-mini", "background": background}
    return ResponseMeta(
        id="resp_test",
        created_at=1,
        echo=echo_params(body, service_tier="default"),
        include=frozenset(include),
    )


def _reply(text: str | None = "Hello there, friend.", **fields: Any) -> Reply:
    tokens = tuple(Token(t, -0.25, ((t, -0.25), (" x", -1.5))) for t in tokenize(text or ""))
    return Reply(usage=Usage(5, 7), text=text, tokens=tokens, **fields)


def test_text_stream_is_created_in_progress_item_part_deltas_done_completed() -> None:
    events = response_events(_reply(), _meta(), completed_at=2)
    final = assert_well_formed(events)
    assert [e["type"] for e in events[:5]] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
    ]
    assert [e["type"] for e in events[-4:]] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    deltas = [e["delta"] for e in events if e["type"] == "response.output_text.delta"]
    assert deltas == list(tokenize("Hello there, friend."))
    assert final.output_text == "Hello there, friend."
    assert events[0]["response"]["status"] == "in_progress"
    assert events[0]["response"]["output"] == []
    assert events[0]["response"]["usage"] is None


def test_every_delta_carries_its_tokens_logprobs_when_included() -> None:
    events = response_events(_reply(), _meta("message.output_text.logprobs"), completed_at=2)
    assert_well_formed(events)
    deltas = [e for e in events if e["type"] == "response.output_text.delta"]
    assert all(len(e["logprobs"]) == 1 for e in deltas)
    assert deltas[0]["logprobs"][0]["token"] == deltas[0]["delta"]
    assert deltas[0]["logprobs"][0]["top_logprobs"][1] == {"token": " x", "logprob": -1.5}
    part = events[-1]["response"]["output"][0]["content"][0]
    assert [lp["token"] for lp in part["logprobs"]] == [e["delta"] for e in deltas]
    assert part["logprobs"][0]["bytes"] == list(deltas[0]["delta"].encode())


def test_without_logprobs_include_deltas_carry_empty_logprobs() -> None:
    events = response_events(_reply(), _meta(), completed_at=2)
    deltas = [e for e in events if e["type"] == "response.output_text.delta"]
    assert deltas
    assert all(e["logprobs"] == [] for e in deltas)


def test_reasoning_summary_then_function_calls_stream_in_order() -> None:
    reply = _reply(
        None,
        reasoning=Reasoning(summary=("First I think.", "Then I call."), tokens=40),
        tool_calls=(
            ToolCall("call_1", "get_weather", '{"city":"Boston"}'),
            ToolCall("call_2", "run_sql", "SELECT 1", kind="custom"),
        ),
        finish_reason="tool_calls",
    )
    events = response_events(reply, _meta("reasoning.encrypted_content"), completed_at=2)
    final = assert_well_formed(events)
    assert [item.type for item in final.output] == [
        "reasoning",
        "function_call",
        "custom_tool_call",
    ]
    added = [e["item"] for e in events if e["type"] == "response.output_item.added"]
    assert added[0] == {"id": added[0]["id"], "type": "reasoning", "summary": []}
    assert added[1]["arguments"] == ""
    assert added[1]["status"] == "in_progress"
    kinds = [e["type"] for e in events]
    assert kinds.count("response.reasoning_summary_part.added") == 2
    assert "response.custom_tool_call_input.done" in kinds
    reasoning = final.output[0]
    assert reasoning.type == "reasoning"
    assert reasoning.encrypted_content
    assert reasoning.encrypted_content.startswith("gAAAAAB")


def test_reasoning_text_streams_as_a_reasoning_text_content_part() -> None:
    reply = _reply(reasoning=Reasoning(text="Let me think step by step.", tokens=6))
    events = response_events(reply, _meta(), completed_at=2)
    assert_well_formed(events)
    kinds = [e["type"] for e in events]
    assert "response.reasoning_text.done" in kinds
    assert events[-1]["response"]["output"][0]["content"][0]["type"] == "reasoning_text"


def test_refusal_streams_refusal_deltas() -> None:
    refusal = "I can't help with that."
    tokens = tuple(Token(t) for t in tokenize(refusal))
    reply = Reply(usage=Usage(3, 6), refusal=refusal, tokens=tokens)
    events = response_events(reply, _meta(), completed_at=2)
    final = assert_well_formed(events)
    assert "response.refusal.done" in [e["type"] for e in events]
    message = final.output[0]
    assert message.type == "message"
    assert message.content[0].type == "refusal"


def test_annotations_are_announced_before_the_text_is_done() -> None:
    text = "See the docs for details."
    reply = _reply(text, annotations=(Annotation("https://example.com", "Docs", 8, 12),))
    events = response_events(reply, _meta(), completed_at=2)
    assert_well_formed(events)
    kinds = [e["type"] for e in events]
    assert kinds.index("response.output_text.annotation.added") < kinds.index(
        "response.output_text.done"
    )


def test_token_budget_exhausted_ends_incomplete() -> None:
    reply = _reply("Cut short", finish_reason="length")
    events = response_events(reply, _meta(), completed_at=2)
    final = assert_well_formed(events)
    assert events[-1]["type"] == "response.incomplete"
    assert final.status == "incomplete"
    assert final.incomplete_details is not None
    assert final.incomplete_details.reason == "max_output_tokens"
    assert final.completed_at is None


def test_background_stream_is_queued_before_in_progress() -> None:
    events = response_events(_reply(), _meta(background=True), completed_at=2)
    assert_well_formed(events)
    assert [e["type"] for e in events[:3]] == [
        "response.created",
        "response.queued",
        "response.in_progress",
    ]
    assert events[0]["response"]["status"] == "queued"


HOSTED_ITEMS: list[dict[str, Any]] = [
    {
        "type": "web_search_call",
        "action": {"type": "search", "query": "weather", "sources": []},
    },
    {"type": "file_search_call", "queries": ["q"]},
    {
        "type": "mcp_call",
        "server_label": "docs",
        "name": "lookup",
        "arguments": '{"q":"x"}',
        "output": "found",
    },
    {
        "type": "mcp_call",
        "server_label": "docs",
        "name": "x",
        "arguments": "{}",
        "error": {"type": "mcp_protocol_error", "code": -32000, "message": "boom"},
    },
    {"type": "mcp_list_tools", "server_label": "docs", "tools": []},
    {"type": "mcp_approval_request", "server_label": "docs", "name": "x", "arguments": "{}"},
    {
        "type": "code_interpreter_call",
        "code": "print(1 + 1)",
        "container_id": "cntr_1",
        "outputs": [{"type": "logs", "logs": "2"}],
    },
    {"type": "image_generation_call", "result": "aGVsbG8="},
    {"type": "computer_call", "action": {"type": "screenshot"}},
    {
        "type": "local_shell_call",
        "action": {"type": "exec", "command": ["ls"], "env": {}},
    },
    {"type": "shell_call", "action": {"commands": ["ls -la", "pwd"]}},
    {
        "type": "apply_patch_call",
        "operation": {"type": "create_file", "path": "a.txt", "diff": "+hello"},
    },
]


def test_every_hosted_item_type_has_a_table_entry() -> None:
    assert {item["type"] for item in HOSTED_ITEMS} == set(HOSTED)


@pytest.mark.parametrize("raw", HOSTED_ITEMS, ids=lambda raw: str(raw["type"]))
def test_hosted_items_stream_their_lifecycle_events(raw: dict[str, Any]) -> None:
    reply = _reply("Done.", hosted=(raw,))
    events = response_events(reply, _meta(), completed_at=2)
    final = assert_well_formed(events)
    assert [item.type for item in final.output] == [raw["type"], "message"]
    item = events[-1]["response"]["output"][0]
    assert list(item)[:2] == ["id", "type"]
    assert item["id"].startswith(HOSTED[raw["type"]].prefix)
    entry = HOSTED[raw["type"]]
    kinds = [e["type"] for e in events]
    for phase in entry.phases:
        if phase.startswith("<"):
            continue
        if phase == "completed" and raw.get("error"):
            phase = "failed"
            if entry.events not in ("response.mcp_call", "response.mcp_list_tools"):
                assert f"{entry.events}.failed" not in kinds  # the API has no such event
                assert f"{entry.events}.completed" not in kinds
                continue
        assert f"{entry.events}.{phase}" in kinds


@pytest.mark.parametrize(
    ("kind", "fails_with_an_event"),
    [
        ("web_search_call", False),
        ("file_search_call", False),
        ("code_interpreter_call", False),
        ("image_generation_call", False),
        ("mcp_call", True),
    ],
)
def test_a_failed_hosted_call_ends_as_the_api_ends_it(kind: str, fails_with_an_event: bool) -> None:
    """Only MCP calls have a ``….failed`` event; the others' item just says failed."""
    raw = next(dict(item) for item in HOSTED_ITEMS if item["type"] == kind)
    raw["error"] = (
        {"type": "mcp_protocol_error", "code": -32000, "message": "the tool broke"}
        if kind == "mcp_call"
        else {"type": "server_error", "code": "tool_error", "message": "the tool broke"}
    )
    events = response_events(_reply("Done.", hosted=(raw,)), _meta(), completed_at=2)
    assert_well_formed(events)
    known = set(get_args(ResponseStreamEvent.__args__[0]))  # the SDK's event union
    names = {model.model_fields["type"].annotation.__args__[0] for model in known}
    assert {e["type"] for e in events} <= names
    failed = [e["type"] for e in events if e["type"].endswith(".failed")]
    assert failed == ([f"{HOSTED[kind].events}.failed"] if fails_with_an_event else [])
    done = next(e for e in events if e["type"] == "response.output_item.done")
    assert done["item"]["status"] == "failed"


def test_a_shell_call_names_its_environment_even_if_the_scenario_does_not() -> None:
    raw = {"type": "shell_call", "action": {"commands": ["pwd"]}}
    [item, _] = output_items(_reply("Done.", hosted=(raw,)), _meta())
    assert item["environment"] is None
    given = {**raw, "environment": {"type": "local"}}
    [item, _] = output_items(_reply("Done.", hosted=(given,)), _meta())
    assert item["environment"] == {"type": "local"}


def test_output_item_ids_are_stable_across_renderings() -> None:
    reply = _reply(reasoning=Reasoning(summary=("x",), tokens=3))
    assert output_items(reply, _meta()) == output_items(reply, _meta())
    first, second = output_items(reply, _meta())
    assert first["id"].startswith("rs_")
    assert second["id"].startswith("msg_")
