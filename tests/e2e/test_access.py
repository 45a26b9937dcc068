"""The admin token and API keys, against real servers (and the real CLI for start-up checks)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import httpx
import openai
import pytest

from mockserver.cli import main
from mockserver.errors import SettingsError
from mockserver.http.access import ADMIN_HEADER, NO_API_KEY, check_exposure
from mockserver.http.app import create_app
from mockserver.http.hosts import is_loopback_host
from mockserver.http.server import BackgroundServer
from mockserver.settings import Settings
from tests.conftest import start_server

TOKEN = "s3cret-admin"
CHAT = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]}


@pytest.fixture(scope="module")
def guarded() -> Iterator[BackgroundServer]:
    server = start_server(admin_token=TOKEN, api_keys=("sk-alpha-123456", "sk-beta-654321"))
    yield server
    server.stop()


def test_the_control_plane_needs_the_admin_token(guarded: BackgroundServer) -> None:
    url = guarded.url + "/__mockserver/health"
    missing = httpx.get(url)
    assert missing.status_code == 401
    assert missing.json()["error"]["code"] == "mockserver_admin_token_required"
    assert "no admin token" in missing.json()["error"]["message"]
    wrong = httpx.get(url, headers={ADMIN_HEADER: "guess"})
    assert wrong.status_code == 401
    assert "a wrong admin token" in wrong.json()["error"]["message"]
    assert httpx.get(url, headers={ADMIN_HEADER: TOKEN}).json()["status"] == "ok"


def test_the_token_guards_every_control_endpoint(guarded: BackgroundServer) -> None:
    for method, path in [
        ("GET", "/"),
        ("GET", "/events"),
        ("GET", "/calls"),
        ("PUT", "/scenario"),
        ("POST", "/next"),
        ("POST", "/reset"),
    ]:
        response = httpx.request(method, guarded.url + "/__mockserver" + path)
        assert response.status_code == 401, path


def test_the_inspector_trades_its_token_for_a_cookie(guarded: BackgroundServer) -> None:
    page = guarded.url + "/__mockserver/"
    asked = httpx.get(page, headers={"accept": "text/html"})
    assert asked.status_code == 401
    assert "?token=" in asked.text
    assert httpx.get(page + "?token=guess").status_code == 401
    with httpx.Client() as browser:
        entered = browser.get(page + f"?token={TOKEN}")
        assert entered.status_code == 303
        assert entered.headers["location"] == "/__mockserver/"
        cookie = entered.headers["set-cookie"].lower()
        assert "httponly" in cookie
        assert "samesite=strict" in cookie
        assert "path=/__mockserver" in cookie
        assert browser.get(page).status_code == 200
        assert browser.get(guarded.url + "/__mockserver/namespaces").status_code == 200


def test_the_api_refuses_a_request_without_a_key(guarded: BackgroundServer) -> None:
    response = httpx.post(guarded.base_url + "/chat/completions", json=CHAT)
    assert response.status_code == 401
    assert response.json() == {
        "error": {
            "message": NO_API_KEY,
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    }
    assert NO_API_KEY.startswith("You didn't provide an API key.")


def test_the_api_refuses_a_wrong_key_like_the_real_one(guarded: BackgroundServer) -> None:
    with (
        openai.OpenAI(base_url=guarded.base_url, api_key="sk-wrong-key-9876", max_retries=0) as c,
        pytest.raises(openai.AuthenticationError) as info,
    ):
        c.chat.completions.create(**CHAT)  # type: ignore[call-overload]
    assert info.value.status_code == 401
    assert info.value.code == "invalid_api_key"
    assert info.value.message.startswith("Error code: 401")
    body = info.value.body
    assert isinstance(body, dict)
    assert body["message"] == (
        "Incorrect API key provided: sk-**********9876. You can find your API key at "
        "https://platform.openai.com/account/api-keys."
    )


def test_a_configured_key_is_served(guarded: BackgroundServer) -> None:
    for key in ("sk-alpha-123456", "sk-beta-654321"):
        with openai.OpenAI(base_url=guarded.base_url, api_key=key, max_retries=0) as client:
            assert client.models.list().data


def test_a_preflight_needs_no_key(guarded: BackgroundServer) -> None:
    response = httpx.options(
        guarded.base_url + "/chat/completions",
        headers={"origin": "http://localhost:3000", "access-control-request-method": "POST"},
    )
    assert response.status_code == 204


def test_without_a_token_the_control_plane_is_open_on_loopback(server: BackgroundServer) -> None:
    assert httpx.get(server.url + "/__mockserver/health").status_code == 200


def test_refuses_to_start_off_loopback_without_a_token() -> None:
    with pytest.raises(SettingsError, match="--admin-token TOKEN"):
        create_app(Settings(host="0.0.0.0"))
    check_exposure(Settings(host="0.0.0.0", admin_token="t"))
    check_exposure(Settings(host="::1"))


def test_the_cli_refuses_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--host", "0.0.0.0", "--port", "0"]) == 2
    error = capsys.readouterr().err
    assert "refusing to listen on 0.0.0.0" in error
    assert "MOCKSERVER_ADMIN_TOKEN" in error


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.1", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("example.com", False),
    ],
)
def test_which_hosts_are_loopback(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


def test_keys_and_token_come_from_the_environment() -> None:
    settings = Settings.from_env(
        {"MOCKSERVER_API_KEYS": "sk-a,sk-b  sk-c", "MOCKSERVER_ADMIN_TOKEN": "tok"}
    )
    assert settings.api_keys == ("sk-a", "sk-b", "sk-c")
    assert settings.admin_token == "tok"


def test_the_cli_flags_configure_a_running_server() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "mockserver", "serve", "--port", "0", "--log-level", "warning",
         "--api-key", "sk-one", "--api-key", "sk-two", "--admin-token", TOKEN,
         "--cors-origin", "https://app.test"],
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        banner = [process.stdout.readline() for _ in range(3)]
        base_url = banner[0].split()[3]
        assert banner[2].strip().endswith("/__mockserver/?token=YOUR_ADMIN_TOKEN")
        chat = base_url + "/chat/completions"
        assert httpx.post(chat, json=CHAT, headers={"authorization": "Bearer sk-two"}).is_success
        assert (
            httpx.post(chat, json=CHAT, headers={"authorization": "Bearer sk-x"}).status_code == 401
        )
        control = base_url.removesuffix("/v1") + "/__mockserver/health"
        assert httpx.get(control).status_code == 401
        assert httpx.get(control, headers={ADMIN_HEADER: TOKEN}).status_code == 200
        listed = httpx.get(
            base_url + "/models",
            headers={"origin": "https://app.test", "authorization": "Bearer sk-one"},
        )
        assert listed.headers["access-control-allow-origin"] == "https://app.test"
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()
