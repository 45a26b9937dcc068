"""Pure rule selection: first matching rule wins; a miss explains every candidate.

Nothing here has state: hit counts come in as a mapping, and the caller commits them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from mockserver.errors import ScenarioError
from mockserver.prompt import Prompt
from mockserver.scenario.bounds import Deadline
from mockserver.scenario.regexes import REGEX_SECONDS, RegexTimeout, SearchBudget
from mockserver.scenario.terms import describe_text
from mockserver.values import value_class

if TYPE_CHECKING:  # read, never built here: start-up does not import the scenario models
    from mockserver.scenario.lookups import NumberMatch, TextMatch
    from mockserver.scenario.model import Reply, Rule, Scenario, ToolResultMatch, When

__all__ = ["Miss", "Selected", "check", "describe_request", "named_models", "names_model", "select"]


@value_class
class Selected:
    rule: Rule
    reply: Reply
    #: How many times the rule had matched before (its index in ``replies`` unless cycling).
    hits: int
    #: Did hit counts take part (a rule passed over as used up, or a reply that depends on
    #: the count)? If not, the same request is selected the same way every time.
    counted: bool = False
    #: Rules passed over for a regex that ran out of time (located, in the scenario's words).
    problems: tuple[str, ...] = ()

    @property
    def rule_id(self) -> str:
        assert self.rule.id is not None
        return self.rule.id

    @property
    def note(self) -> str | None:
        """What the journal says of how this rule was reached, if anything went wrong."""
        if not self.problems:
            return None
        return "\n".join([f"Rule '{self.rule_id}' matched after:", *self.problems])


@value_class
class Miss:
    """No rule matched; ``reasons`` pairs each rule id with why it did not."""

    scenario: str
    #: The request (described only if the miss is explained: most never are).
    prompt: Prompt
    reasons: tuple[tuple[str, str], ...]
    #: Was a rule passed over only because it was used up?
    counted: bool = False

    @property
    def request(self) -> str:
        return describe_request(self.prompt)

    def explain(self) -> str:
        head = f"No rule of scenario '{self.scenario}' matched {self.request}."
        if not self.reasons:
            return head + " The scenario has no rules."
        lines = [f"  - rule '{rule}': {reason}" for rule, reason in self.reasons]
        return "\n".join([head, *lines])


def describe_request(prompt: Prompt) -> str:
    """One line naming the request: API, model, last user text, tools."""
    parts = [
        f"{prompt.api} request (model {prompt.model!r}",
        f"last user message {describe_text(prompt.last_user_text)}",
    ]
    if prompt.tools:
        parts.append("tools " + ", ".join(t.name for t in prompt.tools))
    return ", ".join(parts) + ")"


def select(
    scenario: Scenario,
    prompt: Prompt,
    hits: Mapping[str, int],
    *,
    regex_seconds: float = REGEX_SECONDS,
) -> Selected | Miss:
    """The first rule that matches; its regex lookups share ``regex_seconds``."""
    reasons: list[tuple[str, str]] = []
    problems: list[str] = []
    counted = False
    deadline = SearchBudget(regex_seconds)
    for index, rule in enumerate(scenario.rules):
        assert rule.id is not None
        count = hits.get(rule.id, 0)
        try:
            reason = _not_for_embeddings(rule.when, prompt) or check(rule.when, prompt, deadline)
        except RegexTimeout as slow:  # not the same answer every time: never replayed
            reason, counted = _slow(slow, rule.id, index), True
            problems.append(reason)
        if reason is None:
            reason = _exhausted(rule, count)
            if reason is None:
                counted = counted or _counts(rule)
                reply = _nth_reply(rule, count)
                found = tuple(problems)
                return Selected(rule=rule, reply=reply, hits=count, counted=counted, problems=found)
            counted = True
        reasons.append((rule.id, reason))
    return Miss(scenario=scenario.name, prompt=prompt, reasons=tuple(reasons), counted=counted)


def _slow(slow: RegexTimeout, rule: str, index: int) -> str:
    from mockserver.scenario.problems import field_name  # pydantic: only when it is needed

    where = field_name(("rules", index, "when", *slow.path, "regex"))
    return ScenarioError(slow.explain(), rule=rule, field=where).located()


def _not_for_embeddings(when: When, prompt: Prompt) -> str | None:
    """Embeddings requests are answered only by the rules that ask for them: a chat rule's
    ``last_user`` would otherwise match (and use up) the documents a retriever embeds."""
    if prompt.api == "embeddings" and when.api != "embeddings":
        return "answers embeddings requests only with when: {api: embeddings}"
    return None


def _counts(rule: Rule) -> bool:
    """Does the rule's answer depend on how often it matched (a limit, or several replies)?"""
    return rule.times is not None or rule.after == "exhausted" or len(rule.sequence) > 1


