"""``mockserver import vcr|har``: recordings users already have, written as a scenario the way
``mockserver record`` writes one (the same rules, forms, redaction and atomic files)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from mockserver.errors import MockServerError
from mockserver.families import by_api, turn_families
from mockserver.record.cassette import Cassette, Form
from mockserver.record.har import read_har
from mockserver.record.importing import Imported, ImportFailed
from mockserver.record.keys import api_of
from mockserver.record.redact import Redactor
from mockserver.record.vcr import read_cassette
from mockserver.values import value_class

__all__ = ["Kind", "Report", "import_files"]

Kind = Literal["vcr", "har"]

_READERS: dict[Kind, Callable[[Path], Imported]] = {"vcr": read_cassette, "har": read_har}


@value_class
class Report:
    """What an import wrote, and one line for each kind of call it left out."""

    out: Path
    rules: int
    exchanges: int
    lines: tuple[str, ...]

    def text(self) -> str:
        done = f"wrote {self.out}: {self.rules} rule(s) from {self.exchanges} recorded call(s)"
        return "\n".join([*self.lines, done])


def import_files(
    kind: Kind,
    paths: Sequence[Path],
    *,
    out: Path,
    form: Form = "exact",
    redact: tuple[str, ...] = (),
    append: bool = False,
) -> Report:
    """Read every file first (a malformed one fails the import before anything is written),
    then write their model turns, in order, into the scenario ``out``."""
    if out.exists() and not append:
        raise ImportFailed(
            "the scenario exists: --append adds to it, or remove it first", file=str(out)
        )
    for pattern in redact:
        try:
            re.compile(pattern)
        except re.error as exc:
            message = f"--redact {pattern!r} is not a regular expression ({exc})"
            raise MockServerError(message) from None
    read = _READERS[kind]
    imported = [read(path) for path in paths]
    cassette = Cassette(out, form=form, redactor=Redactor(patterns=redact), fresh=not append)
    if not append:
        names = ", ".join(path.name for path in paths)
        cassette.document["description"] = (
            f"Imported by mockserver import {kind} from {names} ({form} replies). An ordinary "
            "scenario: edit a rule's when to widen or narrow what it answers."
        )
    lines: list[str] = []
    rules: set[str] = set()
    written = 0
    for recording in imported:
        lines += recording.skipped_lines()
        not_turns: list[str] = []
        not_requests: list[str] = []
        for index, exchange in zip(recording.indexes, recording.exchanges, strict=True):
            call = f"#{index} {exchange.method} {exchange.path}"
            if api_of(exchange.method, exchange.path) is None:
                not_turns.append(call)
                continue
            rule = cassette.add(exchange, secrets=recording.secrets)
            if rule is None:
                not_requests.append(call)
                continue
            rules.add(rule)
            written += 1
        lines += _left_out(recording, not_turns, _NOT_A_TURN)
        lines += _left_out(recording, not_requests, _NOT_A_REQUEST)
    if not written:
        cassette.write()  # an empty scenario still says where it came from
    return Report(out, len(rules), written, tuple(lines))


_NOT_A_TURN = "not a model turn a scenario rule answers (POST {})".format(
    " or ".join(dict.fromkeys(by_api(family.api).path for family in turn_families()))
)
_NOT_A_REQUEST = "its body is not a request of that API (no model, or not a JSON object)"


def _left_out(recording: Imported, calls: list[str], reason: str) -> list[str]:
    if not calls:
        return []
    noun = recording.noun[len(calls) != 1]
    shown = ", ".join(calls[:3]) + (", …" if len(calls) > 3 else "")
    return [f"{recording.file}: skipped {len(calls)} {noun}: {reason} ({shown})"]
