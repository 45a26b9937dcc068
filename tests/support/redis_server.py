"""A real ``redis-server`` for tests: on a free loopback port and a unix socket of its own,
without persistence, stopped at the end; tests that need one skip, saying why, where the
binary is absent."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from itertools import count
from pathlib import Path

import redis

__all__ = ["RedisServer", "find_redis_server"]

_PREFIXES = count(1)


def find_redis_server() -> str | None:
    return shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class RedisServer:
    """One ``redis-server`` process; :meth:`stop` and :meth:`start` again on the same port
    (its data is lost: no persistence), :meth:`pause` and :meth:`resume` freeze it (its data
    is kept: the fault a lost network or a stalled Redis looks like)."""

    def __init__(self, binary: str, *options: str) -> None:
        self.binary = binary
        #: More of redis-server's options (``--replicaof HOST PORT``, say).
        self.options = options
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        #: The same server, database and data, over its unix socket.
        self.socket = Path(tempfile.mkdtemp(prefix="redis-")) / "redis.sock"
        self.unix_url = f"unix://{self.socket}?db=0"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> RedisServer:
        self.socket.parent.mkdir(exist_ok=True)
        self._process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "no",
                "--unixsocket",
                str(self.socket),
                "--unixsocketperm",
                "700",
                "--dir",  # a replica writes what its primary sends (dump.rdb) there
                str(self.socket.parent),
                *self.options,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or self._process.poll() is not None:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.02)
        client.close()
        return self

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=10)
            self._process = None
            shutil.rmtree(self.socket.parent, ignore_errors=True)  # the socket, a replica's RDB

    def pause(self) -> None:
        assert self._process is not None
        self._process.send_signal(19)  # SIGSTOP

    def resume(self) -> None:
        assert self._process is not None
        self._process.send_signal(18)  # SIGCONT

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url)

    @staticmethod
    def new_prefix() -> str:
        """Keys of their own for one test (many tests share one server)."""
        return f"test{next(_PREFIXES)}"