def _exhausted(rule: Rule, count: int) -> str | None:
    if rule.times is not None and count >= rule.times:
        return f"already used {count} of {rule.times} times"
    if rule.after == "exhausted" and count >= len(rule.sequence):
        return f"all {len(rule.sequence)} replies already served"
    return None


def _nth_reply(rule: Rule, count: int) -> Reply:
    sequence = rule.sequence
    if count < len(sequence):
        return sequence[count]
    return sequence[count % len(sequence)] if rule.after == "cycle" else sequence[-1]


def check(when: When, prompt: Prompt, deadline: Deadline | None = None) -> str | None:
    """``None`` when every condition holds, else the first failing condition's explanation
    (``RegexTimeout`` if a regex lookup runs past ``deadline``)."""
    deadline = deadline or SearchBudget(REGEX_SECONDS)
    for name, test in _CHECKS:
        wanted = getattr(when, name)
        if wanted is not None:
            try:
                reason = test(wanted, prompt, deadline)
            except RegexTimeout as slow:
                slow.path.insert(0, "not" if name == "not_" else name)
                raise
            if reason is not None:
                return reason
    return None


_Test = Callable[[Any, Prompt, Deadline], str | None]


def _text(field: str, actual: Callable[[Prompt], str]) -> _Test:
    def test(wanted: TextMatch, prompt: Prompt, deadline: Deadline) -> str | None:
        value = actual(prompt)
        if wanted.test(value, deadline):
            return None
        return f"{field} {describe_text(value)} does not {wanted.describe()}"

    return test


def _equal(field: str, actual: Callable[[Prompt], Any]) -> _Test:
    def test(wanted: Any, prompt: Prompt, deadline: Deadline) -> str | None:
        value = actual(prompt)
        return None if value == wanted else f"{field} is {value!r}, not {wanted!r}"

    return test


def _system_text(prompt: Prompt) -> str:
    texts = [m.text for m in prompt.messages if m.role in ("system", "developer")]
    return "\n".join([prompt.instructions or "", *texts]).strip("\n")


def _any_message(wanted: TextMatch, prompt: Prompt, deadline: Deadline) -> str | None:
    if any(wanted.test(m.text, deadline) for m in prompt.messages):
        return None
    return f"no message does {wanted.describe()}"


def _tools_offered(wanted: list[str], prompt: Prompt, deadline: Deadline) -> str | None:
    offered = [t.name for t in prompt.tools]
    missing = [name for name in wanted if name not in offered]
    if not missing:
        return None
    return f"tool {missing[0]!r} not offered (offered: {', '.join(offered) or 'none'})"


def _tool_results(prompt: Prompt) -> Iterator[tuple[str, str, str]]:
    """``(name, call_id, content)`` of every tool result, naming it from its call."""
    names = {c.call_id: c.name for m in prompt.messages for c in m.tool_calls}
    for message in prompt.messages:
        if message.role == "tool":
            call_id = message.tool_call_id or ""
            yield names.get(call_id, message.name or ""), call_id, message.text


def _tool_result(
    wanted: ToolResultMatch | list[ToolResultMatch], prompt: Prompt, deadline: Deadline
) -> str | None:
    for one in wanted if isinstance(wanted, list) else [wanted]:
        reason = _one_tool_result(one, prompt, deadline)
        if reason is not None:
            return reason
    return None


def _one_tool_result(wanted: ToolResultMatch, prompt: Prompt, deadline: Deadline) -> str | None:
    results = list(_tool_results(prompt))
    for name, call_id, content in results:
        pairs = [(wanted.name, name), (wanted.call_id, call_id), (wanted.content, content)]
        if all(m is None or m.test(v, deadline) for m, v in pairs):
            return None
    if not results:
        return "no tool result in the conversation"
    seen = ", ".join(f"{n or '?'}({c})" for n, c, _ in results)
    return f"no tool result {_wanted(wanted)} (results: {seen})"


def _wanted(wanted: ToolResultMatch) -> str:
    """``with name equal 'get_weather' and content contain 'sunny'``: what was looked for."""
    parts = [
        f"{field} {match.describe()}"
        for field, match in (
            ("name", wanted.name),
            ("call_id", wanted.call_id),
            ("content", wanted.content),
        )
        if match is not None
    ]
    return "with " + " and ".join(parts) if parts else "at all"


