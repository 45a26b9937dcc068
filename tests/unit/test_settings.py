"""Settings: defaults, environment strings converted, and every bad value named with its
variable."""

from __future__ import annotations

import pytest

from mockserver.errors import SettingsError
from mockserver.settings import Settings


def test_defaults() -> None:
    settings = Settings()
    assert (settings.host, settings.port, settings.seed, settings.clock) == (
        "127.0.0.1",
        8000,
        0,
        "real",
    )
    assert settings.replay is True
    assert settings.api_keys == settings.cors_origins == ()
    assert settings.requests_per_minute is None
    assert settings.base_url == "http://127.0.0.1:8000/v1"


def test_environment_strings_are_converted() -> None:
    settings = Settings.from_env(
        {
            "MOCKSERVER_PORT": "9001",
            "MOCKSERVER_SEED": "-7",
            "MOCKSERVER_CLOCK": "frozen",
            "MOCKSERVER_REPLAY": "false",
            "MOCKSERVER_REQUESTS_PER_MINUTE": "60",
            "MOCKSERVER_API_KEYS": "sk-a, sk-b sk-c",
            "MOCKSERVER_SCENARIO": "",  # empty: not given
            "UNRELATED": "x",
        }
    )
    assert (settings.port, settings.seed, settings.clock) == (9001, -7, "frozen")
    assert settings.replay is False
    assert settings.requests_per_minute == 60
    assert settings.api_keys == ("sk-a", "sk-b", "sk-c")
    assert settings.scenario is None


@pytest.mark.parametrize("text", ["1", "true", "Yes", "on", "t", "y"])
def test_true_from_the_environment(text: str) -> None:
    assert Settings.from_env({"MOCKSERVER_REPLAY": text}).replay is True


@pytest.mark.parametrize("text", ["0", "false", "No", "off", "f", "n"])
def test_false_from_the_environment(text: str) -> None:
    assert Settings.from_env({"MOCKSERVER_REPLAY": text}).replay is False


def test_overrides_win_over_the_environment_and_none_means_not_given() -> None:
    env = {"MOCKSERVER_PORT": "9001", "MOCKSERVER_SEED": "5"}
    settings = Settings.from_env(env, port=0, seed=None)
    assert (settings.port, settings.seed) == (0, 5)


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("MOCKSERVER_PORT", "eighty", "valid integer"),
        ("MOCKSERVER_PORT", "70000", "less than or equal to 65535"),
        ("MOCKSERVER_PORT", "-1", "greater than or equal to 0"),
        ("MOCKSERVER_JOURNAL_LIMIT", "0", "greater than or equal to 1"),
        ("MOCKSERVER_CLOCK", "fast", "one of 'real', 'frozen'"),
        ("MOCKSERVER_REPLAY", "maybe", "valid boolean"),
        ("MOCKSERVER_LOG_LEVEL", "loud", "one of 'critical'"),
        ("MOCKSERVER_TOKENS_PER_MINUTE", "0", "greater than or equal to 1"),
    ],
)
def test_a_bad_environment_value_names_the_variable(variable: str, value: str, says: str) -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_env({variable: value})
    message = str(caught.value)
    assert f"(env {variable})" in message
    assert says in message


def test_a_bad_value_is_blamed_on_the_flag_it_came_from() -> None:
    flags = {"port": "--port", "requests_per_minute": "--rpm"}
    with pytest.raises(SettingsError) as caught:
        Settings.from_env({"MOCKSERVER_PORT": "x"}, sources=flags, port=70000)
    assert str(caught.value) == (
        "invalid setting 'port' (--port): Input should be less than or equal to 65535"
    )
    with pytest.raises(SettingsError, match=r"'requests_per_minute' \(--rpm\): .* 1"):
        Settings.from_env({}, sources=flags, requests_per_minute=0)
    with pytest.raises(SettingsError) as caught:
        Settings.from_env({}, port=-1)  # no source given: the setting alone
    assert str(caught.value).startswith("invalid setting 'port': ")


def test_bad_values_given_directly_are_refused_too() -> None:
    with pytest.raises(SettingsError, match="'port'"):
        Settings(port=True)
    with pytest.raises(SettingsError, match="'api_keys'"):
        Settings(api_keys=(1, 2))  # type: ignore[arg-type]
    with pytest.raises(SettingsError, match="'host'"):
        Settings(host=None)  # type: ignore[arg-type]
    with pytest.raises(SettingsError, match="unknown setting 'colour'"):
        Settings.from_env({}, colour="blue")


def test_replace_checks_the_new_values() -> None:
    settings = Settings(seed=3)
    assert settings.replace(port=0) == Settings(seed=3, port=0)
    with pytest.raises(SettingsError, match="'port'"):
        settings.replace(port=-5)


def test_settings_are_frozen_and_hashable() -> None:
    settings = Settings()
    with pytest.raises(AttributeError):
        settings.port = 1  # type: ignore[misc]
    assert hash(settings) == hash(Settings())
