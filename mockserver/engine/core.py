"""What every API family shares: choose the reply for a prompt, allocate ids, journal.

The engine is the only place that combines the store, the clock, ids, scenarios and the
generator; it knows nothing of HTTP (the routes adapt it), so it is testable without a server.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mockserver.engine.choice import Choice, choose, refuses_a_miss, with_chaos
from mockserver.engine.headers import AnswerHeaders
from mockserver.engine.prompt_cache import with_prompt_cache
from mockserver.engine.ratelimit import NOMINAL_RPM, NOMINAL_TPM, Bucket, Budgets
from mockserver.engine.refusals import journal_error
from mockserver.engine.shelf import ScenarioShelf
from mockserver.engine.turn import (
    CHAOS,
    DEFAULT_SCENARIO,
    ONE_OFF,
    SCENARIO_HEADER,
    Decision,
    Journaled,
    Turn,
    recorded_answer,
    summarize,
)
from mockserver.errors import (
    APIError,
)
from mockserver.families import ErrorShape, errors_of
from mockserver.faults import error_for
from mockserver.prompt import Prompt
from mockserver.render.errors import SHAPES, Standing
from mockserver.reply.generate import Generator, compose, count_prompt_tokens
from mockserver.reply.model import Reply, Usage
from mockserver.reply.scripted import scripted_content
from mockserver.scenario.library import builtin, load_ref
from mockserver.settings import Settings
from mockserver.store import JournalEntry, Namespace, Store
from mockserver.store.choose import open_store

if TYPE_CHECKING:  # scenarios are read here, never built: start-up does not import their models
    from mockserver.scenario.model import Reply as ScriptedReply
    from mockserver.scenario.model import Scenario

__all__ = ["INTERNAL_ERRORS_KEPT", "REPLY_CACHE_SIZE", "Engine", "refuses_a_miss", "shape_of_api"]


#: Tracebacks of internal errors kept (a server that fails every request must not grow).
INTERNAL_ERRORS_KEPT = 100
#: Generated replies kept for identical requests (a load test repeats one request).
REPLY_CACHE_SIZE = 256


def shape_of_api(api: str, provider: str = "openai") -> ErrorShape:
    """The shape the answers of an API's turns sent to ``provider`` are written in (its
    family's row's)."""
    return errors_of(api, provider)


class Engine(ScenarioShelf, AnswerHeaders):
    """The turns of every family, over the store (the scenarios: :class:`ScenarioShelf`; the
    headers of the answers: :class:`AnswerHeaders`)."""

    def __init__(
        self,
        settings: Settings,
        *,
        store: Store | None = None,
        generator: Generator | None = None,
        scenarios: list[Scenario] | None = None,
    ) -> None:
        self.settings = settings
        self.clock = settings.make_clock()
        self.store: Store = store or open_store(settings)
        self.store.serve_scenarios(self._scenario_named)
        self.generator = generator or Generator()
        #: Tracebacks of our own bugs (the latest ``INTERNAL_ERRORS_KEPT``), for the pytest
        #: plugin to fail the test with, and how many there were in all.
        self.internal_errors: deque[str] = deque(maxlen=INTERNAL_ERRORS_KEPT)
        self.internal_error_count = 0
        #: Generated replies by what determines them (see ``_generated``), oldest first.
        self._replies: dict[tuple[object, ...], tuple[Reply, int]] = {}
        if scenarios is None:
            scenarios = load_ref(settings.scenario) if settings.scenario else []
        self.library: dict[str, Scenario] = {}
        self.default: Scenario = builtin(DEFAULT_SCENARIO)
        self.replace_scenarios(scenarios)

    def internal_error(self, traceback: str) -> None:
        """Keep the traceback of a bug of ours."""
        self.internal_errors.append(traceback)
        self.internal_error_count += 1

    def internal_errors_since(self, count: int) -> list[str]:
        """The tracebacks kept of the bugs after the first ``count``."""
        new = self.internal_error_count - count
        return list(self.internal_errors)[-new:] if new > 0 else []

    def turn(self, space: Namespace, prompt: Prompt, *, journal: Journaled | None = None) -> Turn:
        """One request's turn in ``space``, its namespace, which the caller holds (the work of
        a ``store.transact``): match → reply → commit (its number, rule hit, budgets and, with
        ``journal``, its journal entry, whose answer is attached once encoded:
        :meth:`answered`). A scripted error or a strict miss is committed and journaled the
        same way, then raised."""
        shape = shape_of_api(prompt.api, prompt.provider)
        scenario = self.active_scenario(space, prompt)
        seed = self.seed_for(space, scenario)
        budgets = self._budgets(space, scenario)
        prompt_tokens = count_prompt_tokens(prompt)
        now = self.now_in(space)
        budgets.charge(tokens=prompt_tokens, now=now, model=prompt.model, shape=SHAPES[shape])
        counter = space.next_counter()
        try:
            choice = choose(space, scenario, prompt)
        except APIError as missed:  # a strict miss: the request still counts
            self._refuse(space, budgets, missed, prompt=prompt, journal=journal, shape=shape)
            raise
        spec = with_chaos(choice, prompt, seed=seed, counter=counter)
        rule = choice.rule or "default"
        answered_by = choice.rule
        hit = None
        if spec is not choice.spec:  # chaos answered: the rule neither matched nor moved on
            answered_by = CHAOS
        elif choice.hit is not None:
            hit = (scenario.name, rule, choice.hit)
        if spec is not None and spec.error is not None:
            error = error_for(spec.error)
            error.rule, error.miss = answered_by, choice.miss
            error.facts.setdefault("model", prompt.model)
            if error.status == 429:  # a 429 says where the budgets stand, as the API's do
                error.headers = {**budgets.headers(SHAPES[shape]), **error.headers}
            self._refuse(
                space, budgets, error, prompt=prompt, journal=journal, hit=hit, shape=shape
            )
            raise error
        if spec is not None and spec.recorded is not None:  # record & replay: as recorded
            answer = recorded_answer(spec.recorded)
            answer.rule = answered_by
            self._refuse(space, budgets, answer, prompt=prompt, journal=journal, hit=hit)
            raise answer
        if spec is None:
            reply, turn_seed = self._generated(
                prompt, seed=seed, rule=rule, prompt_tokens=prompt_tokens
            )
        else:
            rng = self.rng_for(prompt, seed=seed, rule=rule)
            content = scripted_content(spec, prompt, rng=rng, generator=self.generator, rule=rule)
            reply = compose(prompt, content, rng=rng, prompt_tokens=prompt_tokens)
            turn_seed = rng.getrandbits(64)
        if prompt.cache_prefixes:
            reply = with_prompt_cache(self.store, space, prompt, reply, now=now)
        entry = None
        if journal is not None:
            entry = self._entry(prompt, journal, status=200, rule=answered_by, miss=choice.miss)
        completion_tokens = reply.usage.completion_tokens
        self._commit(space, budgets, completion_tokens, entry, hit=hit)
        decision = None
        if self._settled(choice, spec, scenario, budgets) and not prompt.cache_prefixes:
            decision = Decision(
                space.name,
                space.incarnation,
                scenario,
                prompt.headers.get(SCENARIO_HEADER),
                seed,
                choice.rule,
                prompt_tokens,
                completion_tokens,
                prompt.model,
            )
        return Turn(
            reply,
            counter,
            turn_seed,
            scenario.name,
            answered_by,
            choice.miss,
            latency=(spec.latency if spec else None) or scenario.latency,
            fault=spec.fault if spec else None,
            moderation=spec.moderation if spec else None,
            headers=budgets.headers(SHAPES[shape]),
            decision=decision,
            entry=entry,
            shape=shape,
        )

    def prepare(self, space: Namespace, prompt: Prompt, *, journal: Journaled | None) -> Turn:
        """A request that asks for no output (the Responses API's ``generate: false``: state
        made ready for what continues it), in ``space`` (held by the caller): its number, its
        budgets and its journal entry, as a turn's; no rule is matched, and no scripted reply
        is used up."""
        scenario = self.active_scenario(space, prompt)
        budgets = self._budgets(space, scenario)
        prompt_tokens = count_prompt_tokens(prompt)
        budgets.charge(tokens=prompt_tokens, now=self.now_in(space), model=prompt.model)
        counter = space.next_counter()
        entry = None
        if journal is not None:
            entry = self._entry(prompt, journal, status=200, rule=None, miss=None)
        self._commit(space, budgets, 0, entry)
        reply = Reply(usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=0))
        seed = self.seed_for(space, scenario)
        return Turn(reply, counter, seed, scenario.name, headers=budgets.headers(), entry=entry)

    @staticmethod
    def _commit(
        space: Namespace,
        budgets: Budgets,
        completion_tokens: int,
        entry: JournalEntry | None,
        *,
        hit: tuple[str, str, int] | None = None,
        announce: bool = True,
    ) -> None:
        """What a request changes in its namespace (held by the caller) once it is decided,
        for a full turn and a replayed one alike: its rule's hit count, the tokens its reply
        spent, and its journal entry (its number was taken, and its budgets charged, before
        it was decided: chaos and the rate limits depend on them)."""
        if hit is not None:
            scenario, rule, count = hit
            space.hits_of(scenario)[rule] = count
        if completion_tokens:
            budgets.spend(completion_tokens)
        if entry is not None:
            space.record(entry, announce=announce)

    @staticmethod
    def _entry(
        prompt: Prompt, journal: Journaled, *, status: int, rule: str | None, miss: str | None
    ) -> JournalEntry:
        return JournalEntry(
            seq=0,
            method="POST",
            path=journal.path,
            status=status,
            api=prompt.api,
            model=prompt.model,
            stream=prompt.stream,
            request=journal.request,
            rule=rule,
            miss=miss,
            request_headers=journal.headers,
        )

    def _refuse(
        self,
        space: Namespace,
        budgets: Budgets,
        error: APIError,
        *,
        prompt: Prompt,
        journal: Journaled | None,
        hit: tuple[str, str, int] | None = None,
        shape: ErrorShape = "openai",
    ) -> None:
        """Commit a turn that ends in ``error``, and journal it with ``journal`` (``error`` then
        says it was journaled, so the HTTP layer does not journal it again) as the family of
        ``shape`` answers it, the headers of its answer with it (its request id is numbered
        after the entry)."""
        entry = None
        if journal is not None:
            entry = self._entry(
                prompt, journal, status=error.status, rule=error.rule, miss=error.miss
            )
            entry.response = error.body()
            entry.summary = f"{error.type}: {error.message}"
            error.journaled = entry
        self._commit(space, budgets, 0, entry, hit=hit)
        if entry is not None:
            seed = self.settings.seed
            journal_error(entry, error, seed=seed, namespace=space.name, shape=shape)

    def refuse(self, space: Namespace, entry: JournalEntry, error: APIError, *, shape: str) -> None:
        """Journal in ``space`` (held by the caller) a request refused before any turn
        (``entry``, which says what it asked), its answer ``error`` as the family of ``shape``
        answers it (with the headers it is sent with)."""
        space.record(entry)
        journal_error(entry, error, seed=self.settings.seed, namespace=space.name, shape=shape)

    @staticmethod
    def answered(
        turn: Turn,
        *,
        response: Any,
        reply: Reply | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Attach the encoded answer (and the summary of what it said: ``reply``, if the
        answer says something other than the turn's reply), and the headers it is sent with,
        to the turn's journal entry (kept as they are: the answer's own dict, not a copy)."""
        if turn.entry is not None:
            turn.entry.response = response
            turn.entry.summary = summarize(reply or turn.reply)
            if headers is not None:
                turn.entry.response_headers = (
                    headers if isinstance(headers, dict) else dict(headers)
                )

    @staticmethod
    def _settled(
        choice: Choice, spec: ScriptedReply | None, scenario: Scenario, budgets: Budgets
    ) -> bool:
        """Would this request be decided the same way next time? Only if nothing that counts
        (one-offs, chaos, rule hit counts, enforced budgets) or paces took part."""
        if budgets.enforced or choice.rule == ONE_OFF or choice.chaos is not None:
            return False
        if choice.counted or scenario.latency is not None:
            return False
        return spec is None or not (spec.latency or spec.fault or spec.moderation)

    def replay(
        self, space: Namespace, decision: Decision, entry: JournalEntry
    ) -> tuple[int, Standing] | None:
        """Commit another request decided as ``decision`` was (its number, rule hit, budgets and
        journal ``entry``, whose answer the caller attaches), if ``space`` (``decision``'s
        namespace, held by the caller) is still in the state it was decided in; ``None`` if
        not. Returns the request's number and where its rate limits stand."""
        if space.incarnation != decision.incarnation or space.pending:
            return None
        scenario = self._scenario_named(decision.by_header) if decision.by_header else None
        if scenario is None:
            scenario = self.default if space.scenario is None else space.scenario
        if scenario is not decision.scenario or self.seed_for(space, scenario) != decision.seed:
            return None
        budgets = self._budgets(space, scenario)
        if budgets.enforced:
            return None
        budgets.charge(tokens=decision.prompt_tokens, now=self.now_in(space), model=decision.model)
        counter = space.next_counter()
        hit = None
        if decision.rule is not None:
            count = space.hits_of(scenario.name).get(decision.rule, 0) + 1
            hit = (scenario.name, decision.rule, count)
        self._commit(space, budgets, decision.completion_tokens, entry, hit=hit, announce=False)
        return counter, budgets.standing()

    def _generated(
        self, prompt: Prompt, *, seed: int, rule: str, prompt_tokens: int
    ) -> tuple[Reply, int]:
        """The generator's reply and the turn's seed: a pure function of the seed, the rule and
        the request, so the same request asked again is answered from a small cache."""
        key = (
            seed,
            rule,
            prompt.fingerprint,
            prompt.stop,
            prompt.max_output_tokens,
            prompt.logprobs,
            prompt.top_logprobs,
        )
        known = self._replies.get(key)
        if known is None:
            rng = self.rng_for(prompt, seed=seed, rule=rule)
            content = self.generator.content(prompt, rng=rng)
            reply = compose(prompt, content, rng=rng, prompt_tokens=prompt_tokens)
            known = self._replies[key] = (reply, rng.getrandbits(64))
            if len(self._replies) > REPLY_CACHE_SIZE:
                del self._replies[next(iter(self._replies))]
        return known

    def now(self) -> int:
        return int(self.clock.now())

    def now_in(self, space: Namespace) -> float:
        """The namespace's clock: the server's, plus what a test advanced it by."""
        return self.clock.now() + space.clock_offset

    def _budgets(self, space: Namespace, scenario: Scenario) -> Budgets:
        limits = scenario.rate_limits
        rpm = (limits and limits.requests_per_minute) or self.settings.requests_per_minute
        tpm = (limits and limits.tokens_per_minute) or self.settings.tokens_per_minute
        wanted = (rpm or NOMINAL_RPM, tpm or NOMINAL_TPM, bool(rpm or tpm))
        budgets = space.budgets
        if isinstance(budgets, tuple):  # as a shared store reads them (``Budgets.as_json``)
            budgets = space.budgets = Budgets.from_json(budgets)
        if (
            not isinstance(budgets, Budgets)
            or (budgets.requests.limit, budgets.tokens.limit, budgets.enforced) != wanted
        ):
            now = self.now_in(space)
            budgets = Budgets(Bucket.full(wanted[0], now), Bucket.full(wanted[1], now), wanted[2])
            space.budgets = budgets
        return budgets
