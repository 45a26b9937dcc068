"""The replay lane serves the Gemini API as it serves chat: a new request by the endpoint's own
steps, a repeated one from its recipe, in both stream framings (``alt=sse`` and one JSON
array) and with the key in the query, with the bytes, headers, journal and rule hits of the
full path (a server with the lane off answers the same requests to compare)."""

from __future__ import annotations

from typing import Any

from tests.support.lanes import TOOL_AND_ERROR, Send, lane_pair, lane_session, served_by_lane

KEY = "g-lane"
SCENARIO = TOOL_AND_ERROR
MODEL = "/v1beta/models/gemini-2.5-flash"
VERTEX = "/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash"
TOOLS = [{"functionDeclarations": [{"name": "get_weather", "parameters": {"type": "object"}}]}]


def ask(text: str, **extra: Any) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": text}]}], **extra}


SSE = {"alt": "sse"}
#: Each request three times: new (the endpoint's steps), again (a recipe is filed), and a third
#: time (from the recipe, if it has one).
THRICE = [
    Send(MODEL + ":generateContent", ask("Hello")),
    Send(MODEL + ":streamGenerateContent", ask("Hello"), SSE),
    Send(MODEL + ":streamGenerateContent", ask("Hello")),
    Send(MODEL + ":generateContent", ask("Hi"), {"key": KEY}, {"x-goog-api-key": ""}),
    Send(MODEL + ":streamGenerateContent", ask("Hi"), {"alt": "sse", "key": KEY}),
    Send(MODEL + ":generateContent", ask("Two", generationConfig={"candidateCount": 2})),
    # not replayed: a function call's signature derives from the answer's id, and Vertex
    # AI's answers say when they were made
    Send(MODEL + ":generateContent", ask("weather?", tools=TOOLS)),
    Send(VERTEX + ":generateContent", ask("Hello")),
]
SENDS = [
    *(send for send in THRICE for _ in range(3)),
    Send(MODEL + ":generateContent", ask("busy")),
    Send(MODEL + ":streamGenerateContent", ask("busy")),
    Send(MODEL + ":streamGenerateContent", ask("busy"), SSE),
    Send(MODEL + ":generateContent", {"contents": "nope"}),
    Send(MODEL + ":generateContent", ask("Hello")),
]
REPLAYED = 6  # the third of each of the first six, and the last Hello


def test_gemini_is_answered_by_the_lane_as_by_the_full_path() -> None:
    with lane_pair() as (on, off):
        headers = {"x-goog-api-key": KEY}
        seen = lane_session(on, SENDS, key=KEY, scenario=SCENARIO, headers=headers)
        assert seen == lane_session(off, SENDS, key=KEY, scenario=SCENARIO, headers=headers)
        served, fresh = served_by_lane(on)
        assert served == REPLAYED + 1
        # all else but the three scripted errors (the route sends them) and the refused one
        assert fresh == len(SENDS) - served - 4
        assert served_by_lane(off) == (0, 0)
    statuses = [status for status, _, _ in seen[: len(SENDS)]]
    assert statuses.count(200) == len(SENDS) - 4
