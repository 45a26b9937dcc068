"""The ``mockserver`` fixture's value: one test's namespace on the session's server."""

from __future__ import annotations

import asyncio
import difflib
from collections import Counter
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from mockserver.errors import ScenarioError
from mockserver.scenario.model import Scenario
from mockserver.scenario.records import materialize
from mockserver.store import JournalEntry, Namespace, operations
from pytest_mockserver import verdict
from pytest_mockserver.builder import RuleBuilder, when_from_keywords
from pytest_mockserver.calls import Call
from pytest_mockserver.clients import ClientMakers
from pytest_mockserver.options import MarkerOptions
from pytest_mockserver.session import MockServerSession, ScenarioRef

__all__ = ["MockServer", "open_handle"]

#: Names other mocking tools use for what the handle calls otherwise.
_MEANT = {
    "url": ["base_url"],
    "api_base": ["base_url"],
    "openai_client": ["client"],
    "claude_client": ["anthropic_client"],
    "genai_client": ["gemini_client"],
    "google_client": ["gemini_client"],
    "ollama": ["ollama_client"],
    "async_ollama": ["async_ollama_client"],
    "boto3_client": ["bedrock_client"],
    "requests": ["calls"],
    "journal": ["calls"],
    "history": ["calls"],
    "expect": ["on"],
    "when": ["on"],
}


