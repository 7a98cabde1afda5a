"""Reading a fetched document (parse, then normalise), here or in a pool of processes.

Reading is the CPU of a fetch. A running fetch_worker is held by its GIL,
not by the network: its threads wait for one another (docs/ingestion.md,
"The fifth profile"), and parsing and normalising are close to half of the
time they hold it. A `ReaderPool` moves that half into other processes,
each with an interpreter of its own: the fetch thread sends the body and
waits, without the GIL, for the entries to come back.

Every guard of a fetch stays in the worker: the SSRF check, the timeouts
and the body cap come before there is a body, so a reader only ever sees
bytes already within the cap. A reader that dies (a crash in a parser, the
kernel ending it) fails that one fetch with a message, and the pool starts
afresh for the next.
"""

import dataclasses
import datetime
import multiprocessing
import os
import threading
from concurrent.futures import Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from django.conf import settings
from django.db import connections
from django.utils import timezone

from aitop.helpers import helper_forked, helper_setup
from feed.ingest import wording
from feed.ingest.normalise import Entry, Skip, entries_normalise
from feed.ingest.parse import ParseError, parse_feed
from feed.ingest.wording import recorded


@dataclasses.dataclass
class BodyRead:
    """What a feed document holds, ready to be written."""

    entries: list[Entry]
    skips: list[Skip]
    ttl_minutes: int | None = None
    warning: str = ""


def body_read(
    body: bytes, *, content_type: str, url: str, now: datetime.datetime, limit: int
) -> BodyRead:
    """Parse and normalise a fetched document: no database, no network (ParseError)."""
    parsed = parse_feed(body, content_type=content_type, url=url)
    entries, skips = entries_normalise(parsed.entries, base_url=url, now=now, limit=limit)
    return BodyRead(entries, skips, parsed.ttl_minutes, parsed.warning)


# A document of one entry that goes through every step of a read.
_WARM_UP = (
    b'<?xml version="1.0"?><rss version="2.0"><channel><title>Warm-up</title>'
    b"<item><title>One</title><link>https://example.com/one</link>"
    b'<description>&lt;p&gt;A &lt;a href="/two"&gt;link&lt;/a&gt;&lt;/p&gt;</description>'
    b"<pubDate>Sat, 05 Dec 2026 12:00:00 GMT</pubDate></item></channel></rss>"
)


def reader_warm() -> int:
    """A reader's first task: read a small document; its process id."""
    body_read(
        _WARM_UP,
        content_type="application/rss+xml",
        url="https://example.com/feed",
        now=timezone.now(),
        limit=settings.FETCH_MAX_ENTRIES,
    )
    return os.getpid()


def fork_is_safe() -> bool:
    """Whether this process may fork: it runs one thread and holds no database connection."""
    return threading.active_count() == 1 and all(
        connection.connection is None for connection in connections.all(initialized_only=True)
    )


class ReaderPool:
    """`processes` reader processes, shared by a worker's fetch threads.

    A pool made before the worker has a second thread or a database
    connection (fetch_worker makes it first) forks its readers: they start
    in milliseconds with Django set up and the parsers loaded, sharing the
    worker's memory until they write to it. Otherwise, and for a pool that
    replaces readers that died, they are spawned: each sets Django up
    afresh, about half a second of CPU (`fork` chooses instead, for
    tests). Until they are up, documents are read in the thread that
    fetched them, so a worker's first fetches never wait for its readers.
    """

    def __init__(self, processes: int, *, fork: bool | None = None):
        self.processes = processes
        self._lock = threading.Lock()
        self._executor, self._starting = self._executor_start(
            fork_is_safe() if fork is None else fork
        )

    def _executor_start(self, fork: bool = False) -> tuple[ProcessPoolExecutor, list[Future]]:
        if fork:
            context, initializer, initargs = "fork", helper_forked, (os.getpid(),)
        else:
            # Spawned: a forked child would inherit the worker's threads' locks
            # and its database connection half-held.
            context, initializer = "spawn", helper_setup
            initargs = (
                os.getpid(),
                os.environ["DJANGO_SETTINGS_MODULE"],
                {
                    name: getattr(settings, name)
                    for name in dir(settings)
                    if name.startswith("FETCH_")
                },
            )
        executor = ProcessPoolExecutor(
            max_workers=self.processes,
            mp_context=multiprocessing.get_context(context),
            initializer=initializer,
            initargs=initargs,
        )
        # One small read each: a process is started for each task no idle one
        # can take, and the read loads the parsers, so the first fetch it is
        # given does not pay for that (about 50 ms).
        return executor, [executor.submit(reader_warm) for _ in range(self.processes)]

    def wait_started(self) -> None:
        """Wait until every process is up (tests, to be sure reads go to the processes)."""
        wait(self._starting)

    def read(
        self, body: bytes, *, content_type: str, url: str, now: datetime.datetime, limit: int
    ) -> BodyRead:
        """`body_read` in a reader process; in this thread while the processes start."""
        executor, starting = self._executor, self._starting
        if not all(future.done() for future in starting) or any(
            future.exception() for future in starting
        ):  # still starting, or they could not start: read it here
            return body_read(body, content_type=content_type, url=url, now=now, limit=limit)
        try:
            future = executor.submit(
                body_read, body, content_type=content_type, url=url, now=now, limit=limit
            )
            return future.result()
        except BrokenProcessPool:
            self._replace(executor)
            raise ParseError(recorded(wording.READER_DIED)) from None

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._executor is broken:  # the first thread to see it replaces it
                self._executor, self._starting = self._executor_start()
        broken.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        if not all(future.done() for future in self._starting):
            # Readers still setting Django up have read nothing and hold
            # nothing: end them rather than wait up to half a second (a
            # `fetch_worker --until-idle` over a short queue did). They
            # ignore SIGTERM (aitop/helpers.py), so they are killed.
            for process in list(self._executor._processes.values()):
                process.kill()
        self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> "ReaderPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
