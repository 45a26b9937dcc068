"""The replay lane serves Bedrock Runtime as it serves chat: Converse and ConverseStream by the
endpoint's own steps when new and from a recipe when repeated, InvokeModel by its own steps,
with the bytes (an event stream's CRCs too), headers, journal and rule hits of the full path (a
server with the lane off answers the same requests to compare)."""

from __future__ import annotations

from typing import Any

from tests.support.lanes import TOOL_AND_ERROR, Send, lane_pair, lane_session, served_by_lane

KEY = "AKIALANETEST00000001"
SIGNED = (
    f"AWS4-HMAC-SHA256 Credential={KEY}/20260101/us-east-1/bedrock/aws4_request, "
    f"SignedHeaders=host;x-amz-date, Signature={'f' * 64}"
)
SCENARIO = TOOL_AND_ERROR
MODEL = "/model/anthropic.claude-3-5-haiku-20241022-v1:0"
ESCAPED = "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0"  # as botocore sends it
TOOLS = {"tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": {}}}}]}


def ask(text: str, **extra: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": [{"text": text}]}], **extra}


def invoke(text: str) -> dict[str, Any]:
    return {
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": 256,
        "messages": [{"role": "user", "content": text}],
    }


#: Each request three times: new (the endpoint's steps), again (a recipe is filed), and a third
#: time (from the recipe, if it has one).
THRICE = [
    Send(MODEL + "/converse", ask("Hello")),
    Send(MODEL + "/converse-stream", ask("Hello")),
    Send(ESCAPED + "/converse-stream", ask("Hi", inferenceConfig={"maxTokens": 9})),
    Send(MODEL + "/converse", ask("weather?", toolConfig=TOOLS)),
    Send(MODEL + "/converse-stream", ask("weather?", toolConfig=TOOLS)),
    # not replayed: InvokeModel's answers carry the message's id
    Send(MODEL + "/invoke", invoke("Hello")),
    Send(MODEL + "/invoke-with-response-stream", invoke("Hello")),
]
SENDS = [
    *(send for send in THRICE for _ in range(3)),
    Send(MODEL + "/converse", ask("busy")),
    Send(MODEL + "/converse-stream", ask("busy")),
    Send(MODEL + "/converse", {"messages": "nope"}),
    Send(MODEL + "/converse", ask("Hello")),
]
REPLAYED = 5  # the third of each of the first five, and the last Hello


def test_bedrock_is_answered_by_the_lane_as_by_the_full_path() -> None:
    with lane_pair() as (on, off):
        headers = {"authorization": SIGNED, "x-amz-date": "20260101T000000Z"}
        seen = lane_session(on, SENDS, key=KEY, scenario=SCENARIO, headers=headers)
        assert seen == lane_session(off, SENDS, key=KEY, scenario=SCENARIO, headers=headers)
        served, fresh = served_by_lane(on)
        assert served == REPLAYED + 1
        # all else but the two scripted errors (the route sends them) and the refused one
        assert fresh == len(SENDS) - served - 3
        assert served_by_lane(off) == (0, 0)
    statuses = [status for status, _, _ in seen[: len(SENDS)]]
    assert statuses.count(200) == len(SENDS) - 3
    kinds = [dict(kept)["content-type"] for _, kept, _ in seen[:9]]
    assert kinds == ["application/json"] * 3 + ["application/vnd.amazon.eventstream"] * 6
