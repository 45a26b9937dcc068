"""Which reply answers a turn: a one-off, a rule, chaos in its place, or the fallback."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mockserver import ids
from mockserver.engine.turn import ONE_OFF
from mockserver.errors import NoMatchError
from mockserver.families import FAMILIES
from mockserver.prompt import Prompt
from mockserver.scenario.matcher import Miss, select
from mockserver.store import Namespace
from mockserver.values import value_class

if TYPE_CHECKING:  # scenarios are read here, never built: start-up does not import their models
    from mockserver.scenario.model import ChaosSpec, Scenario
    from mockserver.scenario.model import Reply as ScriptedReply

__all__ = ["Choice", "choose", "refuses_a_miss", "with_chaos"]


@value_class
class Choice:
    """What answers: a scripted reply (``None``: the generator), and why."""

    spec: ScriptedReply | None
    rule: str | None
    miss: str | None = None
    chaos: ChaosSpec | None = None
    #: Did rule hit counts take part in the choice (see ``matcher.Selected.counted``)?
    counted: bool = False
    #: The rule's hit count once it answers (not if chaos answers in its place).
    hit: int | None = None


def refuses_a_miss(scenario: Scenario, prompt: Prompt) -> bool:
    """Does ``scenario`` refuse ``prompt`` when no rule matches it? ``strict``: always;
    ``strict_turns`` (a recording's cassette): a model's turn, not a call mockserver answers
    itself (embeddings, moderations)."""
    if scenario.fallback == "strict_turns":
        family = next((f for f in FAMILIES if f.api == prompt.api), None)
        return family is None or family.turn
    return scenario.fallback == "strict"


def choose(space: Namespace, scenario: Scenario, prompt: Prompt) -> Choice:
    """What answers ``prompt`` in ``space`` (held by the caller): a one-off queued for it, the
    first rule that matches, or the fallback (a strict miss raises ``NoMatchError``)."""
    if space.pending:
        return Choice(space.pending.popleft(), ONE_OFF)
    strict = refuses_a_miss(scenario, prompt)
    if not scenario.rules and not strict:  # nothing to match or explain
        return Choice(None, None, None, scenario.chaos, False)
    hits = space.hits_of(scenario.name)
    chosen = select(scenario, prompt, hits)
    if isinstance(chosen, Miss):
        if strict:
            error = NoMatchError(chosen.explain())
            error.miss = error.message
            raise error
        miss = chosen.explain() if scenario.rules else None
        return Choice(None, None, miss, scenario.chaos, chosen.counted)
    chaos = chosen.rule.chaos or scenario.chaos
    return Choice(
        chosen.reply, chosen.rule_id, chosen.note, chaos, chosen.counted, hit=chosen.hits + 1
    )


def with_chaos(choice: Choice, prompt: Prompt, *, seed: int, counter: int) -> ScriptedReply | None:
    """Maybe swap the reply for a chaos one: decided from seed, request and its number,
    so a run fails the same requests every time (and a retry may pass)."""
    chaos = choice.chaos
    if chaos is None or choice.rule == ONE_OFF:
        return choice.spec
    rng = ids.derive_rng(seed, "chaos", choice.rule, prompt.fingerprint, counter)
    if rng.random() >= chaos.probability:
        return choice.spec
    return rng.choice(chaos.replies)
