"""The network guard: a test that uses mockserver and connects beyond loopback fails, with a
message naming the host and the fix.

The runs that try to leave run inside a network namespace of their own (``unshare -n``):
only its loopback interface is up, holding 127.0.0.1 and a global address, 10.99.0.1, that
the test listens on itself. So nothing can leave this machine even if the guard were broken:
a connection to 10.99.0.1 reaches the test's own listener, and one to any other address finds
no route.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable

import pytest

from pytest_mockserver.guard import FIX, is_local

Run = Callable[..., pytest.RunResult]

OWN_ADDRESS = "10.99.0.1"  # a non-loopback address, on the namespace's own loopback interface


def _namespaces_work() -> str | None:
    """Why network namespaces cannot be used here (``None``: they can)."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "needs unshare(1) and ip(8)"
    probe = subprocess.run(
        ["unshare", "-n", "ip", "link", "set", "lo", "up"], capture_output=True, text=True
    )
    if probe.returncode != 0:
        return f"cannot make a network namespace here: {probe.stderr.strip()}"
    return None


WHY_NOT = _namespaces_work()
needs_namespace = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")


def run_isolated(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """pytest in a fresh interpreter inside a network namespace without routes."""
    setup = f'ip link set lo up && ip addr add {OWN_ADDRESS}/32 dev lo && exec "$@"'
    plugins = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest"]
    command = [sys.executable, "-m", "pytest", *plugins, "-W", "error", *args]
    return pytester.run("unshare", "-n", "sh", "-c", setup, "sh", *command, timeout=120)


REACHING_OUT = f"""
import socket

import openai
import pytest

OWN = "{OWN_ADDRESS}"


@pytest.fixture
def listener():
    with socket.socket() as sock:
        sock.bind((OWN, 0))
        sock.listen()
        yield sock.getsockname()[1]


def test_a_raw_connection(mockserver, listener):
    with socket.create_connection((OWN, listener), timeout=5):
        pass


def test_the_sdk_pointed_elsewhere(mockserver, listener):
    client = openai.OpenAI(
        base_url=f"http://{{OWN}}:{{listener}}/v1", api_key="sk-x", max_retries=0, timeout=2
    )
    client.chat.completions.create(model="gpt-4o", messages=[{{"role": "user", "content": "hi"}}])


def test_a_public_name(mockserver):
    socket.create_connection(("api.openai.com", 443), timeout=2)


@pytest.mark.mockserver(allow_network=True)
def test_let_out_by_the_marker(mockserver, listener):
    with socket.create_connection((OWN, listener), timeout=5):
        pass


def test_without_mockserver_is_not_guarded(listener):
    with socket.create_connection((OWN, listener), timeout=5):
        pass


def test_loopback_is_fine(mockserver):
    reply = mockserver.client().chat.completions.create(
        model="gpt-4o", messages=[{{"role": "user", "content": "hi"}}]
    )
    assert reply.choices[0].message.content
"""


def refusal(target: str) -> str:
    return f"mockserver's network guard refused a connection to {target}: {FIX}"


@needs_namespace
def test_a_connection_beyond_loopback_fails_the_test_naming_host_and_fix(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_out=REACHING_OUT)
    result = run_isolated(pytester, "-rf")
    result.assert_outcomes(passed=3, failed=3)
    text = result.stdout.str()
    summary = [line for line in result.outlines if line.startswith("FAILED")]
    assert [line.split(" - ")[0] for line in summary] == [
        "FAILED test_out.py::test_a_raw_connection",
        "FAILED test_out.py::test_the_sdk_pointed_elsewhere",
        "FAILED test_out.py::test_a_public_name",
    ]
    assert refusal("api.openai.com:443") in result.outlines
    # The SDK says only "Connection error."; the guard's message says what happened.
    section = text[text.index("_ test_the_sdk_pointed_elsewhere _") :]
    assert f"mockserver's network guard refused a connection to {OWN_ADDRESS}:" in section
    assert "openai.APIConnectionError: Connection error." in section


@needs_namespace
def test_the_guard_can_be_turned_off_for_the_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_out=REACHING_OUT)
    result = run_isolated(pytester, "--mockserver-allow-network", "-k", "raw or public")
    # The raw connection reaches the test's own listener; the name finds no DNS server in
    # the namespace: both show that the guard, not the namespace, refused them above.
    result.assert_outcomes(passed=1, failed=1)
    assert "network guard" not in result.stdout.str()
    pytester.makeini("[pytest]\nmockserver_network_guard = false\n")
    run_isolated(pytester, "-k", "raw").assert_outcomes(passed=1)


@needs_namespace
def test_each_xdist_worker_is_guarded(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_out=REACHING_OUT)
    result = run_isolated(pytester, "-n", "2", "-k", "raw or public or loopback")
    result.assert_outcomes(passed=1, failed=2)
    assert refusal("api.openai.com:443") in result.outlines


@pytest.mark.parametrize(
    ("host", "local"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("::1", True),
        ("::ffff:127.0.0.1", True),
        ("localhost", True),
        ("LOCALHOST.", True),
        ("app.localhost", True),
        ("10.99.0.1", False),
        ("192.0.2.1", False),
        ("::ffff:192.0.2.1", False),
        ("api.openai.com", False),
        ("localhost.example.com", False),
    ],
)
def test_only_loopback_counts_as_local(host: str, local: bool) -> None:
    assert is_local(host) is local


def test_ipv6_loopback_and_unix_sockets_are_let_through(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(
        test_local="""
        import socket
        import tempfile
        import pytest

        def test_unix_socket(mockserver):
            path = tempfile.mkdtemp(dir="/tmp") + "/s"  # a unix socket's path is short
            with socket.socket(socket.AF_UNIX) as server, socket.socket(socket.AF_UNIX) as c:
                server.bind(path)
                server.listen()
                c.connect(path)

        def test_ipv6_loopback(mockserver):
            if not socket.has_ipv6:
                pytest.skip("no IPv6")
            with socket.socket(socket.AF_INET6) as server:
                try:
                    server.bind(("::1", 0))
                except OSError:
                    pytest.skip("no ::1 here")
                server.listen()
                with socket.create_connection(server.getsockname()[:2], timeout=5):
                    pass

        def test_localhost_by_name(mockserver):
            with socket.socket() as server:
                server.bind(("127.0.0.1", 0))
                server.listen()
                with socket.create_connection(("localhost", server.getsockname()[1]), 5):
                    pass
        """
    )
    outcomes = run().parseoutcomes()
    assert outcomes.get("failed", 0) == 0
    assert outcomes["passed"] + outcomes.get("skipped", 0) == 3
    assert outcomes["passed"] >= 2


def test_a_refusal_is_said_once_however_often_the_client_retries(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_out="""
        import openai


        def test_the_sdk_retrying_elsewhere(mockserver):
            client = openai.OpenAI(base_url="https://api.openai.example/v1", api_key="sk-x")
            client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
            )
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    # The failure section says the fix once; pytest's -rf summary line may repeat it when the
    # terminal is wide enough (CI's is), so count only above that summary.
    failure, _, _summary = text.partition("short test summary info")
    assert failure.count(FIX) == 1, text  # the fix, once, where the test's failure starts
    assert failure.count(refusal("api.openai.example:443")) == 1, text
    assert "FAILED test_out.py::test_the_sdk_retrying_elsewhere - mockserver's" in text
    assert "refused by mockserver's network guard: api.openai.example:443" in text  # the client's
