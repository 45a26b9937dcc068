"""Records (precompiled scenarios) read like the models they stand for, and are frozen."""

from __future__ import annotations

import copy
import pickle
from typing import Any, get_args

import pytest
from pydantic import ValidationError

from mockserver.scenario import compiled, terms
from mockserver.scenario.behaviour import ModerationSpec
from mockserver.scenario.loader import parse_scenario
from mockserver.scenario.model import Rule, Scenario
from mockserver.scenario.records import Record, materialize

SCENARIO = """
name: records
latency: {ttft: 0.5}
rules:
  - id: weather
    when:
      model: {startswith: gpt-4}
      last_user: {icontains: weather}
      params: {temperature: {lte: 1}}
    replies:
      - tool_calls: [{name: get_weather, arguments: {city: Paris}, kind: function}]
      - text: "It is sunny in {{tool_result}}."
  - when: {turn: {gte: 2}}
    reply: {error: {preset: rate_limited, retry_after: 2}}
"""


@pytest.fixture
def model() -> Scenario:
    return parse_scenario(SCENARIO)


@pytest.fixture
def record(model: Scenario) -> Any:
    built = compiled._decode(compiled._encode(model))
    assert isinstance(built, Record)
    return built


def test_fields_are_attributes_even_where_a_name_could_clash(record: Any) -> None:
    weather = record.rules[0]
    assert isinstance(weather, Record)
    assert weather.id == "weather"
    # ``model`` and ``kind`` are fields here, not anything of the record's own.
    assert isinstance(weather.when.model, Record)
    assert weather.when.model.startswith == "gpt-4"
    assert weather.replies[0].tool_calls[0].kind == "function"
    assert weather.when.params == {"temperature": {"lte": 1}}
    assert record.rules[1].id == "rule-2"
    assert record.latency.ttft == 0.5


def test_methods_and_properties_come_from_the_model(record: Any) -> None:
    weather = record.rules[0]
    assert len(weather.sequence) == 2
    assert weather.replies[1].kinds() == ["text"]
    assert weather.when.last_user.test("Weather in Paris?")
    assert not weather.when.last_user.test("Hello")
    assert weather.when.model.describe() == "start with 'gpt-4'"
    assert record.latency.paced
    assert record.rule("weather") == weather


def test_pydantic_api_comes_from_the_model(record: Any, model: Scenario) -> None:
    assert record.model_dump(mode="json") == model.model_dump(mode="json")
    assert record.rules[0].replies[0].tool_calls[0].model_fields_set == {
        "name",
        "arguments",
        "kind",
    }
    renamed = record.model_copy(update={"name": "other"})
    assert isinstance(renamed, Scenario)
    assert renamed.name == "other"
    assert record.name == "records"


def test_a_record_equals_its_model_and_materializes_to_it(record: Any, model: Scenario) -> None:
    assert record == model
    assert (repr(record), str(record), dict(record)) == (repr(model), str(model), dict(model))
    assert model == materialize(record)
    assert type(materialize(record)) is Scenario
    assert materialize([record.rules[0], {"k": record.latency}, 3]) == [
        model.rules[0],
        {"k": model.latency},
        3,
    ]
    assert record != parse_scenario(SCENARIO.replace("ttft: 0.5", "ttft: 0.6"))


def test_a_record_is_frozen(record: Any) -> None:
    with pytest.raises(AttributeError, match="Scenario is frozen"):
        record.name = "changed"
    with pytest.raises(AttributeError, match="Rule is frozen"):
        del record.rules[0].id
    assert record.name == "records"


def test_a_record_copies_and_pickles(record: Any, model: Scenario) -> None:
    for twin in (copy.copy(record), copy.deepcopy(record), pickle.loads(pickle.dumps(record))):
        assert isinstance(twin, Record)
        assert twin == model
        assert twin.rules[0].when.model.startswith == "gpt-4"


def test_models_are_built_from_a_records_parts_once_materialized(
    record: Any, model: Scenario
) -> None:
    """pydantic validates a model field from a model or a mapping, not from a record."""
    with pytest.raises(ValidationError):
        Scenario(name="parts", rules=record.rules)
    built = Scenario(name="parts", rules=materialize(record.rules))
    assert built.rules == model.rules
    assert isinstance(built.rules[0], Rule)


def test_unknown_attributes_are_an_attribute_error(record: Any) -> None:
    with pytest.raises(AttributeError):
        _ = record.no_such_field
    assert not hasattr(record, "__no_such_dunder__")


def test_the_moderation_categories_are_the_apis() -> None:
    """One list serves the scenario models (as a type) and the serving path; it is the set of
    categories the official SDK's moderation model has."""
    from openai.types.moderation import Categories

    assert get_args(get_args(ModerationSpec.model_fields["input"].annotation)[0]) == (
        terms.CATEGORIES
    )
    official = {field.alias or name for name, field in Categories.model_fields.items()}
    assert set(terms.CATEGORIES) == official
    assert len(terms.CATEGORIES) == len(official)
