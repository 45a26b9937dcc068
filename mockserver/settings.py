"""Typed configuration: defaults, then ``MOCKSERVER_*`` environment variables, then CLI flags.

This is the only module that reads the environment, and it reads it only when asked
(:meth:`Settings.from_env`), never at import time.

A plain frozen dataclass that checks (and, for values from the environment, converts) each
field when it is made, rather than a pydantic model: validating a pydantic model builds its
validator, and the first validator a process builds imports pydantic's plugin machinery
(``importlib.metadata``, ``zipfile``, …); a server whose first request needs no validator
either (``wire.chat.check_chat_body``) then starts with none of it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from mockserver.errors import SettingsError
from mockserver.ids import DEFAULT_FROZEN_EPOCH, Clock, FrozenClock, RealClock
from mockserver.values import value_class

__all__ = ["Settings", "read_token_file", "shown_state_url"]

ENV_PREFIX = "MOCKSERVER_"

#: What pydantic (and so the rest of the project) reads as a boolean from a string.
_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})


class _Invalid(ValueError):
    """A field's value, rejected (the message says why; the caller names the field)."""


def _integer(*, low: int | None = None, optional: bool = False) -> Callable[[Any], Any]:
    def check(value: Any) -> int | None:
        if value is None and optional:
            return None
        if isinstance(value, str):
            try:
                value = int(value)
            except ValueError:
                raise _Invalid(f"Input should be a valid integer, got {value!r}") from None
        if type(value) is not int:
            raise _Invalid(f"Input should be a valid integer, got {value!r}")
        if low is not None and value < low:
            raise _Invalid(f"Input should be greater than or equal to {low}")
        return value

    return check


def _port(value: Any) -> int:
    port: int = _integer(low=0)(value)
    if port > 65535:
        raise _Invalid("Input should be less than or equal to 65535")
    return port


