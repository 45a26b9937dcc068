"""vcrpy and pytest-recording cassettes (YAML or JSON) of OpenAI calls, read as exchanges.

A cassette is ``{version: 1, interactions: [{request: {method, uri, body, headers}, response:
{status: {code, message}, headers, body: {string}}}]}``; its bodies are text, or bytes (YAML's
``!!binary``) when vcrpy kept them compressed. Older shapes are read too: a bare list of
interactions (before version 1), httpx's ``status_code``/``content`` responses (vcrpy < 6),
header values as strings, and response headers as ``"Name: value"`` lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import yaml

from mockserver.credentials import credentials_in
from mockserver.record.body import BodyError, decoded, json_of, read_response
from mockserver.record.exchange import Exchange
from mockserver.record.importing import (
    Entry,
    Imported,
    ImportFailed,
    Skip,
    api_path,
)
from mockserver.record.redact import kept_request, kept_response

__all__ = ["read_cassette"]


@cache
def _loader() -> type[yaml.SafeLoader]:
    """A safe loader (libyaml's where installed) that also reads the harmless Python tags old
    vcrpy cassettes hold (``!!python/str``, ``!!python/unicode``, ``!!python/tuple``), as
    vcrpy itself does; any other Python tag is refused, never constructed."""
    base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader: type[yaml.SafeLoader] = type("CassetteLoader", (base,), {})

    def text(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
        return loader.construct_scalar(node)

    def pair(loader: yaml.SafeLoader, node: yaml.SequenceNode) -> Any:
        return tuple(loader.construct_sequence(node))

    for tag in ("str", "unicode"):
        loader.add_constructor(f"tag:yaml.org,2002:python/{tag}", text)
    loader.add_constructor("tag:yaml.org,2002:python/tuple", pair)
    return loader


def read_cassette(path: Path) -> Imported:
    """The OpenAI exchanges a cassette holds, in order; what is not one is listed as skipped."""
    file = str(path)
    interactions = _interactions(_load(path), file)
    exchanges: list[Exchange] = []
    indexes: list[int] = []
    skipped: list[Skip] = []
    secrets: list[str] = []
    for index, interaction in enumerate(interactions):
        where = _Where(file, index)
        request = where.mapping(interaction, "", "an interaction")
        req = where.mapping(request.get("request"), "request", "the request")
        method = where.text(req.get("method"), "request.method").upper()
        uri = where.text(req.get("uri"), "request.uri")
        target = api_path(uri)
        if isinstance(target, str):
            skipped.append(Skip(index, method, uri, target))
            continue
        resp = where.mapping(request.get("response"), "response", "the response")
        exchanges.append(_exchange(where, req, resp, method=method, target=target))
        indexes.append(index)
        secrets += credentials_in(where.headers(req.get("headers"), "request.headers"), target[1])
    return Imported(file, tuple(exchanges), tuple(indexes), tuple(skipped), tuple(secrets))


def _load(path: Path) -> Any:
    file = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ImportFailed(f"cannot read the cassette ({exc.strerror})", file=file) from None
    if path.suffix.lower() == ".json" or raw.lstrip()[:1] in (b"{", b"["):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise ImportFailed(f"not valid JSON ({exc})", file=file) from None
    try:
        return yaml.load(raw, Loader=_loader())  # a safe loader: no Python objects built
    except yaml.constructor.ConstructorError as exc:
        raise ImportFailed(
            f"a YAML tag a safe loader refuses ({exc.problem}): it would build a Python object",
            file=file,
            line=_line(exc),
        ) from None
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc)
        raise ImportFailed(f"not valid YAML ({problem})", file=file, line=_line(exc)) from None


def _line(exc: yaml.YAMLError) -> int | None:
    mark = getattr(exc, "problem_mark", None)
    return mark.line + 1 if mark is not None else None


def _interactions(data: Any, file: str) -> list[Any]:
    if isinstance(data, list):  # vcrpy before 1.0: the interactions alone
        return data
    if not isinstance(data, Mapping) or "interactions" not in data:
        raise ImportFailed(
            "not a vcrpy cassette: expected a mapping with 'interactions' (and 'version: 1')",
            file=file,
        )
    version = data.get("version", 1)
    if version != 1:
        raise ImportFailed(
            f"cassette format version {version!r}: this import reads vcrpy's version 1",
            file=file,
            field="version",
        )
    interactions = data["interactions"]
    if not isinstance(interactions, list):
        raise ImportFailed(
            f"expected a list of interactions, got {type(interactions).__name__}",
            file=file,
            field="interactions",
        )
    return interactions


class _Where(Entry):
    """Checks on one interaction (vcr cassettes are YAML: their objects are mappings)."""

    def __init__(self, file: str, index: int) -> None:
        super().__init__(file, f"interaction {index}")

    def body(self, value: Any, field: str) -> bytes:
        if value is None:
            return b""
        if isinstance(value, bytes):
            return value
        if isinstance(value, str):
            return value.encode("utf-8")
        raise self.fail(f"expected the body as text or !!binary, got {self.kind(value)}", field)

    def headers(self, value: Any, field: str) -> list[tuple[str, str]]:
        """``{name: [values]}`` or ``{name: value}``, or ``["Name: value\\r\\n", …]``."""
        if value is None:
            return []
        if isinstance(value, list):
            return [self._header_line(line, f"{field}[{i}]") for i, line in enumerate(value)]
        mapping = self.mapping(value, field, "the headers")
        pairs: list[tuple[str, str]] = []
        for name, values in mapping.items():
            for one in values if isinstance(values, list) else [values]:
                if not isinstance(one, str | int | float):
                    raise self.fail(f"expected text, got {self.kind(one)}", f"{field}.{name}")
                pairs.append((str(name), str(one)))
        return pairs

    def _header_line(self, line: Any, field: str) -> tuple[str, str]:
        name, colon, value = line.partition(":") if isinstance(line, str) else ("", "", "")
        if not colon:
            raise self.fail(f"expected a 'Name: value' header line, got {line!r}", field)
        return name.strip(), value.strip()


def _exchange(
    where: _Where,
    req: Mapping[str, Any],
    resp: Mapping[str, Any],
    *,
    method: str,
    target: tuple[str, str],
) -> Exchange:
    path, query = target
    request_headers = where.headers(req.get("headers"), "request.headers")
    request = _request_json(where, req.get("body"), request_headers)
    status, headers, raw, body_field = _response_parts(where, resp)
    named = dict(_lower(headers))
    try:
        answer = read_response(
            raw,
            content_type=named.get("content-type", ""),
            content_encoding=named.get("content-encoding", ""),
            chunked="chunked" in named.get("transfer-encoding", "").lower(),
        )
    except BodyError as exc:
        raise where.fail(str(exc), body_field) from None
    return Exchange(
        method=method,
        path=path,
        query=query,
        status=status,
        request=request,
        request_headers=kept_request(request_headers),
        response_headers=kept_response(headers),
        body=answer.body,
        events=answer.events,
        complete=answer.complete,
        body_text=answer.text,
        crlf=answer.crlf,
    )


def _lower(headers: Iterable[tuple[str, str]]) -> Iterable[tuple[str, str]]:
    return ((name.lower(), value) for name, value in headers)


def _request_json(where: _Where, value: Any, headers: list[tuple[str, str]]) -> Any:
    encoding = dict(_lower(headers)).get("content-encoding", "")
    try:
        return json_of(decoded(where.body(value, "request.body"), encoding), "request body")
    except BodyError as exc:
        raise where.fail(str(exc), "request.body") from None


def _response_parts(
    where: _Where, resp: Mapping[str, Any]
) -> tuple[int, list[tuple[str, str]], bytes, str]:
    """Status, headers, raw body and the body's field name, in either response shape."""
    headers = where.headers(resp.get("headers"), "response.headers")
    if "status_code" in resp:  # httpx responses as vcrpy < 6 wrote them
        status, status_field = resp["status_code"], "response.status_code"
        raw = where.body(resp.get("content"), "response.content")
        body_field = "response.content"
    else:
        status_block = where.mapping(resp.get("status"), "response.status", "the status")
        status, status_field = status_block.get("code"), "response.status.code"
        body = where.mapping(resp.get("body"), "response.body", "the body")
        raw = where.body(body.get("string"), "response.body.string")
        body_field = "response.body.string"
    return where.status(status, status_field), headers, raw, body_field
