"""Record & replay modes, as pytest-recording and vcrpy name them, and what each request gets.

- ``once``: record when the cassette is absent, else replay it;
- ``new_episodes``: replay what the cassette answers, forward and append the rest;
- ``none``: replay only; a request with no recording is the API's 400 naming the nearest one;
- ``all``: forward and re-record everything.

:class:`Recorder` decides, per request, between the upstream and the recordings, and writes
what the upstream answered. The proxy (``mockserver.http.proxy``) does the HTTP.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Literal

from mockserver.errors import MockServerError
from mockserver.families import Provider
from mockserver.prompt import Prompt
from mockserver.record.cassette import Cassette, Form
from mockserver.record.exchange import Exchange, error_message
from mockserver.record.files import probe_writable
from mockserver.record.keys import api_of, prompt_of
from mockserver.record.redact import Redactor
from mockserver.record.sigv4 import AwsCredentials
from mockserver.scenario.model import Scenario
from mockserver.values import value_class

__all__ = [
    "MODES",
    "REFUSALS",
    "Decision",
    "Mode",
    "Recorder",
    "Recorders",
    "Recording",
    "RecordingError",
    "check_cassette_path",
]

log = logging.getLogger("mockserver")

#: The upstream's answers that refuse the client's key, not the request: never a recording
#: (``once`` would replay the refusal forever, whatever key a test later sends).
REFUSALS = frozenset({401, 403})


Mode = Literal["once", "new_episodes", "none", "all"]
MODES: tuple[Mode, ...] = ("once", "new_episodes", "none", "all")
#: What a request gets: the upstream, the recordings (the scenario answers), or a 400 that
#: names the nearest recording (the message).
Decision = Literal["forward", "replay"] | str


class RecordingError(MockServerError):
    """A recording that cannot start (no cassette to replay, a cassette that does not load)."""


@value_class
class Recording:
    """How to record: where, from which upstream, in which mode and form."""

    path: Path
    #: The upstream's base URL, ``/v1`` included (``https://api.example.com/v1``).
    upstream: str | None = None
    mode: Mode = "once"
    form: Form = "exact"
    #: Regexes masked in everything written (with the scenario file's ``redact:``).
    redact: tuple[str, ...] = ()
    #: Seconds to wait for the upstream's connection (an unreachable one is a quick 502).
    connect_timeout: float = 5.0
    #: Seconds to wait for each read from the upstream (a hang is a 504 past it).
    read_timeout: float = 120.0
    #: The one key sent upstream in place of the client's credentials on every provider's
    #: calls (``MOCKSERVER_UPSTREAM_KEY``), in the header that provider's clients send it in.
    api_key: str | None = None
    #: Bedrock's requests are signed again with these for the upstream (a client signs for
    #: the proxy's host), if set and no ``api_key`` is.
    aws: AwsCredentials | None = None
    #: Each provider's own key (the pytest plugin's ``ANTHROPIC_API_KEY``…), sent in place of
    #: the client's on that provider's calls when no ``api_key`` is set; never Bedrock's.
    keys: Mapping[Provider, str] = dataclasses.field(default_factory=dict, repr=False, hash=False)

    def key_for(self, provider: Provider) -> str | None:
        """The key sent upstream on ``provider``'s calls in place of the client's: the one
        ``api_key`` if set, else the provider's own (``None``: the client's goes). Bedrock has
        no key of its own here: without ``api_key`` its requests are signed with ``aws``."""
        if self.api_key is not None:
            return self.api_key
        if provider == "aws":
            return None
        return self.keys.get(provider)

    @property
    def secrets(self) -> tuple[str, ...]:
        """The keys this recording may send upstream: masked in everything it writes, whether
        or not a call sent them."""
        given = [self.api_key, *self.keys.values()]
        return tuple(key for key in given if key)


def check_cassette_path(path: Path, *, writes: bool) -> None:
    """Refuse, before anything is recorded, a cassette path that could not be written (or
    read): one that is not a scenario file's name, a directory, a folder for its recordings
    that is a file, a place that cannot be written (a missing folder is made now)."""
    from mockserver.scenario.library import SUFFIXES

    if path.is_dir():
        raise RecordingError(
            f"cassette {path} is a directory: name the scenario file to write in it, such as "
            f"{path / 'recording.yaml'}"
        )
    if path.suffix not in SUFFIXES:
        raise RecordingError(
            f"cassette {path}: a cassette is a scenario file named .yaml, .yml or .json (say "
            f"{path}.yaml); its recordings go in a folder of its name beside it"
        )
    folder = path.parent / path.stem
    if folder.exists() and not folder.is_dir():
        raise RecordingError(
            f"cassette {path}: its recordings go in {folder}, which is a file; move it, or "
            "name the cassette otherwise"
        )
    if writes:
        try:
            probe_writable(path.parent)
        except OSError as exc:
            raise RecordingError(
                f"cassette {path} cannot be written: {exc.strerror or exc} ({exc.filename})"
            ) from None


class Recorder:
    """One recording session over one cassette file."""

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        path = recording.path
        existed = path.exists()
        mode = recording.mode
        if mode == "none" and not existed:
            raise RecordingError(f"cassette {path} does not exist: mode none replays only")
        #: Forward what the recordings do not answer (and write it).
        self.records = mode in ("all", "new_episodes") or (mode == "once" and not existed)
        #: Answer from the recordings what they can.
        self.replays = mode in ("none", "new_episodes") or (mode == "once" and existed)
        for pattern in recording.redact:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise RecordingError(f"--redact {pattern!r} is not a valid regex: {exc}") from None
        if self.records and recording.upstream is None:
            raise RecordingError(f"mode {mode} records {path}: it needs an upstream URL")
        check_cassette_path(path, writes=self.records)
        self.cassette = Cassette(
            path,
            form=recording.form,
            redactor=Redactor(recording.redact).with_secrets(recording.secrets),
            fresh=mode == "all",
        )
        self.scenario: Scenario | None = self._load() if self.replays and existed else None
        #: Exchanges written, and calls forwarded but not written (not model turns).
        self.written = 0
        self.passed_through = 0
        #: Exchanges that could not be written (each said in the log as it happened).
        self.lost = 0
        #: Model turns the upstream refused (401, 403): warned of, not written.
        self.refused = 0
        #: Serves the cassette's scenario once it answers more (``new_episodes``); unset, the
        #: server's default scenario is replaced.
        self.on_reload: Callable[[Scenario], None] | None = None

    def summary(self) -> str:
        """What this run wrote, for the line ``serve`` prints when it stops."""
        path = self.recording.path
        said = f"record: {self.written} new recording(s) written to {path}"
        if self.passed_through:
            said += (
                f"; {self.passed_through} call(s) forwarded but not written (not model turns: "
                "models, embeddings, moderations, stored objects; replay answers them itself)"
            )
        if self.refused:
            said += (
                f"; {self.refused} answer(s) of 401/403 not written (the upstream refused the key)"
            )
        if self.lost:
            said += f"; {self.lost} exchange(s) NOT written: the cassette could not be written"
        return said

    def _load(self) -> Scenario:
        from mockserver.scenario.loader import load_file

        try:
            return load_file(self.recording.path)
        except MockServerError as exc:
            raise RecordingError(f"cassette {self.recording.path} does not load: {exc}") from None

    def decide(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> Decision:
        """Where a request to ``path`` goes."""
        api = api_of(method, path)
        if api is None:  # not a model turn: the upstream while recording, else ours
            return "forward" if self.records else "replay"
        if not self.replays:
            return "forward"
        prompt = _prompt(api, body, headers, path=path)
        if prompt is None:  # not a valid request: ours says why, as the API would
            return "replay"
        if self.scenario is not None and self.answers(prompt):
            return "replay"
        if self.records:
            return "forward"
        from mockserver.record.nearest import no_recording

        scenario = self.scenario or Scenario(name=self.recording.path.stem)
        return no_recording(scenario, prompt, cassette=str(self.recording.path))

    def answers(self, prompt: Prompt) -> bool:
        from mockserver.scenario.matcher import Selected, select

        assert self.scenario is not None
        return isinstance(select(self.scenario, prompt, {}), Selected)

    def captured(self, exchange: Exchange, *, secrets: list[str]) -> Scenario | None:
        """Write an exchange the upstream answered; the cassette's scenario, reloaded, when the
        recordings now answer more (``new_episodes``), for the server to replay them."""
        if exchange.status in REFUSALS and api_of(exchange.method, exchange.path) is not None:
            self.refused += 1
            log.warning(
                "record: the upstream answered %s to %s %s: not recorded (a replay would answer "
                "it every time). Is the key the client sends one the upstream accepts? "
                "MOCKSERVER_UPSTREAM_KEY sends one in its place. Its message: %s",
                exchange.status,
                exchange.method,
                exchange.path,
                error_message(exchange.body) or "(none)",
            )
            return None
        try:
            written = self.cassette.add(exchange, secrets=secrets)
        except OSError as exc:  # the disk filled, the folder went: the client's answer is sent
            self.lost += 1
            log.error(
                "record: %s %s NOT recorded: cannot write %s: %s",
                exchange.method,
                exchange.path,
                exc.filename or self.recording.path,
                exc.strerror or exc,
            )
            return None
        if written is None:
            self.passed_through += 1
            return None
        self.written += 1
        if not self.replays:
            return None
        self.scenario = self._load()
        return self.scenario


def _prompt(api: str, body: bytes, headers: dict[str, str], *, path: str) -> Prompt | None:
    try:
        parsed = json.loads(body)
    except ValueError:
        return None
    return prompt_of(api, parsed, headers, path=path)


class Recorders:
    """Recorders by namespace, for a server shared by many tests (the pytest plugin): a
    request of a namespace with no recorder is the server's own."""

    def __init__(self) -> None:
        self._by_namespace: dict[str, Recorder] = {}
        self._lock = threading.Lock()

    def add(self, namespace: str, recorder: Recorder) -> None:
        with self._lock:
            self._by_namespace[namespace] = recorder

    def remove(self, namespace: str) -> None:
        with self._lock:
            self._by_namespace.pop(namespace, None)

    def get(self, namespace: str) -> Recorder | None:
        with self._lock:
            return self._by_namespace.get(namespace)
