"""Cassettes: ``@pytest.mark.mockserver(cassette="name")`` replays a recording in the test's
namespace, or records one through the session's server (``--mockserver-record-mode``).

Replaying needs nothing but the file (``tests/cassettes/<module>/<name>.yaml`` by default). A
mode that records (``once`` with no file, ``new_episodes``, ``all``) sends what the cassette
does not answer to ``MOCKSERVER_UPSTREAM_URL``, with the real key of the provider whose API is
called in place of the test's mock key: ``MOCKSERVER_UPSTREAM_KEY`` for every provider if set
(as ``mockserver record`` reads it), else the provider's own variable, as its SDK reads it
(:data:`PROVIDER_KEYS`: ``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``GOOGLE_API_KEY`` then
``GEMINI_API_KEY``, ``AZURE_OPENAI_API_KEY``; Ollama's calls go as they are). Keys are read only
then, never written (the recording drops credentials and masks every key wherever it is
echoed). Without ``MOCKSERVER_UPSTREAM_KEY``, a Bedrock request is signed again with the
shell's ``AWS_ACCESS_KEY_ID`` and ``AWS_SECRET_ACCESS_KEY`` (and ``AWS_SESSION_TOKEN``). All
are read from the environment as the shell gave it, not as ``--mockserver-env`` set it for the
SDKs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest

from pytest_mockserver import env

if TYPE_CHECKING:
    from mockserver.families import Provider
    from mockserver.record.recorder import Mode, Recorder
    from mockserver.scenario.model import Scenario
    from pytest_mockserver.handle import MockServer

__all__ = ["PROVIDER_KEYS", "Cassette", "cassette_path", "may_record", "start", "upstream_keys"]

#: The environment's variables by name.
Environ = Mapping[str, str]
UPSTREAM_VARIABLE = "MOCKSERVER_UPSTREAM_URL"
#: The one key sent upstream in place of every provider's (``mockserver record``'s too).
KEY_VARIABLE = "MOCKSERVER_UPSTREAM_KEY"
#: Each provider's own key, by the variables its SDK reads, the first set winning
#: (google-genai prefers ``GOOGLE_API_KEY`` to ``GEMINI_API_KEY``). Ollama's calls need none;
#: Bedrock's are signed with the shell's AWS credentials.
PROVIDER_KEYS: Mapping[Provider, tuple[str, ...]] = {
    "openai": (env.KEY,),
    "anthropic": (env.ANTHROPIC_KEY,),
    "google": (env.GEMINI_KEY, env.OTHER_GEMINI_KEY),
    "azure": (env.AZURE_KEY,),
}


def may_record(mode: str) -> bool:
    """Can a test of this session record (so the server needs the recording proxy)?"""
    return mode != "none"


def cassette_path(item: pytest.Item, given: str | bool) -> Path:
    """``<test dir>/cassettes/<module>/<name>.yaml``; a ``.yaml`` path is the test dir's."""
    folder = Path(item.path).parent
    if isinstance(given, str) and given.endswith((".yaml", ".yml")):
        return folder / given
    name = item.name if given is True else str(given)
    return folder / "cassettes" / Path(item.path).stem / f"{name}.yaml"


@dataclass
class Cassette:
    """A cassette in use by one test."""

    path: Path
    mode: str
    recorder: Recorder | None = None

    @property
    def recording(self) -> bool:
        return self.recorder is not None and self.recorder.records

    def stop(self, handle: MockServer) -> None:
        recorders = handle.session.recorders
        if recorders is not None:
            recorders.remove(handle.api_key)

    def misses(self, handle: MockServer) -> str | None:
        """For each request of the test no recording answered: the nearest recording."""
        if self.recording:  # what was not recorded was forwarded, and is now
            return None
        from mockserver.record.keys import prompt_of
        from mockserver.record.nearest import no_recording

        scenario = handle.scenario
        lines = []
        for call in handle.calls:
            if call.miss is None or call.api not in ("chat", "responses"):
                continue
            prompt = prompt_of(call.api, call.request)
            if prompt is not None:
                lines.append(
                    f"  call {call.seq}: " + no_recording(scenario, prompt, cassette=str(self.path))
                )
        if not lines:
            return None
        how = (
            f"mockserver: the cassette is replayed only (record mode {self.mode}); record what "
            "is missing with --mockserver-record-mode=new_episodes"
        )
        return "\n".join([how, *lines])


def start(
    handle: MockServer, item: pytest.Item, *, given: str | bool, mode: str, environ: Environ
) -> Cassette:
    """Serve (or record) the cassette for this test's namespace (``environ``: the shell's
    environment, which holds the upstream's credentials)."""
    path = cassette_path(item, given)
    if not may_record(mode) or (mode == "once" and path.exists()):
        if not path.exists():
            pytest.fail(
                f"mockserver: cassette {path} does not exist and record mode {mode} only "
                f"replays: record it once with --mockserver-record-mode=once and "
                f"{UPSTREAM_VARIABLE} set",
                pytrace=False,
            )
        handle.use(path)
        return Cassette(path, mode)
    return _recording(handle, path, mode, environ)


def _recording(handle: MockServer, path: Path, mode: str, environ: Environ) -> Cassette:
    from mockserver.errors import MockServerError
    from mockserver.record.recorder import Recorder, Recording
    from mockserver.record.sigv4 import aws_credentials

    upstream = environ.get(UPSTREAM_VARIABLE)
    if not upstream:
        pytest.fail(
            f"mockserver: record mode {mode} records {path}: set {UPSTREAM_VARIABLE} to the "
            "upstream's base URL (…/v1)",
            pytrace=False,
        )
    recordings = handle.session.recorders
    assert recordings is not None, "the session was started without recording"
    try:
        recorder = Recorder(
            Recording(
                path,
                upstream=upstream,
                mode=cast("Mode", mode),
                api_key=environ.get(KEY_VARIABLE) or None,
                keys=upstream_keys(environ),
                aws=aws_credentials(environ),
            )
        )
    except MockServerError as exc:
        pytest.fail(f"mockserver: {exc}", pytrace=False)
    if recorder.scenario is not None:
        handle.use(recorder.scenario)

    def reload(scenario: Scenario) -> None:  # new_episodes: what was just recorded replays
        handle.use(scenario)

    recorder.on_reload = reload
    recordings.add(handle.api_key, recorder)
    return Cassette(path, mode, recorder)


def upstream_keys(environ: Environ) -> dict[Provider, str]:
    """Each provider's own key in the shell's ``environ`` (:data:`PROVIDER_KEYS`)."""
    keys: dict[Provider, str] = {}
    for provider, names in PROVIDER_KEYS.items():
        key = next((environ[name] for name in names if environ.get(name)), None)
        if key is not None:
            keys[provider] = key
    return keys
