"""Unknown keys in items and content parts are ignored, as documented: not stored, not echoed
(by a conversation's items, nor by a response's input items)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.http.server import BackgroundServer

ITEMS = [
    {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "hi", "x_part": 1}],
        "x_item": "dropped",
    },
    {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}", "x_call": True},
    {"type": "function_call_output", "call_id": "c1", "output": "ok", "x_out": [1]},
]


@pytest.fixture
def api(server: BackgroundServer, api_key: str) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=server.base_url, headers={"authorization": f"Bearer {api_key}"}
    ) as http:
        yield http


def keys(items: list[dict[str, Any]]) -> set[str]:
    found = {k for item in items for k in item}
    for item in items:
        for part in item.get("content") or ():
            found |= set(part)
    return found


def test_conversation_items_drop_unknown_keys(api: httpx.Client) -> None:
    conversation = api.post("/conversations", json={"items": ITEMS}).json()
    listed = api.get(f"/conversations/{conversation['id']}/items?order=asc").json()["data"]
    assert [item["type"] for item in listed] == ["message", "function_call", "function_call_output"]
    assert not {k for k in keys(listed) if k.startswith("x_")}
    assert listed[0]["content"] == [{"type": "input_text", "text": "hi"}]


def test_response_input_items_drop_unknown_keys(api: httpx.Client) -> None:
    response = api.post("/responses", json={"model": "gpt-4o-mini", "input": ITEMS}).json()
    listed = api.get(f"/responses/{response['id']}/input_items").json()["data"]
    assert len(listed) == 3
    assert not {k for k in keys(listed) if k.startswith("x_")}
