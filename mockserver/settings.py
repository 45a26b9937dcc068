"""Typed configuration: defaults, then ``MOCKSERVER_*`` environment variables, then CLI flags.

This is the only module that reads the environment, and it reads it only when asked
(:meth:`Settings.from_env`), never at import time.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from mockserver.errors import MockServerError
from mockserver.ids import DEFAULT_FROZEN_EPOCH, Clock, FrozenClock, RealClock

__all__ = ["Settings", "SettingsError"]

ENV_PREFIX = "MOCKSERVER_"


class SettingsError(MockServerError):
    """A configuration value that cannot be used."""


class Settings(BaseModel):
    """Everything that configures one server instance."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    seed: int = 0
    clock: Literal["real", "frozen"] = "real"
    frozen_epoch: int = DEFAULT_FROZEN_EPOCH
    scenario: str | None = None
    max_body_bytes: int = Field(default=32 * 1024 * 1024, gt=0)
    #: Per namespace: journal entries kept, and stored objects kept of each kind.
    journal_limit: int = Field(default=1000, gt=0)
    store_limit: int = Field(default=10_000, gt=0)
    #: Namespaces kept; past it the least recently used one is dropped (journal and all).
    namespace_limit: int = Field(default=1000, gt=0)
    #: Answer a request asked again from a template of its first answer (same bytes, less
    #: work; ``false``: every request takes the full path).
    replay: bool = True
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "info"
    #: Per-namespace budgets; exceeding one gives a 429 (unset: headers only, not enforced).
    requests_per_minute: int | None = Field(default=None, ge=1)
    tokens_per_minute: int | None = Field(default=None, ge=1)
    #: Browser origins allowed to call the server (empty: ``*`` on loopback, none elsewhere).
    cors_origins: tuple[str, ...] = ()
    #: Required by the control plane when set (and to serve on a non-loopback address).
    admin_token: str | None = None
    #: When non-empty, ``/v1`` answers only requests bearing one of these keys.
    api_keys: tuple[str, ...] = ()

    @field_validator("cors_origins", "api_keys", mode="before")
    @classmethod
    def _split_list(cls, value: object) -> object:
        """``MOCKSERVER_API_KEYS=a,b`` (comma or whitespace separated) from the environment."""
        if isinstance(value, str):
            return tuple(part for part in value.replace(",", " ").split() if part)
        return value

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Defaults, overridden by ``MOCKSERVER_<FIELD>`` variables, overridden by ``overrides``
        (``None`` values in ``overrides`` mean "not given")."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for name in cls.model_fields:
            raw = env.get(ENV_PREFIX + name.upper())
            if raw is not None and raw != "":
                values[name] = raw
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"])
            raise SettingsError(
                f"invalid setting {field!r} (env {ENV_PREFIX}{field.upper()}): {first['msg']}"
            ) from None

    def make_clock(self) -> Clock:
        return FrozenClock(self.frozen_epoch) if self.clock == "frozen" else RealClock()

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/v1"
