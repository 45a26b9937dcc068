"""openai-node's Responses WebSocket (``ResponsesWS``) against a real server: create, a tool
loop on one socket, two lanes and a scripted error, from a Node script."""

from __future__ import annotations

import json
import subprocess

import httpx

from mockserver.http.server import BackgroundServer
from tests.support.node_clients import NODE_DIR, installed_or_skip, node_or_skip


def test_openai_node_runs_a_session_on_the_socket(
    server: BackgroundServer, api_key: str, control: httpx.Client
) -> None:
    node = node_or_skip()
    installed_or_skip("openai")
    installed_or_skip("ws")
    for reply in (
        {"text": "Hello from the socket."},
        {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Rome"}}]},
        {"text": "Warm in Rome."},
        {"text": "lane"},
        {"text": "lane"},
        {"error": {"preset": "rate_limited"}},  # the script's last request
    ):
        assert control.post("/next", json=reply).status_code == 200
    ran = subprocess.run(
        [node, str(NODE_DIR / "responses_socket.mjs"), server.base_url, api_key],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=NODE_DIR,
    )
    assert ran.returncode == 0, ran.stderr
    result = json.loads(ran.stdout.strip().splitlines()[-1])
    assert result["create"] == {
        "text": "Hello from the socket.",
        "types": ["response.created", "response.completed"],
    }
    assert result["toolLoop"] == {
        "call": ["get_weather", '{"city":"Rome"}'],
        "text": "Warm in Rome.",
    }
    assert result["lanes"] == [["a"], ["b"]]
    assert result["error"] == {"type": "error", "status": 429, "code": "slow_down"}
