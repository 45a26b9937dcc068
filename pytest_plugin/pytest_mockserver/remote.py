"""``--mockserver-url``: the fixture on an already running ``mockserver serve``.

Each test still gets a namespace of its own (its API key); what the in-process handle does to
the engine, this one asks of the control API under ``/__mockserver/`` (the scenario, the
journal, the hit counters, reset). Scenarios are resolved here, as in-process (files, YAML
text, names of ``--mockserver-scenarios`` and built-ins), and sent as YAML.

What the control API cannot do, this handle does not pretend to: no in-process clients, no
server tracebacks (a bug of the server is a 500 in the journal, and in the server's log),
and an inline rule's count restarts when a later ``use()`` serves another scenario.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

from mockserver.scenario.loader import parse_scenario, scenario_to_yaml
from mockserver.scenario.model import Scenario
from mockserver.scenario.records import materialize
from mockserver.store import JournalEntry
from pytest_mockserver.calls import Call
from pytest_mockserver.handle import MockServer
from pytest_mockserver.options import MarkerOptions
from pytest_mockserver.session import MockServerSession

__all__ = ["ControlError", "RemoteMockServer", "RemoteSession"]

#: The header and variable of the server's admin token (``mockserver serve --admin-token``).
ADMIN_HEADER = "x-mockserver-admin-token"
ADMIN_TOKEN_ENV = "MOCKSERVER_ADMIN_TOKEN"
TIMEOUT = 30.0
JOURNAL_LIMIT = 10_000


class ControlError(RuntimeError):
    """The control API refused or could not be reached."""


class RemoteSession(MockServerSession):
    """The session of ``--mockserver-url``: scenarios are resolved here, the server is there."""

    remote = True

    def __init__(self, url: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.remote_url = url
        self._default: Scenario | None = None

    @property
    def started(self) -> bool:
        return True

    @property
    def url(self) -> str:
        return self.remote_url

    @property
    def base_url(self) -> str:
        return self.remote_url + "/v1"

    def server(self) -> Any:
        raise RuntimeError(f"mockserver runs at {self.remote_url} (--mockserver-url), not here")

    def control(
        self, method: str, path: str, *, key: str, body: bytes | None = None, yaml: bool = False
    ) -> Any:
        """``method /__mockserver/<path>`` in the namespace ``key``; the JSON answer."""
        headers = {"Authorization": f"Bearer {key}", "Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/yaml" if yaml else "application/json"
        token = os.environ.get(ADMIN_TOKEN_ENV)
        if token:
            headers[ADMIN_HEADER] = token
        address = f"{self.remote_url}/__mockserver/{path}"
        request = urllib.request.Request(address, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            try:
                message = json.loads(raw)["error"]["message"]
            except (ValueError, KeyError, TypeError):
                message = raw.decode("utf-8", "replace")[:500]
            raise ControlError(
                f"mockserver at {self.remote_url}: {method} /__mockserver/{path} → "
                f"{exc.code}: {message}"
            ) from None
        except OSError as exc:
            raise ControlError(
                f"mockserver at {self.remote_url} cannot be reached ({exc}); is "
                "'mockserver serve' running there (--mockserver-url)?"
            ) from None

    def default_scenario(self, key: str) -> Scenario:
        """The server's own default scenario (what a namespace that chose none is served)."""
        if self._default is None:
            body = self.control("GET", "scenario", key=key + "-default")
            self._default = parse_scenario(body["yaml"], source=f"{self.remote_url} default")
        return self._default


