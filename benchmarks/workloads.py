"""What each row sends: the request bodies, and how to send them (wrk or the bundled driver)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.driver import LoadResult, Target, run_load
from benchmarks.servers import HOST, raw_request

__all__ = [
    "ANTHROPIC_HEADERS",
    "CHAT",
    "CONVERSE_PATH",
    "CONVERSE_STREAM",
    "GEMINI_PATH",
    "GEMINI_STREAM",
    "MESSAGES_STREAM",
    "OLLAMA_STREAM",
    "SPREADS",
    "VARIED_CONVERSE",
    "VARIED_GEMINI",
    "VARIED_MESSAGES",
    "VARIED_OLLAMA",
    "VARIED_RESPONSES",
    "VARIED_RESPONSES_STREAM",
    "W1V",
    "W1V_TARGET",
    "Load",
    "Measured",
    "Workload",
    "drive",
    "wrk_version",
]

CHAT = b'{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'
#: 17 content tokens: an opener, 17 deltas, the finish chunk and [DONE] = 20 events, as in
#: the baseline's stream.
CHAT_STREAM = (
    b'{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}],'
    b'"stream":true,"max_completion_tokens":17}'
)
#: 16 is the API's smallest ``max_output_tokens``: 24 events (8 more than the text deltas).
RESPONSES_STREAM = b'{"model":"gpt-4o-mini","input":"Hello","stream":true,"max_output_tokens":16}'
#: A different user message on every request: the request's number goes between the two.
VARIED_PREFIX = '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Tell me about order '
VARIED_SUFFIX = ' and where it ships next week"}]}'
#: The same for Responses: a different input on every request, whole or streamed (the stream
#: with W4's ``max_output_tokens``).
_RESPONSES_HEAD = '{"model":"gpt-4o-mini","input":"Tell me about order '
VARIED_RESPONSES = (_RESPONSES_HEAD, ' and where it ships next week"}')
VARIED_RESPONSES_STREAM = (
    _RESPONSES_HEAD,
    ' and where it ships next week","stream":true,"max_output_tokens":16}',
)


@dataclass(frozen=True, slots=True)
class Workload:
    """One kind of request: where it goes on each server, and whether its body varies."""

    path: str
    body: bytes = CHAT
    varied: bool = False
    base_path: str = "/v1/chat/completions"
    #: A varied body: the request's number between these two.
    halves: tuple[str, str] = (VARIED_PREFIX, VARIED_SUFFIX)
    #: Over how many API keys (namespaces) the requests spread: request ``n`` uses key
    #: ``sk-bench-{n % keys}`` (one key: ``sk-bench``).
    keys: int = 1
    #: Each connection its own API key instead (``sk-bench-c{connection}``): a load test's
    #: clients, each on a connection of its own, whose namespace stays with one worker. With
    #: wrk: a thread per connection (wrk's Lua knows threads, not connections).
    per_connection: bool = False
    #: Headers the family wants beyond the usual ones (mockserver's requests only).
    headers: tuple[tuple[str, str], ...] = ()

    def key_of(self, n: int) -> str:
        if self.per_connection:  # the bundled driver numbers connection c's requests c·10⁶ + k
            return f"sk-bench-c{n // 1_000_000}"
        return "sk-bench" if self.keys == 1 else f"sk-bench-{n % self.keys}"

    def path_for(self, server: str) -> str:
        return self.base_path if server == "baseline" else self.path

    def maker(self, server: str, port: int, *, key: str = "sk-bench") -> Callable[[int], bytes]:
        path = self.path_for(server)
        headers = () if server == "baseline" else self.headers
        if not self.varied:
            request = raw_request("POST", path, self.body, port=port, key=key, headers=headers)
            return lambda n: request
        head, tail = self.halves

        def numbered(n: int) -> bytes:
            keyed = self.key_of(n) if self.keys > 1 or self.per_connection else key
            body = f"{head}{n}{tail}".encode()
            return raw_request("POST", path, body, port=port, key=keyed, headers=headers)

        return numbered


#: Anthropic's Messages and Gemini's generateContent, as W1v (a new message each, the reply
#: not cut) and W3 (the same request, a 17-token stream) send them: the family rows.
_ASKED = " and where it ships next week"
VARIED_MESSAGES = (
    '{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":'
    '"Tell me about order ',
    _ASKED + '"}]}',
)
MESSAGES_STREAM = (
    b'{"model":"claude-sonnet-4-5","max_tokens":17,"stream":true,'
    b'"messages":[{"role":"user","content":"Hello"}]}'
)
ANTHROPIC_HEADERS = (("anthropic-version", "2023-06-01"),)
#: Without thinking (gemini-2.5-flash thinks by default; chat's gpt-4o-mini does not).
_NO_THINKING = '"generationConfig":{"thinkingConfig":{"thinkingBudget":0}'
VARIED_GEMINI = (
    '{"contents":[{"role":"user","parts":[{"text":"Tell me about order ',
    _ASKED + '"}]}],' + _NO_THINKING + "}}",
)
GEMINI_STREAM = (
    b'{"contents":[{"role":"user","parts":[{"text":"Hello"}]}],'
    b'"generationConfig":{"maxOutputTokens":17,"thinkingConfig":{"thinkingBudget":0}}}'
)
GEMINI_PATH = "/v1beta/models/gemini-2.5-flash:"
#: Bedrock's Converse and Ollama's chat, the same two ways.
CONVERSE_PATH = "/model/anthropic.claude-3-haiku-20240307-v1:0/"
VARIED_CONVERSE = (
    '{"messages":[{"role":"user","content":[{"text":"Tell me about order ',
    _ASKED + '"}]}]}',
)
CONVERSE_STREAM = (
    b'{"messages":[{"role":"user","content":[{"text":"Hello"}]}],'
    b'"inferenceConfig":{"maxTokens":17}}'
)
VARIED_OLLAMA = (
    '{"model":"llama3.2","stream":false,"messages":[{"role":"user","content":"Tell me about order ',
    _ASKED + '"}]}',
)
OLLAMA_STREAM = (
    b'{"model":"llama3.2","options":{"num_predict":17},'
    b'"messages":[{"role":"user","content":"Hello"}]}'
)

#: A new user message on every request, one API key: what a load test sends.
W1V = Workload("/v1/chat/completions", varied=True)
#: Issue 22's target for W1v in one process, as a ratio to the baseline's: 1.1× the fastest
#: peer's (aimock, Node: 0.79× the baseline).
W1V_TARGET = 0.87
#: The spreads of API keys the scaling rows take (``--keys``): one key, 16 keys, and a key per
#: connection (0).
SPREADS = {"1": 1, "16": 16, "conn": 0}


@dataclass(frozen=True, slots=True)
class Load:
    connections: int
    duration: float
    driver: str  # "wrk" or "python"


@dataclass(frozen=True, slots=True)
class Measured:
    rate: float
    p50_ms: float
    p99_ms: float
    errors: int


def wrk_version() -> str | None:
    wrk = shutil.which("wrk")
    if wrk is None:
        return None
    out = subprocess.run([wrk, "--version"], capture_output=True, text=True, check=False)
    first = (out.stdout + out.stderr).strip().splitlines()
    return first[0].split(" Copyright")[0] if first else "wrk"


def drive(workload: Workload, server: str, port: int, load: Load) -> Measured:
    if load.driver == "wrk":
        return _wrk(workload, server, port, load)
    result: LoadResult = run_load(
        Target(HOST, port),
        workload.maker(server, port),
        connections=load.connections,
        duration=load.duration,
    )
    return Measured(
        rate=result.rate,
        p50_ms=result.percentile(0.5) * 1000,
        p99_ms=result.percentile(0.99) * 1000,
        errors=result.errors + result.non_2xx,
    )


def _lua(workload: Workload, server: str) -> str:
    head = (
        'wrk.method = "POST"\n'
        'wrk.headers["Content-Type"] = "application/json"\n'
        'wrk.headers["Authorization"] = "Bearer sk-bench"\n'
    )
    for name, value in () if server == "baseline" else workload.headers:
        head += f"wrk.headers[{_lua_string(name)}] = {_lua_string(value)}\n"
    if workload.headers and workload.varied and server != "baseline":
        # Only the one-key form below passes wrk.headers on (nil: the defaults).
        assert workload.keys == 1, "headers with one key only"
        assert not workload.per_connection, "headers with one key only"
    if not workload.varied:
        return head + f"wrk.body = {_lua_string(workload.body.decode())}\n"
    if workload.per_connection:
        return head + (
            "local threads = 0\n"
            "function setup(thread)\n"
            "  threads = threads + 1\n"
            '  thread:set("connection", threads)\n'
            "end\n"
            "local n = 0\n"
            "request = function()\n"
            "  n = n + 1\n"
            '  local headers = {["Content-Type"] = "application/json",\n'
            '    ["Authorization"] = "Bearer sk-bench-c" .. connection}\n'
            # Numbered as the bundled driver numbers them (connection c's k-th is c·10⁶ + k):
            # every thread counting from 1 alone would send each message once per connection,
            # and a text already seen costs less (the tokenizer remembers texts).
            f"  return wrk.format(nil, nil, headers, {_lua_string(workload.halves[0])} .. "
            f"(connection * 1000000 + n) .. {_lua_string(workload.halves[1])})\n"
            "end\n"
        )
    if workload.keys > 1:
        return head + (
            "local n = 0\n"
            "request = function()\n"
            "  n = n + 1\n"
            '  local headers = {["Content-Type"] = "application/json",\n'
            f'    ["Authorization"] = "Bearer sk-bench-" .. (n % {workload.keys})}}\n'
            f"  return wrk.format(nil, nil, headers, {_lua_string(workload.halves[0])} .. n .. "
            f"{_lua_string(workload.halves[1])})\n"
            "end\n"
        )
    return head + (
        "local n = 0\n"
        "request = function()\n"
        "  n = n + 1\n"
        f"  return wrk.format(nil, nil, nil, {_lua_string(workload.halves[0])} .. n .. "
        f"{_lua_string(workload.halves[1])})\n"
        "end\n"
    )


def _lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def _ms(value: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", value).groups()  # type: ignore[union-attr]
    return float(number) * _UNITS[unit]


def _wrk(workload: Workload, server: str, port: int, load: Load) -> Measured:
    seconds = max(1, round(load.duration))  # wrk takes whole seconds
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(_lua(workload, server))
    try:
        out = subprocess.run(
            [
                "wrk",
                f"-t{load.connections if workload.per_connection else 1}",
                f"-c{load.connections}",
                f"-d{seconds}s",
                "--latency",
                "-s",
                script.name,
                f"http://{HOST}:{port}{workload.path_for(server)}",
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=seconds + 60,
        ).stdout
    finally:
        Path(script.name).unlink()
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M)
    errors = sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return Measured(
        rate=rate,
        p50_ms=_ms(p50.group(1)) if p50 else float("nan"),
        p99_ms=_ms(p99.group(1)) if p99 else float("nan"),
        errors=errors + (int(bad.group(1)) if bad else 0),
    )


def first_chunk_ms(workload: Workload, server: str, port: int, *, duration: float) -> float:
    """Median time to the first body byte, one connection (what a user waits for)."""
    result = run_load(
        Target(HOST, port), workload.maker(server, port), connections=1, duration=duration
    )
    return result.percentile(0.5, first_byte=True) * 1000