def _seconds(value: Any) -> float:
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise _Invalid(f"Input should be a number of seconds, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e6:
        raise _Invalid(f"Input should be a number of seconds above 0, got {value!r}")
    return float(value)


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise _Invalid(f"Input should be a valid boolean, got {value!r}")


def _one_of(*choices: str) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in choices:
            listed = ", ".join(repr(c) for c in choices)
            raise _Invalid(f"Input should be one of {listed}, got {value!r}")
        return str(value)

    return check


def _text(*, optional: bool = False) -> Callable[[Any], Any]:
    def check(value: Any) -> str | None:
        if value is None and optional:
            return None
        if not isinstance(value, str):
            raise _Invalid(f"Input should be a valid string, got {value!r}")
        return value

    return check


def _path(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _Invalid(f"Input should be a file path, got {value!r}")
    return value


def _texts(value: Any) -> tuple[str, ...]:
    """A list of strings; from the environment, comma or whitespace separated
    (``MOCKSERVER_API_KEYS=a,b``)."""
    if isinstance(value, str):
        return tuple(part for part in value.replace(",", " ").split() if part)
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise _Invalid(f"Input should be a list of strings, got {value!r}")


def _state_url(value: Any) -> str | None:
    url: str | None = _text(optional=True)(value)
    if url is not None and not url.startswith(("redis://", "rediss://", "unix://")):
        shown = shown_state_url(url)
        raise _Invalid(f"expected redis://HOST:PORT/DB (or rediss://, unix://), got {shown!r}")
    return url


def shown_state_url(url: str) -> str:
    """``url`` as the banner, logs, errors and 503 bodies show it: its password, if any
    (``redis://:PW@…``, ``redis://USER:PW@…``, ``?password=PW``), as ``***``."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # not a URL we can read: nothing of it shown but its scheme
        return url.partition("://")[0] + "://…"
    shown = url
    if password is not None:
        userinfo, _, host = parts.netloc.rpartition("@")
        shown = shown.replace(parts.netloc, f"{userinfo.partition(':')[0]}:***@{host}", 1)
    if parts.query:
        query = "&".join(
            "password=***" if field.partition("=")[0] == "password" else field
            for field in parts.query.split("&")
        )
        shown = shown.replace("?" + parts.query, "?" + query, 1)
    return shown


@value_class
class Settings:
    """Everything that configures one server instance."""

    host: str = "127.0.0.1"
    port: int = 8000
    seed: int = 0
    clock: Literal["real", "frozen"] = "real"
    frozen_epoch: int = DEFAULT_FROZEN_EPOCH
    scenario: str | None = None
    max_body_bytes: int = 32 * 1024 * 1024
    #: A scenario sent to ``PUT /__mockserver/scenario``: its size, and how long checking it
    #: may take (beyond: a 413, a 400), so that no upload can hold the server up for long.
    max_scenario_bytes: int = 8 * 1024 * 1024
    scenario_seconds: float = 10.0
    #: Per namespace: journal entries kept, and stored objects kept of each kind.
    journal_limit: int = 1000
    store_limit: int = 10_000
    #: Namespaces kept; past it the least recently used one is dropped (journal and all).
    namespace_limit: int = 1000
    #: Per namespace: the bytes of request and answer bodies its journal keeps (the oldest
    #: entries leave first past it).
    journal_bytes: int = 64 * 1024 * 1024
    #: Per namespace: about the bytes stored chat completions, and stored responses, may hold
    #: (each kind; the oldest leave first past it).
    store_bytes: int = 256 * 1024 * 1024
    #: Seconds a background response is kept when its request did not say ``store: true``
    #: (on the namespace's clock), as the API does for a zero-data-retention or modified
    #: abuse monitoring project (``None``: kept like any stored response, a plain project's).
    background_retention: int | None = None
    #: Seconds an Anthropic Message Batch takes to process (on the namespace's clock), its
    #: requests finishing evenly over them.
    batch_seconds: float = 1.0
    #: Seconds a client has to send a request's headers (from its first byte, or from the
    #: connection's opening), and then its body; past either it gets a 408 and is closed.
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    #: Answer a request asked again from a template of its first answer, and a new chat or
    #: Responses request outside the ASGI stack (same bytes, less work; ``false``: every
    #: request takes the full path).
    replay: bool = True
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "info"
    #: Per-namespace budgets; exceeding one gives a 429 (unset: headers only, not enforced).
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    #: Browser origins allowed to call the server (empty: ``*`` on loopback, none elsewhere).
    cors_origins: tuple[str, ...] = ()
    #: Required by the control plane when set (and to serve on a non-loopback address).
    admin_token: str | None = None
    #: When non-empty, ``/v1`` answers only requests bearing one of these keys.
    api_keys: tuple[str, ...] = ()
    #: Where ``serve`` writes what it served, at shutdown and on ``GET /__mockserver/report``:
    #: the JSON report, and the same as JUnit XML (``None``: not written).
    report: str | None = None
    report_junit: str | None = None
    #: Record & replay: the upstream recorded from (``…/v1``), and the key sent to it in place
    #: of the client's (unset: the client's own credentials go upstream).
    upstream_url: str | None = None
    upstream_key: str | None = None
    #: ``Host`` names the control plane answers besides loopback names and IP addresses
    #: (``.example.com``: that name and the names under it; ``*``: any, which is unsafe).
    allowed_hosts: tuple[str, ...] = ()
    #: Where the state lives: ``None``, this process's memory; ``redis://HOST:PORT/DB``, a
    #: Redis that any number of processes share; its keys start with ``state_prefix``.
    state_url: str | None = None
    state_prefix: str = "mockserver"

    def __post_init__(self) -> None:
        for name, check in _CHECKS.items():
            try:
                value = check(getattr(self, name))
            except _Invalid as exc:
                raise SettingsError(f"invalid setting {name!r}: {exc}", setting=name) from None
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        """Every setting, but the admin token as ``***`` and the state URL's password too (a
        repr ends up in tracebacks and test reports)."""
        shown = {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}
        if self.admin_token is not None:
            shown["admin_token"] = "***"
        if self.state_url is not None:
            shown["state_url"] = shown_state_url(self.state_url)
        return "Settings(" + ", ".join(f"{name}={value!r}" for name, value in shown.items()) + ")"

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        sources: Mapping[str, str] | None = None,
        **overrides: object,
    ) -> Settings:
        """Defaults, overridden by ``MOCKSERVER_<FIELD>`` variables, overridden by ``overrides``
        (``None`` values in ``overrides`` mean "not given"). A bad value is blamed on where it
        came from: its variable, or its entry in ``sources`` (a command-line flag, say)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        where: dict[str, str] = {}
        for name in _CHECKS:
            variable = ENV_PREFIX + name.upper()
            raw = env.get(variable)
            if raw is not None and raw != "":
                values[name], where[name] = raw, f"env {variable}"
        overrides = _with_token_file(env, values, dict(overrides), sources or {})
        for name, value in overrides.items():
            if value is not None:
                values[name] = value
                where.pop(name, None)
                if sources and name in sources:
                    where[name] = sources[name]
        unknown = sorted(set(values) - set(_CHECKS))
        if unknown:
            raise SettingsError(f"unknown setting {unknown[0]!r}")
        try:
            return cls(**values)
        except SettingsError as exc:
            if exc.setting not in where:
                raise
            name = exc.setting
            reason = str(exc).removeprefix(f"invalid setting {name!r}: ")
            raise SettingsError(
                f"invalid setting {name!r} ({where[name]}): {reason}", setting=name
            ) from None

    def replace(self, **changes: Any) -> Settings:
        """These settings with some fields changed (and checked)."""
        return dataclasses.replace(self, **changes)

    def make_clock(self) -> Clock:
        return FrozenClock(self.frozen_epoch) if self.clock == "frozen" else RealClock()

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/v1"


def read_token_file(path: str, *, where: str) -> str:
    """The secret a file holds (surrounding whitespace and the final newline dropped): a
    token kept off the command line, which every local user can read in ``/proc``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        why = exc.strerror or str(exc)
        raise SettingsError(
            f"cannot read the admin token file {path} ({where}): {why}", setting="admin_token"
        ) from None
    except UnicodeDecodeError:
        raise SettingsError(
            f"the admin token file {path} ({where}) is not UTF-8 text", setting="admin_token"
        ) from None
    token = text.strip()
    if not token:
        raise SettingsError(
            f"the admin token file {path} ({where}) is empty", setting="admin_token"
        )
    return token


def _with_token_file(
    env: Mapping[str, str],
    values: dict[str, Any],
    overrides: dict[str, Any],
    sources: Mapping[str, str],
) -> dict[str, Any]:
    """``overrides`` with ``admin_token_file`` (a flag) read into ``admin_token``; and
    ``MOCKSERVER_ADMIN_TOKEN_FILE`` read into ``values`` when no variable sets the token."""
    variable = ENV_PREFIX + "ADMIN_TOKEN_FILE"
    if "admin_token" not in values and env.get(variable):
        values["admin_token"] = read_token_file(env[variable], where=f"env {variable}")
    path = overrides.pop("admin_token_file", None)
    if path is None:
        return overrides
    flag = sources.get("admin_token_file", "admin_token_file")
    if overrides.get("admin_token") is not None:
        raise SettingsError(f"give the admin token or {flag}, not both", setting="admin_token")
    overrides["admin_token"] = read_token_file(str(path), where=flag)
    return overrides


#: Each field's check, which returns the value to keep (converted from a string if it came
#: from the environment).
_CHECKS: dict[str, Callable[[Any], Any]] = {
    "host": _text(),
    "port": _port,
    "seed": _integer(),
    "clock": _one_of("real", "frozen"),
    "frozen_epoch": _integer(),
    "scenario": _text(optional=True),
    "max_body_bytes": _integer(low=1),
    "max_scenario_bytes": _integer(low=1),
    "scenario_seconds": _seconds,
    "journal_limit": _integer(low=1),
    "store_limit": _integer(low=1),
    "namespace_limit": _integer(low=1),
    "journal_bytes": _integer(low=1),
    "store_bytes": _integer(low=1),
    "background_retention": _integer(low=1, optional=True),
    "batch_seconds": _seconds,
    "header_timeout": _seconds,
    "body_timeout": _seconds,
    "replay": _boolean,
    "log_level": _one_of("critical", "error", "warning", "info", "debug"),
    "requests_per_minute": _integer(low=1, optional=True),
    "tokens_per_minute": _integer(low=1, optional=True),
    "cors_origins": _texts,
    "admin_token": _text(optional=True),
    "api_keys": _texts,
    "report": _path,
    "report_junit": _path,
    "upstream_url": _text(optional=True),
    "upstream_key": _text(optional=True),
    "allowed_hosts": _texts,
    "state_url": _state_url,
    "state_prefix": _text(),
}
assert list(_CHECKS) == [f.name for f in dataclasses.fields(Settings)]
