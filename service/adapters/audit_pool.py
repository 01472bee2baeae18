"""Uploaded logs verified in child processes, a few at a time (``ports.LogVerifier``).

Verifying the costliest log the upload limits let through takes about a second of CPU. On
the gevent worker's loop that second stalls every other request of the process (two such
uploads took a match view's p99 from 5 ms to 1.8 s), and a thread would not help: it holds
the GIL. So each verification is a child process (``command``, the bootstrap's: ``python
-m service.audit_child``) that reads the spool on its standard input and writes the answer
to a file on its standard output, at a lower priority; the request's greenlet only waits
for it to exit (gevent's ``subprocess`` waits cooperatively). Its memory goes back to the
system when it exits: a worker that verified a log is no larger for it.

At most ``size`` verifications run at once per API process; a request that finds them all
taken waits up to ``wait_s`` for one, then is refused (``VerifierBusy``, a 503 with
``Retry-After``). A child that runs past ``timeout_s`` is killed (``VerifierFailed``).

Spools and answers are anonymous temporary files (``tempfile.TemporaryFile``: unlinked at
once, so nothing is left behind by a process that dies): an upload costs its size in disk,
not in memory, and only while it is read, verified and sent.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import IO, cast

from service.ports import Spool, Verification, VerifierBusy, VerifierFailed

REFUSED = 3
"""The child's exit status for a refused log (``service.audit_child.REFUSED``)."""


class FileSpool:
    """A spool in an anonymous temporary file: one checked record a line."""

    def __init__(self, file: IO[bytes]) -> None:
        self.file = file

    def write(self, line: bytes) -> None:
        self.file.write(line)
        self.file.write(b"\n")


class AuditPool:
    """``ports.LogVerifier``: one child process per verification, ``size`` at once."""

    def __init__(self, command: Sequence[str], size: int, wait_s: float = 10.0,
                 timeout_s: float = 90.0, directory: str | None = None) -> None:
        self.command, self.size = list(command), size
        self.wait_s, self.timeout_s, self.directory = wait_s, timeout_s, directory
        self.slots = threading.BoundedSemaphore(size)  # gevent's, once the worker patched

    @contextmanager
    def spool(self) -> Iterator[FileSpool]:
        with tempfile.TemporaryFile(prefix="rummy-upload-", dir=self.directory) as file:
            yield FileSpool(file)

    def verify(self, spool: Spool, states_bytes: int | None) -> Verification:
        """Run the verification of ``spool`` (one of ``spool()``'s) once a slot is free
        (``VerifierBusy`` when none is within ``wait_s``)."""
        if not self.slots.acquire(timeout=self.wait_s):
            raise VerifierBusy(max(1, round(self.wait_s)))
        try:
            return self._run(cast(FileSpool, spool).file, states_bytes)
        finally:
            self.slots.release()

    def _run(self, source: IO[bytes], states_bytes: int | None) -> Verification:
        source.flush()
        source.seek(0)
        answer = tempfile.TemporaryFile(prefix="rummy-answer-", dir=self.directory)
        try:
            status = self._child(source, answer, states_bytes)
            size = os.fstat(answer.fileno()).st_size
            answer.seek(0)
            if status == 0:
                return Verification(answer, size)
            if status == REFUSED:
                refusal = json.loads(answer.read())
                answer.close()
                return Verification(None, refusal=(refusal["code"], refusal["message"]))
            raise VerifierFailed(f"the verifier exited with status {status}")
        except BaseException:
            answer.close()
            raise

    def _child(self, source: IO[bytes], answer: IO[bytes], states_bytes: int | None) -> int:
        argv = self.command + ([] if states_bytes is None else ["--states", str(states_bytes)])
        try:
            child = subprocess.Popen(argv, stdin=source, stdout=answer)
        except OSError as exc:
            raise VerifierFailed(f"the verifier could not start: {exc}") from exc
        try:
            return child.wait(timeout=self.timeout_s)
        except subprocess.TimeoutExpired as exc:
            raise VerifierFailed(f"the verifier took more than {self.timeout_s:g} s") from exc
        finally:
            if child.poll() is None:  # timed out, or this request was ended meanwhile
                child.kill()
                child.wait()
