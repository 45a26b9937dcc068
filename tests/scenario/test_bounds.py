"""What reading a scenario or fixture may cost: bytes, characters, values, depth, digits, time.

Each problem is a located ScenarioError (file, line, column), never a traceback or a stall.
"""

from __future__ import annotations

import codecs
import itertools
import re
from pathlib import Path

import pytest
import yaml

from mockserver.errors import ScenarioError
from mockserver.scenario.bounds import NODE_LIMIT, Bounds, Deadline, decode_text
from mockserver.scenario.document import read_document
from mockserver.scenario.loader import load_file, parse_scenario

GOOD = "name: s\nrules:\n  - id: hi\n    reply: {text: Hello}\n"


def _many_rules(count: int) -> str:
    rules = "".join(
        f"  - {{id: r{i}, when: {{last_user: x{i}}}, reply: {{text: t}}}}\n" for i in range(count)
    )
    return "rules:\n" + rules


def test_a_file_over_the_value_limit_without_aliases_does_not_speak_of_aliases() -> None:
    with pytest.raises(
        ScenarioError, match=f"too many values in one file \\(more than {NODE_LIMIT}\\)"
    ) as info:
        parse_scenario(_many_rules(NODE_LIMIT // 5))
    assert "alias" not in str(info.value)
    assert info.value.line is not None
    assert info.value.line > 1
    assert info.value.column is not None


def test_an_alias_bomb_speaks_of_aliases_where_it_goes_off() -> None:
    bomb = "a0: &a0 [lol]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9)
    )
    with pytest.raises(ScenarioError, match="once YAML aliases are expanded") as info:
        parse_scenario(bomb)
    assert (info.value.line, info.value.column) != (None, None)


def test_values_nested_too_deep_are_a_located_error() -> None:
    text = "rules:\n  - reply:\n      json: " + "[" * 150 + "]" * 150 + "\n"
    with pytest.raises(ScenarioError, match="nested more than 100 deep") as info:
        parse_scenario(text)
    assert info.value.line == 3


def test_a_seed_of_5000_digits_is_a_located_error() -> None:
    with pytest.raises(ScenarioError, match="a number of 5000 digits") as info:
        parse_scenario("name: s\nseed: " + "9" * 5000 + "\n")
    assert (info.value.line, info.value.column, info.value.field) == (2, 7, "seed")


@pytest.mark.parametrize(
    "field",
    [
        "rules: [{times: NUMBER, reply: {text: t}}]",
        "rules: [{reply: {usage: {prompt_tokens: NUMBER}}}]",
        "rate_limits: {requests_per_minute: NUMBER}",
        "rules: [{reply: {fault: {disconnect_after: NUMBER}}}]",
    ],
)
def test_no_integer_in_a_scenario_may_have_thousands_of_digits(field: str) -> None:
    with pytest.raises(ScenarioError, match="digits"):
        parse_scenario(field.replace("NUMBER", "1" * 4400))


@pytest.mark.parametrize(
    "field",
    [
        "rules: [{reply: {error: {preset: rate_limited, retry_after: .inf}}}]",
        "rules: [{reply: {latency: {tokens_per_second: .inf}}}]",
        "rules: [{when: {turn: {gte: .nan}}, reply: {text: t}}]",
    ],
)
def test_no_number_in_a_scenario_may_be_infinite(field: str) -> None:
    with pytest.raises(ScenarioError, match="finite number"):
        parse_scenario(field)


def test_a_latin1_file_is_located_at_its_first_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"name: s\nrules:\n  - reply: {text: caf\xe9}\n")
    with pytest.raises(ScenarioError, match=r"not UTF-8 text: byte 0xe9 .*Latin-1") as info:
        load_file(path)
    assert (info.value.file, info.value.line, info.value.column) == (str(path), 3, 22)


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_utf16_or_utf32_file_is_named_for_what_it_is(tmp_path: Path, codec: str) -> None:
    path = tmp_path / "wide.yaml"
    path.write_bytes(GOOD.encode(codec))
    with pytest.raises(ScenarioError, match=r"UTF-(16|32)") as info:
        load_file(path)
    assert info.value.line == 1
    assert info.value.column is not None


def test_a_utf8_byte_order_mark_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(codecs.BOM_UTF8 + GOOD.encode())
    assert load_file(path).name == "s"


def test_a_nul_byte_has_a_line_and_column() -> None:
    with pytest.raises(ScenarioError, match="control character U\\+0000") as info:
        parse_scenario("name: s\nrules:\n  - reply: {text: a\x00b}\n")
    assert (info.value.line, info.value.column) == (3, 20)


def test_decoding_says_where_the_first_bad_byte_is() -> None:
    with pytest.raises(ScenarioError) as info:
        decode_text(b"a: \xc3\xa9\nb: ok\nc: x\xff", source="f")
    assert (info.value.line, info.value.column) == (3, 5)


