"""A cassette: the scenario file a recording writes, with its recording files beside it.

One rule per recorded request (a request recorded again with another answer adds a reply to
the rule's ``replies``, served in order), its ``when`` from :mod:`mockserver.record.keys`, its
reply exact (``recorded: {fixture: …}``) or distilled (the neutral reply). Every exchange's
recording — the request and the answer as it arrived — is its own JSON file in a directory
named after the scenario (``chat.yaml`` → ``chat/chat-001.json``); a rule lists them under
``recordings`` (``mockserver record --check`` replays them). Each write is atomic and the
scenario is written after the files it names, so a crash leaves a scenario that loads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import yaml

from mockserver.families import turn_families
from mockserver.record.distill import distilled_reply, recording_of
from mockserver.record.exchange import Exchange
from mockserver.record.files import write_atomically
from mockserver.record.keys import api_of, when_of
from mockserver.record.redact import MASK, Redactor
from mockserver.values import Json

__all__ = ["Cassette", "Form"]

Form = Literal["exact", "distilled"]
#: A distilled reply longer than this (as JSON) goes to a fixture file of its own.
LARGE_REPLY = 2000
#: The recording files this module names (``all`` re-records: it removes only these).
_OURS = re.compile(
    "({})".format("|".join(sorted({f.api for f in turn_families()}))) + r"-\d{3,}(\.reply)?\.json"
)


class Cassette:
    def __init__(self, path: Path, *, form: Form, redactor: Redactor, fresh: bool) -> None:
        self.path = path
        self.form = form
        self.folder = path.parent / path.stem
        #: Recorded again (``all``): the old recording files go once the new scenario is out.
        self._stale = fresh and path.exists()
        if fresh or not path.exists():
            self.document: Json = _new_document(path, form)
        else:
            loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
            self.document = loaded if isinstance(loaded, dict) else _new_document(path, form)
            self.document.setdefault("rules", [])
        given = self.document.get("redact") or []
        patterns = tuple(p for p in given if isinstance(p, str))
        self.redactor = Redactor(redactor.patterns + patterns, redactor.secrets)

    @property
    def rules(self) -> list[Json]:
        rules: list[Json] = self.document["rules"]
        return rules

    def _remove_stale(self) -> None:
        """Remove the recording files the scenario (just written) no longer names."""
        self._stale = False
        named: set[str] = set()
        for rule in self.rules:
            named.update(rule.get("recordings") or ())
            for reply in [rule.get("reply"), *(rule.get("replies") or ())]:
                if isinstance(reply, dict) and isinstance(reply.get("fixture"), str):
                    named.add(reply["fixture"])
        if self.folder.is_dir():
            for file in self.folder.iterdir():
                if _OURS.fullmatch(file.name) and f"{self.path.stem}/{file.name}" not in named:
                    file.unlink()

    def _next_number(self) -> int:
        return 1 + sum(len(rule.get("recordings") or ()) for rule in self.rules)

    def add(self, exchange: Exchange, *, secrets: Sequence[str] = ()) -> str | None:
        """Write ``exchange`` (redacted) into the cassette; the id of the rule that now answers
        it, or ``None`` for a call that is not a model turn (not written)."""
        api = api_of(exchange.method, exchange.path)
        if api is None:
            return None
        redactor = self.redactor.with_secrets(secrets)
        exchange = redactor.exchange(exchange)
        when = when_of(exchange, exact=self.form == "exact")
        if when is None:
            return None
        when = _masked_when(when)
        number = self._next_number()
        name = f"{api}-{number:03d}"
        recording = f"{self.path.stem}/{name}.json"
        data = json.dumps(recording_of(exchange), indent=2, ensure_ascii=False) + "\n"
        write_atomically(self.path.parent / recording, data.encode())
        reply = self._reply(exchange, name, recording)
        rule_id = self._file_rule(when, reply, recording, name)
        self.write()
        return rule_id

    def _reply(self, exchange: Exchange, name: str, recording: str) -> Json:
        exact: Json = {"recorded": {"fixture": recording}}
        if self.form == "exact":
            return exact
        reply = distilled_reply(exchange)
        if reply is None:  # nothing neutral to say it with: replay it as it was
            return exact
        if len(json.dumps(reply)) <= LARGE_REPLY:
            return reply
        fixture = f"{self.path.stem}/{name}.reply.json"
        text = json.dumps(reply, indent=2, ensure_ascii=False) + "\n"
        write_atomically(self.path.parent / fixture, text.encode())
        return {"fixture": fixture}

    def _file_rule(self, when: Json, reply: Json, recording: str, name: str) -> str:
        for rule in self.rules:
            if rule.get("when") == when and "recordings" in rule:
                replies = rule.pop("replies", None) or [rule.pop("reply")]
                rule["replies"] = [*replies, reply]
                rule["recordings"].append(recording)
                return str(rule["id"])
        self.rules.append({"id": name, "when": when, "reply": reply, "recordings": [recording]})
        return name

    def write(self) -> None:
        if self.path.suffix == ".json":  # JSON, as its name says (a YAML reader reads it too)
            text = json.dumps(self.document, indent=2, ensure_ascii=False) + "\n"
        else:
            text = yaml.dump(
                self.document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100
            )
        write_atomically(self.path, text.encode())
        if self._stale:
            self._remove_stale()


class _Dumper(yaml.SafeDumper):
    """Short mappings and lists of scalars on one line (``model: {equals: gpt-4o}``)."""


def _short(values: Sequence[Any]) -> bool:
    scalars = all(v is None or isinstance(v, str | int | float | bool) for v in values)
    return (
        scalars and sum(len(str(v)) for v in values) < 60 and "\n" not in "".join(map(str, values))
    )


def _mapping(dumper: yaml.SafeDumper, data: dict[Any, Any]) -> yaml.Node:
    flow = len(data) <= 2 and _short(list(data.values()))
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=flow)


def _sequence(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=_short(data))


_Dumper.add_representer(dict, _mapping)
_Dumper.add_representer(list, _sequence)


def _new_document(path: Path, form: Form) -> Json:
    return {
        "name": path.stem,
        "description": (
            f"Recorded by mockserver record ({form} replies). An ordinary scenario: edit a "
            "rule's when to widen or narrow what it answers."
        ),
        "fallback": "strict_turns",
        "rules": [],
    }


def _masked_when(value: Any) -> Any:
    """A ``when`` whose texts had secrets masked: each such ``equals`` becomes a regex that
    matches the text with anything where the secret was."""
    if isinstance(value, dict):
        if (
            set(value) == {"equals"}
            and isinstance(value["equals"], str)
            and MASK in value["equals"]
        ):
            parts = value["equals"].split(MASK)
            return {"regex": "^" + "(?s:.+?)".join(re.escape(p) for p in parts) + "$"}
        return {k: _masked_when(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked_when(v) for v in value]
    return value