class RemoteMockServer(MockServer):
    """:class:`MockServer` over the control API: the same methods, one test's namespace."""

    session: RemoteSession

    def __init__(
        self,
        session: RemoteSession,
        *,
        api_key: str,
        options: MarkerOptions | None = None,
        test_dir: Path | None = None,
    ) -> None:
        self._seed: int | None = None
        #: Hit counts of the servings a later ``use()`` or ``on()`` replaced, per scenario.
        self._replaced_hits: dict[str, Counter[str]] = {}
        self._put = False
        # A namespace left over from an earlier run starts afresh.
        session.control("POST", "reset", key=api_key, body=b"{}")
        super().__init__(session, api_key=api_key, options=options, test_dir=test_dir)

    def __repr__(self) -> str:
        return f"<MockServer api_key={self.api_key!r} at {self.session.remote_url}>"

    def _control(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.session.control(method, path, key=self.api_key, **kwargs)

    def _in_process(self, wanted: bool | None, options: dict[str, Any]) -> bool:
        if wanted:
            raise TypeError(
                "in_process=True needs the server in this process, not --mockserver-url"
            )
        super()._in_process(False, options)
        return False

    # -- what the server answers ---------------------------------------------------------

    @property
    def scenario(self) -> Scenario:
        body = self._control("GET", "scenario")
        return parse_scenario(body["yaml"], source=f"{self.session.remote_url} scenario")

    @property
    def seed(self) -> int:
        return int(self._control("GET", "scenario")["seed"])

    @seed.setter
    def seed(self, value: int) -> None:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"mockserver.seed takes an int, got {value!r}")
        self._seed = value
        self._install()

    def reset(self) -> None:
        self._control("POST", "reset", body=b"{}")
        self._base = None
        self._seed = None
        self._put = False
        self._builders.clear()
        self._installed.clear()
        self._replaced_hits.clear()
        self._apply_options()

    # -- what happened -------------------------------------------------------------------

    def _journal(self) -> list[JournalEntry]:
        body = self._control("GET", f"calls?limit={JOURNAL_LIMIT}")
        fields = set(JournalEntry.__dataclass_fields__)
        return [JournalEntry(**{k: v for k, v in e.items() if k in fields}) for e in body["data"]]

    @property
    def calls(self) -> tuple[Call, ...]:
        return tuple(Call.from_entry(entry) for entry in self._journal())

    def _current_hits(self) -> tuple[str, dict[str, int]]:
        body = self._control("GET", "scenario")
        return body["name"], {r["id"]: r["hits"] for r in body["rules"] if r["id"] is not None}

    @property
    def hits(self) -> dict[str, int]:
        return self._current_hits()[1]

    # -- the fixture's side --------------------------------------------------------------

    def _internal_errors(self) -> list[str]:
        return []  # an external server's tracebacks stay in its own log

    def close(self) -> None:
        from pytest_mockserver.handle import _close

        for client, is_async in reversed(self._clients):
            _close(client, is_async=is_async)
        self._clients.clear()
        self._control("POST", "reset", body=b"{}")

    # -- internals -----------------------------------------------------------------------

    def _test_hits(self) -> dict[str, Counter[str]]:
        hits = {name: Counter(counts) for name, counts in self._replaced_hits.items()}
        if self._put:
            name, current = self._current_hits()
            hits.setdefault(name, Counter()).update(current)
        return hits

    def _apply_options(self) -> None:
        options = self.options
        if options.scenario is not None:
            self._base = self.session.resolve(options.scenario, near=self._test_dir)
        if options.seed is not None:
            self._seed = options.seed
        if self._base is not None or options.strict is not None or self._seed is not None:
            self._install(fresh=True)

    def _effective(self) -> Scenario:
        inline = [b.rule() for b in self._builders if b.complete]
        base = self._base or materialize(self.session.default_scenario(self.api_key))
        name = base.name if self._base is not None or not inline else "inline"
        strict = self.options.strict
        fallback = base.fallback if strict is None else ("strict" if strict else "generate")
        return Scenario(
            name=name,
            description=base.description,
            seed=self._seed if self._seed is not None else base.seed,
            fallback=fallback,
            rules=[*inline, *materialize(base.rules)],
        )

    def _install(self, *, fresh: bool = False) -> None:
        scenario = self._effective()
        self._installed.pop(scenario.name, None)
        self._installed[scenario.name] = scenario
        if self._put:  # what the serving being replaced matched still counts
            name, current = self._current_hits()
            self._replaced_hits.setdefault(name, Counter()).update(current)
        self._control("PUT", "scenario", body=scenario_to_yaml(scenario).encode(), yaml=True)
        self._put = True
