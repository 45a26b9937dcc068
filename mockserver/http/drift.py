"""``mockserver record --check``: each recorded request sent to the upstream again, and its
answer's shape compared with the recording's (:mod:`mockserver.record.drift`). Nothing is
written."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter
from typing import Any

import httpx
import yaml

from mockserver.errors import MockServerError
from mockserver.families import by_api, family_of
from mockserver.ids import RealClock
from mockserver.record.capture import Capture
from mockserver.record.distill import recording_of
from mockserver.record.drift import answer_differences, rechained, response_id
from mockserver.record.redact import ANSWER_SHAPING
from mockserver.record.sigv4 import AwsCredentials, resign, signing_scope
from mockserver.record.upstream import upstream_headers, upstream_url

__all__ = ["DriftReport", "check_cassette"]

#: The ``anthropic-version`` a recording made before versions were kept is checked with: what
#: every Anthropic client before the SDK's 2.x line sends.
ANTHROPIC_VERSION = "2023-06-01"

#: The API and the number a recording file is named with (``agent/responses-002.json``).
_NUMBER = re.compile(r"(?P<api>[a-z_]+)-(?P<number>\d+)\.json$")


@dataclass
class DriftReport:
    cassette: Path
    #: ``(rule id, recording file, differences)`` for each recording replayed.
    checked: list[tuple[str, str, list[str]]] = field(default_factory=list)
    #: Recordings that could not be replayed, and why.
    failed: list[tuple[str, str]] = field(default_factory=list)

    @property
    def drifted(self) -> bool:
        return bool(self.failed) or any(found for _, _, found in self.checked)

    def text(self) -> str:
        lines = []
        for rule, recording, found in self.checked:
            lines.append(f"{'DRIFT' if found else 'same '} rule '{rule}' ({recording})")
            lines += [f"      {line}" for line in found]
        lines += [f"ERROR {recording}: {why}" for recording, why in self.failed]
        drifted = sum(1 for *_, found in self.checked if found)
        lines.append(
            f"{len(self.checked)} recording(s) replayed against the upstream: {drifted} drifted, "
            f"{len(self.failed)} failed"
        )
        return "\n".join(lines)


def check_cassette(
    path: Path,
    *,
    upstream: str,
    api_key: str | None = None,
    aws: AwsCredentials | None = None,
    connect_timeout: float = 5.0,
    read_timeout: float = 120.0,
) -> DriftReport:
    """Each recording of the cassette at ``path`` asked of ``upstream`` again (with
    ``api_key``, else a placeholder; a Bedrock request signed with ``aws`` when given and no
    ``api_key`` is), and how its answer's shape differs from the recorded one."""
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise MockServerError(f"cannot read cassette {path}: {exc}") from None
    report = DriftReport(path)
    timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
    key = api_key or "sk-mockserver-drift-check"
    renamed: dict[str, str] = {}  # a recorded response's id → the one it got now
    with httpx.Client(timeout=timeout) as client:
        for rule, api, recording in _recordings(document):
            try:
                old = json.loads((path.parent / recording).read_text(encoding="utf-8"))
                request = rechained(old["request"], renamed)
                sent_to = str(old.get("path") or by_api(api).path)
                signing = aws if api_key is None else None
                asked = _shaping(old.get("request_headers"))
                new = _again(client, upstream, sent_to, request, asked, key=key, aws=signing)
            except (OSError, ValueError, KeyError, httpx.HTTPError) as exc:
                report.failed.append((recording, f"{type(exc).__name__}: {exc}"))
                continue
            was, now = response_id(old), response_id(new)
            if was is not None and now is not None:
                renamed[was] = now
            report.checked.append((rule, recording, answer_differences(old, new)))
    return report


def _recordings(document: Any) -> list[tuple[str, str, str]]:
    """``(rule id, api, recording file)`` of each recording, in the order they were recorded
    (their files are numbered so): a chain's later requests name the responses of earlier
    ones."""
    found = []
    rules = document.get("rules") if isinstance(document, dict) else None
    for rule in rules or ():
        api = (rule.get("when") or {}).get("api")  # a distilled rule names none: its files do
        for recording in rule.get("recordings") or ():
            named = _NUMBER.search(str(recording))
            found.append((str(rule.get("id")), str(api or (named and named["api"])), recording))
    return sorted(found, key=lambda f: int(m["number"]) if (m := _NUMBER.search(f[2])) else 0)


def _shaping(recorded: Any) -> list[tuple[str, str]]:
    """The request headers a recording kept that shape the answer (its API version, betas)."""
    if not isinstance(recorded, dict):
        return []
    return [
        (str(k).lower(), str(v)) for k, v in recorded.items() if str(k).lower() in ANSWER_SHAPING
    ]


def _again(
    client: httpx.Client,
    upstream: str,
    sent_to: str,
    request: Any,
    asked: list[tuple[str, str]],
    *,
    key: str,
    aws: AwsCredentials | None,
) -> dict[str, Any]:
    """The recording ``request`` (sent to ``sent_to``, a path and its query, with the
    ``asked`` headers that shaped its answer) would make now."""
    path, _, query = sent_to.partition("?")
    family = family_of(path)
    provider = family.provider if family is not None else "openai"
    if provider == "anthropic" and not any(k == "anthropic-version" for k, _ in asked):
        asked = [*asked, ("anthropic-version", ANTHROPIC_VERSION)]  # recorded before it was kept
    body = json.dumps(request).encode()
    plain = [("content-type", "application/json"), *asked]
    capture = Capture("POST", path, query, plain, body)
    start = perf_counter()
    url = upstream_url(upstream, path, query, provider=provider)
    headers = upstream_headers(plain, key=key, provider=provider)
    scope = signing_scope((), url, region=aws.region) if aws is not None else None
    if provider == "aws" and aws is not None and scope is not None:
        now = RealClock().now()
        headers = resign("POST", url, plain, body, credentials=aws, scope=scope, now=now)
    with client.stream("POST", url, content=body, headers=dict(headers)) as answer:
        capture.respond(answer.status_code, answer.headers.multi_items())
        complete = True
        try:
            for chunk in answer.iter_bytes():
                capture.receive(chunk, offset_ms=(perf_counter() - start) * 1000)
        except httpx.HTTPError:
            complete = False
    return recording_of(
        capture.finish(complete=complete, elapsed_ms=(perf_counter() - start) * 1000)
    )
