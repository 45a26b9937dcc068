"""Writing a file so that a crash leaves the old one or the new one, never half of either:
a temporary file in the same directory, written, flushed to disk, renamed over the target.
Recordings hold what a client sent: they are readable by their owner only (0600)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["probe_writable", "write_atomically"]


def write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o600)  # O_CREAT's mode is masked by the umask
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_directory(path.parent)


def probe_writable(folder: Path) -> None:
    """Make ``folder`` (and its parents) if it is missing, and check that a file can be
    written in it, as :func:`write_atomically` writes one; ``OSError`` if not."""
    folder.mkdir(parents=True, exist_ok=True)
    probe = folder / f".mockserver-probe.{os.getpid()}.tmp"
    fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.close(fd)
    os.unlink(probe)


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable (where the platform lets a directory be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