def _turn(wanted: NumberMatch, prompt: Prompt, deadline: Deadline) -> str | None:
    turns = sum(1 for m in prompt.messages if m.role == "assistant")
    return None if wanted.test(turns) else f"turn is {turns}, should {wanted.describe()}"


def _response_format(wanted: Any, prompt: Prompt, deadline: Deadline) -> str | None:
    fmt = prompt.output_format
    if wanted.type is not None and fmt.type != wanted.type:
        return f"response_format is {fmt.type!r}, not {wanted.type!r}"
    if wanted.name is not None and not wanted.name.test(fmt.name or "", deadline):
        return f"response_format name {fmt.name!r} does not {wanted.name.describe()}"
    return None


def _mapping(field: str, actual: Callable[[Prompt], Mapping[str, str]]) -> _Test:
    def test(wanted: Mapping[str, TextMatch], prompt: Prompt, deadline: Deadline) -> str | None:
        values = actual(prompt)
        for key, match in wanted.items():
            if key not in values:
                return f"no {field} {key!r}"
            if not match.test(values[key], deadline):
                return f"{field}[{key!r}] {describe_text(values[key])} does not {match.describe()}"
        return None

    return test


_MISSING = object()


def _dig(params: Mapping[str, Any], path: str) -> Any:
    value: Any = params
    for part in path.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def _params(wanted: Mapping[str, Any], prompt: Prompt, deadline: Deadline) -> str | None:
    from mockserver.scenario.lookups import NumberMatch, TextMatch
    from mockserver.scenario.model import param_lookup

    for path, raw in wanted.items():
        value = _dig(prompt.params, path)
        if value is _MISSING:
            return f"parameter {path!r} is not set"
        lookup = param_lookup(raw)
        ok = (isinstance(value, str) or not isinstance(lookup, TextMatch)) and (
            not isinstance(lookup, NumberMatch) or isinstance(value, (int, float))
        )
        matched = ok and (
            lookup.test(value, deadline) if isinstance(lookup, TextMatch) else lookup.test(value)
        )
        if not matched:
            return f"parameter {path!r} is {value!r}, should {lookup.describe()}"
    return None


def _any(wanted: list[When], prompt: Prompt, deadline: Deadline) -> str | None:
    reasons = []
    for index, one in enumerate(wanted):
        try:
            reasons.append(check(one, prompt, deadline))
        except RegexTimeout as slow:
            slow.path.insert(0, index)
            raise
    if any(r is None for r in reasons):
        return None
    return "none of 'any' holds: " + "; ".join(f"({r})" for r in reasons)


def _not(wanted: When, prompt: Prompt, deadline: Deadline) -> str | None:
    return "the 'not' condition holds" if check(wanted, prompt, deadline) is None else None


_CHECKS: tuple[tuple[str, _Test], ...] = (
    ("api", _equal("api", lambda p: p.api)),
    ("provider", _equal("provider", lambda p: p.provider)),
    ("model", _text("model", lambda p: p.model)),
    ("stream", _equal("stream", lambda p: p.stream)),
    (
        "last_role",
        _equal("last message role", lambda p: p.last_message.role if p.last_message else None),
    ),
    ("last_user", _text("last user message", lambda p: p.last_user_text)),
    ("any_message", _any_message),
    ("system", _text("system text", _system_text)),
    ("tools_offered", _tools_offered),
    ("tool_choice", _equal("tool_choice", lambda p: p.tool_choice.mode)),
    ("tool_result", _tool_result),
    ("turn", _turn),
    ("response_format", _response_format),
    ("metadata", _mapping("metadata", lambda p: p.metadata)),
    ("headers", _mapping("header", lambda p: p.headers)),
    ("params", _params),
    ("any", _any),
    ("not_", _not),
)


def _models_of(when: When) -> Iterator[TextMatch]:
    """The ``model`` conditions of ``when``, and of each of its ``any`` alternatives."""
    if when.model is not None:
        yield when.model
    for alternative in when.any or ():
        yield from _models_of(alternative)


def names_model(scenario: Scenario, model: str) -> bool:
    """Does a rule of ``scenario`` ask for ``model`` by name (its ``model`` condition, or one
    of its ``any`` alternatives', holds for it)? What a family that refuses models it does
    not know (Ollama's) takes as known besides its own."""
    return any(match.test(model) for rule in scenario.rules for match in _models_of(rule.when))


def named_models(scenario: Scenario) -> list[str]:
    """The models ``scenario``'s rules name exactly (``model: {equals: …}``), in order."""
    found = (match.equals for rule in scenario.rules for match in _models_of(rule.when))
    return list(dict.fromkeys(name for name in found if isinstance(name, str)))