class MockServer(ClientMakers):
    """This test's own namespace: its scenario, rule counters, journal and stored objects.

    Made by the ``mockserver`` fixture; the fixture checks the verdict and drops the
    namespace at teardown. Where to send requests, and the clients that send them, are
    :class:`~pytest_mockserver.clients.ClientMakers`'s.
    """

    def __init__(
        self,
        session: MockServerSession,
        *,
        api_key: str,
        options: MarkerOptions | None = None,
        test_dir: Path | None = None,
    ) -> None:
        self.session = session
        #: The bearer token that selects this test's namespace on the server.
        self.api_key = api_key
        self.options = options or MarkerOptions()
        self._test_dir = test_dir
        self._engine = session.engine
        self._errors_before = self._engine.internal_error_count
        self._base: Scenario | None = None
        self._builders: list[RuleBuilder] = []
        #: Every scenario served to this test (the latest of each name), for the verdict.
        self._installed: dict[str, Scenario] = {}
        #: Rule hits of earlier servings of a scenario, which serving it afresh restarted.
        self._earlier_hits: dict[str, Counter[str]] = {}
        #: Clients to close at teardown, each with whether it is async.
        self._clients: list[tuple[Any, bool]] = []
        self._apply_options()

    def __repr__(self) -> str:
        return f"<MockServer api_key={self.api_key!r}>"

    def __getattr__(self, name: str) -> Any:
        """Only for a name the handle does not have: an error that says what was meant
        (pytest's report leaves out Python's own "did you mean" line)."""
        if name.startswith("_"):
            raise AttributeError(name)
        public = [each for each in dir(type(self)) if not each.startswith("_")]
        meant = _MEANT.get(name) or difflib.get_close_matches(name, public, n=1)
        hint = f"; did you mean .{meant[0]}?" if meant else ""
        raise AttributeError(
            f"'MockServer' object has no attribute {name!r}{hint} (what a test uses: "
            ".client() or .async_client(), .azure_client(), .gemini_client(), "
            ".bedrock_client(), .base_url with "
            ".headers, "
            ".on(...).reply(...), "
            ".use(scenario), .calls, .hits)"
        )

    # -- what the server answers ---------------------------------------------------------

    def use(self, scenario: ScenarioRef) -> Scenario:
        """Serve this scenario to this test: a Scenario, a mapping, YAML text, a file path or a
        scenario name. Rules written with :meth:`on` stay in front of it.

        A scenario that cannot be loaded raises :class:`ScenarioError`, whose message says
        where the problem is."""
        __tracebackhide__ = True
        try:
            self._base = self.session.resolve(scenario, near=self._test_dir)
        except ScenarioError as exc:
            # The message locates the problem; the loader's frames would only bury it.
            raise exc.with_traceback(None) from None
        self._install(fresh=True)
        return self._base

    def on(self, *, id: str | None = None, **when: Any) -> RuleBuilder:
        """A rule for requests matching ``when`` (``last_user_contains="weather"``, ``model=``,
        ``tools_offered=``, …); give it a reply with ``.reply()``, ``.replies()`` or ``.fail()``.
        Rules are tried in the order written, before the scenario's own."""
        rule_id = id or f"inline-{len(self._builders) + 1}"
        if any(b.id == rule_id for b in self._builders):
            raise ValueError(f"a rule with id {rule_id!r} already exists in this test")
        label = "on(" + ", ".join(f"{k}={v!r}" for k, v in when.items()) + ")"
        builder = RuleBuilder(
            when_from_keywords(when), rule_id=rule_id, label=label, on_change=self._install
        )
        self._builders.append(builder)
        return builder

    @property
    def scenario(self) -> Scenario:
        """The scenario this test's requests are matched against."""
        with self._view() as space:
            return self._engine.active_scenario(space)

    @property
    def seed(self) -> int:
        """The seed of this test's generated replies (settable)."""
        with self._view() as space:
            return self._engine.seed_for(space, self._engine.active_scenario(space))

    @seed.setter
    def seed(self, value: int) -> None:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"mockserver.seed takes an int, got {value!r}")
        operations.set_seed(self._engine.store, self.api_key, value)

    def reset(self) -> None:
        """Back to how the test started: journal, counters, stored objects, rules and scenario."""
        self._engine.store.reset(self.api_key)
        self._base = None
        self._builders.clear()
        self._installed.clear()
        self._earlier_hits.clear()
        self._apply_options()

    # -- what happened -------------------------------------------------------------------

    @property
    def calls(self) -> tuple[Call, ...]:
        """Every request of this test so far, oldest first."""
        return tuple(
            Call.from_entry(entry) for entry in operations.journal(self._engine.store, self.api_key)
        )

    @property
    def hits(self) -> dict[str, int]:
        """How many times each rule of the current scenario has matched."""
        scenario = self.scenario
        counts = operations.rule_hits(self._engine.store, self.api_key).get(scenario.name, {})
        return {r.id: counts.get(r.id, 0) for r in scenario.rules if r.id is not None}

    # -- the fixture's side --------------------------------------------------------------

    def verdict(self, *, check_unused: bool = True) -> str | None:
        """Why the test should fail, or ``None``: server bugs, strict misses, unused rules."""
        journal = self._journal()
        sections = [
            verdict.internal_errors(self._internal_errors()),
            verdict.incomplete_rules([b.label for b in self._builders if b.forgotten]),
            verdict.scenario_faults(journal),
        ]
        if self.options.assert_all_matched:
            sections.append(verdict.unexpected_requests(journal))
        if self.options.assert_all_used and check_unused:
            labels = {b.id: b.label for b in self._builders}
            scenarios = list(self._installed.values()) or [self.scenario]
            sections.append(verdict.unused_rules(scenarios, self._test_hits(), labels=labels))
        found = [s for s in sections if s is not None]
        return "\n".join(found) if found else None

    def _journal(self) -> list[JournalEntry]:
        """The test's journal, oldest first."""
        return operations.journal(self._engine.store, self.api_key)

    def _internal_errors(self) -> list[str]:
        """The server's tracebacks since the test began."""
        return self._engine.internal_errors_since(self._errors_before)

    def close(self) -> None:
        """Close the clients this handle made and drop the namespace."""
        for client, is_async in reversed(self._clients):
            _close(client, is_async=is_async)
        self._clients.clear()
        self._engine.store.reset(self.api_key)

    # -- internals -----------------------------------------------------------------------

    def _view(self) -> AbstractContextManager[Namespace]:
        return self._engine.store.view(self.api_key)

    def _test_hits(self) -> dict[str, Counter[str]]:
        """Rule hits per scenario name over the whole test, earlier servings included."""
        counted = operations.rule_hits(self._engine.store, self.api_key)
        hits = {name: Counter(counts) for name, counts in counted.items()}
        for name, earlier in self._earlier_hits.items():
            hits.setdefault(name, Counter()).update(earlier)
        return hits

    def _apply_options(self) -> None:
        options = self.options
        if options.scenario is not None:
            self._base = self.session.resolve(options.scenario, near=self._test_dir)
        if options.seed is not None:
            operations.set_seed(self._engine.store, self.api_key, options.seed)
        if self._base is not None or options.strict is not None:
            self._install(fresh=True)

    def _effective(self) -> Scenario:
        inline = [b.rule() for b in self._builders if b.complete]
        # The server's default may be a record (scenario/records.py): a test gets a model.
        base = self._base or materialize(self._engine.default)
        name = base.name if self._base is not None or not inline else "inline"
        strict = self.options.strict
        fallback = base.fallback if strict is None else ("strict" if strict else "generate")
        if not inline and name == base.name and fallback == base.fallback:
            return base
        return Scenario(
            name=name,
            description=base.description,
            seed=base.seed,
            fallback=fallback,
            rules=[*inline, *materialize(base.rules)],
        )

    def _install(self, *, fresh: bool = False) -> None:
        scenario = self._effective()
        self._installed.pop(scenario.name, None)  # the latest served comes last
        self._installed[scenario.name] = scenario
        inline = {builder.id for builder in self._builders if builder.id is not None}
        # Rules written with on() stay in front of every scenario: their counts (times, the
        # place in their replies) go on from one scenario to the next.
        earlier = operations.switch_scenario(
            self._engine.store, self.api_key, scenario, restart=fresh, carry=inline
        )
        # Served afresh, its own counters restart, but what they matched before still counts
        # towards the verdict (assert_all_used).
        own = {rule: n for rule, n in earlier.items() if rule not in inline}
        if fresh:
            self._earlier_hits.setdefault(scenario.name, Counter()).update(own)


def open_handle(
    session: MockServerSession,
    *,
    nodeid: str,
    options: MarkerOptions | None,
    test_dir: Path | None,
    api_key: str | None = None,
) -> MockServer:
    """A handle for the test ``nodeid``; a scenario that cannot be loaded fails the test."""
    kind: type[MockServer] = MockServer
    if session.remote:  # --mockserver-url
        from pytest_mockserver.remote import RemoteMockServer

        kind = RemoteMockServer
    try:
        session.engine  # noqa: B018 - loads --mockserver-scenarios
        key = api_key or session.new_key(nodeid)
        return kind(session, api_key=key, options=options, test_dir=test_dir)
    except ScenarioError as exc:
        where = (
            "@pytest.mark.mockserver(scenario=...)"
            if session.engine_ready
            else session.scenarios_from
        )
        problem = f"mockserver: {where}: {exc}"
    pytest.fail(problem, pytrace=False)


def _close(client: Any, *, is_async: bool) -> None:
    """Close a client the handle made; an async one on a private event loop (the test's may be
    closed by now; no pooled connection outlives a request, so nothing there is left open)."""
    if not is_async:
        client.close()
        return
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(client.close())
        finally:
            loop.close()
