"""JSON mode with the schema in a message: the schema is found and followed."""

from __future__ import annotations

import json
import random

import jsonschema

from mockserver.prompt import Message, OutputFormat, Prompt
from mockserver.reply.generate import Generator
from mockserver.reply.prompt_schema import schema_in_messages

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
    "required": ["name", "age"],
}


def json_mode(*messages: Message) -> Prompt:
    return Prompt(
        api="chat", model="m", messages=messages, output_format=OutputFormat(type="json_object")
    )


def test_a_schema_in_the_system_message_is_found_among_other_braces() -> None:
    system = (
        'Reply in json. {not json} An example: {"a": 1}. Match this json_schema:\n\n'
        + json.dumps(SCHEMA, indent=2)
        + "\n\nReturn an instance, not the schema."
    )
    found = schema_in_messages(json_mode(Message("system", system), Message("user", "Ada, 36")))
    assert found == SCHEMA


def test_no_schema_without_properties() -> None:
    assert schema_in_messages(json_mode(Message("user", 'json please: {"type": "object"}'))) is None


def test_json_mode_generates_json_valid_against_the_schema_in_the_prompt() -> None:
    prompt = json_mode(Message("user", f"Answer in JSON following {json.dumps(SCHEMA)}"))
    text = Generator().message_text(prompt, rng=random.Random(3))
    jsonschema.validate(json.loads(text), SCHEMA)


def test_json_mode_without_a_schema_still_answers_an_object() -> None:
    prompt = json_mode(Message("user", "Tell me a fact, in json."))
    assert set(json.loads(Generator().message_text(prompt, rng=random.Random(3)))) == {"answer"}