def test_the_deadline_stops_reading_where_it_is() -> None:
    ticks = itertools.count()
    deadline = Deadline(10.0, clock=lambda: float(next(ticks) * 5))  # 5 s a look
    with pytest.raises(ScenarioError, match="took longer than 10 s") as info:
        read_document(_many_rules(2000), source="<PUT body>", empty="e", deadline=deadline)
    assert info.value.line is not None
    assert info.value.line > 1


@pytest.mark.parametrize(
    "text",
    [
        "base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  y: 3\n",
        "m:\n  <<: [{a: 1}, {a: 2, b: 3}]\n  c: 4\n",
        "a: [&x 1, *x]\nb: 2024-01-01\nc: !!str 12\nd: 0x1F\ne: 1_000\nf: .inf\ng: ~\nh: yes\n",
        "? k\n: v\nn: null\nf: 1.5e3\nbin: !!binary aGk=\nt: 2001-12-14t21:59:43.10-05:00\n",
        "- 1\n- two\n- [3, {four: 4}]\n",
        "'just text'",
    ],
)
def test_the_reader_reads_what_safe_load_reads(text: str) -> None:
    assert read_document(text, source="s", empty="e")[0] == yaml.safe_load(text)


def test_the_reader_reads_every_shipped_scenario_as_safe_load_does() -> None:
    root = Path(__file__).resolve().parents[2]
    for path in [*root.glob("scenarios/*.yaml"), *root.glob("fixtures/*")]:
        text = path.read_text(encoding="utf-8")
        assert read_document(text, source=str(path), empty="e")[0] == yaml.safe_load(text), path


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("a: 1\n---\nb: 2\n", "a second YAML document"),
        ("a: *nowhere\n", "names no anchor"),
        ("a: !custom x\n", "tag !custom"),
        ("? [a, b]\n: c\n", "a key that is a list"),
        ("a: {<<: [1, 2]}\n", "'<<' merges a mapping"),
        ("a: 1\na: 2\n", "duplicate key 'a'"),
    ],
)
def test_what_safe_load_refuses_or_passes_over_is_a_located_error(text: str, says: str) -> None:
    with pytest.raises(ScenarioError, match=re.escape(says)) as info:
        read_document(text, source="s", empty="e")
    assert info.value.line is not None


def test_a_fixture_alias_bomb_fails_fast_located_in_the_fixture(tmp_path: Path) -> None:
    bomb = "json:\n  a0: &a0 [lol]\n" + "".join(
        f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9)
    )
    (tmp_path / "bomb.yaml").write_text(bomb, encoding="utf-8")
    scenario = tmp_path / "s.yaml"
    scenario.write_text("rules:\n  - reply: {fixture: bomb.yaml}\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="once YAML aliases are expanded") as info:
        load_file(scenario)
    assert info.value.line == 2  # the scenario's `fixture:`, and the fixture's own place
    assert re.search(r"bomb\.yaml:\d+:\d+", info.value.message)


def test_a_deeply_nested_fixture_is_a_located_error(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text('{"json": ' + "[" * 500 + "]" * 500 + "}", encoding="utf-8")
    scenario = tmp_path / "s.yaml"
    scenario.write_text("rules:\n  - reply: {fixture: deep.json}\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="nested more than 100 deep") as info:
        load_file(scenario)
    assert info.value.line == 2
    assert re.search(r"deep\.json:1:\d+", info.value.message)


def test_a_latin1_fixture_is_located_in_the_fixture(tmp_path: Path) -> None:
    (tmp_path / "f.yaml").write_bytes(b"text: caf\xe9\n")
    scenario = tmp_path / "s.yaml"
    scenario.write_text("rules:\n  - reply: {fixture: f.yaml}\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"f\.yaml:1:10: not UTF-8 text"):
        load_file(scenario)


def test_bounds_for_data_that_is_not_yaml() -> None:
    from mockserver.scenario.loader import scenario_from_data

    deep: object = "x"
    for _ in range(150):
        deep = [deep]
    with pytest.raises(ScenarioError, match="nested more than 100 deep"):
        scenario_from_data({"rules": [{"reply": {"json": deep}}]}, bounds=Bounds())


@pytest.mark.parametrize(
    "text",
    [
        "base: &b {x: 1}\nc:\n  <<: *b\n  y: [1, 2.5, yes, ~, 2024-01-01]\n",
        "rules:\n  - id: r\n    reply: {text: 'caf\u00e9'}\n",
    ],
)
def test_without_libyaml_the_pure_python_parser_reads_the_same(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    from mockserver.scenario import document

    fast = read_document(text, source="s", empty="e")
    monkeypatch.setattr(document, "LOADER", yaml.SafeLoader)
    assert read_document(text, source="s", empty="e") == fast
    with pytest.raises(ScenarioError) as info:
        read_document(text + "bad: [\n", source="s", empty="e")
    assert info.value.line is not None
