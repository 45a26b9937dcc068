"""instructor: JSON modes put the model's JSON Schema in a message and ask for
``response_format: json_object``; the reply follows that schema, so a valid model comes back
(as with its default tools mode).

Every instructor release requires openai < 3, and the test extra installs openai 3
(openai-agents needs it), so instructor runs in an interpreter of its own: a side virtual
environment with openai 2 and instructor (``.ci/run`` makes ``.venv-openai2``; elsewhere
``MOCKSERVER_OPENAI2_PYTHON`` may name one), driving this session's server on loopback. Like
the in-process frameworks, it may reach nothing but loopback: the script refuses, and
reports, any other connection or name look-up.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from mockserver.http.server import BackgroundServer
from tests.frameworks.conftest import OFFLINE

ROOT = Path(__file__).resolve().parents[2]
SIDE_VENV = ROOT / ".venv-openai2"

#: Run by the side interpreter: argv is the base URL, the API key and the modes; prints one
#: JSON line per mode (the model instructor returned, or its error) and the refused hosts.
_SCRIPT = r"""
import ipaddress, json, socket, sys

refused = []

def loopback(host):
    if isinstance(host, bytes):
        host = host.decode()
    if not isinstance(host, str) or host.lower() in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False

connect, getaddrinfo = socket.socket.connect, socket.getaddrinfo

def guarded_connect(self, address):
    host = address[0] if isinstance(address, tuple) else address
    if not loopback(host):
        refused.append(str(host))
        raise ConnectionRefusedError(f"not loopback: {host}")
    return connect(self, address)

def guarded_getaddrinfo(host, *args, **kwargs):
    if not loopback(host):
        refused.append(str(host))
        raise socket.gaierror(f"not loopback: {host}")
    return getaddrinfo(host, *args, **kwargs)

socket.socket.connect = guarded_connect
socket.getaddrinfo = guarded_getaddrinfo

import instructor, openai
from pydantic import BaseModel, Field

class Invoice(BaseModel):
    customer: str
    total: float = Field(ge=0)
    items: list[str]

base_url, api_key, *modes = sys.argv[1:]
client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0)
for mode in modes:
    patched = instructor.from_openai(client, mode=getattr(instructor.Mode, mode))
    try:
        invoice = patched.chat.completions.create(
            model="gpt-4o-mini",
            response_model=Invoice,
            max_retries=0,  # a first answer that does not validate fails the test
            messages=[{"role": "user", "content": "Ada bought two lamps for 30 euros."}],
        )
        print(json.dumps({"mode": mode, "invoice": invoice.model_dump()}))
    except Exception as error:
        print(json.dumps({"mode": mode, "error": f"{type(error).__name__}: {error}"}))
print(json.dumps({"refused": refused, "openai": openai.__version__,
                  "instructor": instructor.__version__}))
"""

MODES = ("JSON", "JSON_SCHEMA", "TOOLS")


def _side_python() -> str:
    named = os.environ.get("MOCKSERVER_OPENAI2_PYTHON")
    python = Path(named) if named else SIDE_VENV / "bin" / "python"
    if not python.exists():
        pytest.skip(
            "instructor needs openai < 3 and the test extra installs openai 3: make a side "
            "environment (python3 -m venv .venv-openai2 && .venv-openai2/bin/pip install "
            "'openai<3' instructor), or name its python in MOCKSERVER_OPENAI2_PYTHON; "
            ".ci/run makes it"
        )
    found = subprocess.run(
        [str(python), "-c", "import instructor, openai"], capture_output=True, check=False
    )
    if found.returncode != 0:
        pytest.skip(f"{python} cannot import instructor and openai (.ci/run's install failed?)")
    return str(python)


def test_json_json_schema_and_tools_modes_each_return_a_valid_model(
    server: BackgroundServer, api_key: str
) -> None:
    python = _side_python()
    environment = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    environment.update(OFFLINE)
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        environment.pop(proxy, None)
    done = subprocess.run(
        [python, "-c", _SCRIPT, server.base_url, api_key, *MODES],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    *answers, facts = [json.loads(line) for line in done.stdout.splitlines()]
    assert facts["refused"] == [], facts
    assert facts["openai"].startswith("2."), facts  # the major instructor supports
    assert [answer["mode"] for answer in answers] == list(MODES)
    for answer in answers:
        assert "error" not in answer, answer
        invoice = answer["invoice"]
        assert isinstance(invoice["customer"], str)
        assert invoice["total"] >= 0
        assert all(isinstance(item, str) for item in invoice["items"])
    # What each mode asked for: JSON in words plus a JSON object, a named JSON Schema, and a
    # forced call of the one tool.
    json_mode, schema_mode, tools_mode = (call["request"] for call in _journal(server, api_key))
    assert json_mode["response_format"] == {"type": "json_object"}
    assert '"customer"' in json_mode["messages"][0]["content"]  # the schema, in the prompt
    assert schema_mode["response_format"]["json_schema"]["name"] == "Invoice"
    assert tools_mode["tool_choice"] == {"type": "function", "function": {"name": "Invoice"}}
    assert [tool["function"]["name"] for tool in tools_mode["tools"]] == ["Invoice"]


def _journal(server: BackgroundServer, api_key: str) -> list[dict[str, Any]]:
    got = httpx.get(
        server.url + "/__mockserver/calls", headers={"Authorization": f"Bearer {api_key}"}
    )
    got.raise_for_status()
    data: list[dict[str, Any]] = got.json()["data"]
    return data
