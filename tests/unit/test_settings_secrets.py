"""The admin token from a file (kept off the command line) and the allowed Host names."""

from __future__ import annotations

from pathlib import Path

import pytest

from mockserver.cli import main
from mockserver.settings import Settings, SettingsError


def test_the_admin_token_file_flag_reads_the_token(tmp_path: Path) -> None:
    secret = tmp_path / "token"
    secret.write_text("s3cret-from-file\n", encoding="utf-8")
    settings = Settings.from_env({}, admin_token_file=str(secret))
    assert settings.admin_token == "s3cret-from-file"


def test_the_admin_token_file_variable_reads_the_token(tmp_path: Path) -> None:
    secret = tmp_path / "token"
    secret.write_text("  from-env-file  ", encoding="utf-8")
    settings = Settings.from_env({"MOCKSERVER_ADMIN_TOKEN_FILE": str(secret)})
    assert settings.admin_token == "from-env-file"


def test_the_token_variable_wins_over_the_token_file_variable(tmp_path: Path) -> None:
    secret = tmp_path / "token"
    secret.write_text("from-file", encoding="utf-8")
    env = {"MOCKSERVER_ADMIN_TOKEN_FILE": str(secret), "MOCKSERVER_ADMIN_TOKEN": "direct"}
    assert Settings.from_env(env).admin_token == "direct"


def test_the_token_file_flag_wins_over_the_environment(tmp_path: Path) -> None:
    secret = tmp_path / "token"
    secret.write_text("from-flag-file", encoding="utf-8")
    env = {"MOCKSERVER_ADMIN_TOKEN": "from-env"}
    assert Settings.from_env(env, admin_token_file=str(secret)).admin_token == "from-flag-file"


@pytest.mark.parametrize(
    ("content", "says"),
    [(None, "cannot read the admin token file"), (b"\n\n", "is empty"), (b"\xff", "not UTF-8")],
)
def test_an_unusable_token_file_is_named_with_its_flag(
    tmp_path: Path, content: bytes | None, says: str
) -> None:
    secret = tmp_path / "token"
    if content is not None:
        secret.write_bytes(content)
    sources = {"admin_token_file": "--admin-token-file"}
    with pytest.raises(SettingsError, match=says) as caught:
        Settings.from_env({}, sources=sources, admin_token_file=str(secret))
    assert str(secret) in str(caught.value)
    assert "--admin-token-file" in str(caught.value)


def test_a_token_and_a_token_file_together_are_refused(tmp_path: Path) -> None:
    secret = tmp_path / "token"
    secret.write_text("one", encoding="utf-8")
    with pytest.raises(SettingsError, match="not both"):
        Settings.from_env({}, admin_token="two", admin_token_file=str(secret))


def test_the_help_says_the_command_line_is_visible_to_local_users(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "/proc/PID/cmdline" in text
    assert "--admin-token-file PATH" in text


def test_allowed_hosts_come_from_the_environment_comma_separated() -> None:
    env = {"MOCKSERVER_ALLOWED_HOSTS": "mock.test, .dev.example"}
    assert Settings.from_env(env).allowed_hosts == ("mock.test", ".dev.example")


def test_serve_names_an_unreadable_token_file_and_its_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-token"
    assert main(["serve", "--port", "0", "--admin-token-file", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mockserver: error: cannot read the admin token file {missing}")
    assert "(--admin-token-file)" in err


def test_a_settings_repr_shows_neither_the_admin_token_nor_the_state_urls_password() -> None:
    settings = Settings(admin_token="tok-Zq9", state_url="redis://app:pw-Zq9@10.0.0.5:6379/0")
    shown = repr(settings)
    assert "tok-Zq9" not in shown
    assert "pw-Zq9" not in shown
    assert "admin_token='***'" in shown
    assert "state_url='redis://app:***@10.0.0.5:6379/0'" in shown
    assert "state_prefix='mockserver'" in shown  # the rest as it is
    assert repr(Settings()).startswith("Settings(host='127.0.0.1', port=8000, ")
