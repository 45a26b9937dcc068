"""Reply → a Bedrock Converse answer and its stream events: what a scripted tool call's
arguments must be, said in Converse's own words."""

from __future__ import annotations

import pytest

from mockserver.errors import InvalidRequestError
from mockserver.render.converse import ConverseMeta, converse_body, converse_events
from mockserver.reply.model import Reply, ToolCall, Usage

META = ConverseMeta(model="anthropic.claude-3-haiku-20240307-v1:0")
USAGE = Usage(prompt_tokens=12, completion_tokens=7)


def test_a_tool_call_is_a_tool_use_block_with_its_input_object() -> None:
    call = ToolCall(call_id="call_1", name="get_weather", arguments='{"city":"Paris"}')
    body = converse_body(Reply(usage=USAGE, tool_calls=(call,)), META)
    (block,) = body["output"]["message"]["content"]
    assert block["toolUse"]["name"] == "get_weather"
    assert block["toolUse"]["input"] == {"city": "Paris"}


@pytest.mark.parametrize("render", [converse_body, converse_events])
def test_arguments_that_are_no_object_are_refused_in_converses_words(render: object) -> None:
    call = ToolCall(call_id="call_1", name="get_weather", arguments="Paris")
    with pytest.raises(InvalidRequestError) as caught:
        render(Reply(usage=USAGE, tool_calls=(call,)), META)  # type: ignore[operator]
    assert caught.value.code == "scenario_reply_invalid"
    assert "a Converse toolUse block's input" in str(caught.value)
    assert "Anthropic" not in str(caught.value)
