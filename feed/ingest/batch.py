"""Many fetches at once in one worker: claim a batch of due sources, fetch them in threads.

Why threads (docs/ingestion.md): a fetch is mostly waiting on the network,
and the guarded client (aitop.netguard) — the SSRF check on the dialled
address, the body cap after decompression, timeouts, redirects — is a
synchronous httpx client that is kept exactly as it is. Each thread runs
only `feed_fetch_read` (GET, parse, normalise: no database query), the
parse and normalise in one of the worker's reader processes when it has
them (feed/ingest/reading.py); the worker's main thread does every
database step in order, two transactions at most a turn of its loop —
the hosts' politeness slots of the next requests taken, then, while those
requests are out, the fetches that ended written — so a batch uses one
database connection whatever its concurrency, and SQLite sees one writer
per worker. A batch claims more due sources as its sources end (`Claims`), so
a worker's requests do not drain between claims.

A source stays leased by this worker from its claim to its commit; a worker
killed anywhere in between leaves leases that expire after
AITOP_FETCH_LEASE_SECONDS, and those sources are claimed again. Each
source's items and state are written in one transaction, so none is ever
half-written.
"""

import contextlib
import dataclasses
import datetime
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from django.conf import settings
from django.db import transaction
from django.db.models import Prefetch
from django.utils import timezone

from aitop.netguard import verifying_ssl_context
from feed.ingest.due import sources_due
from feed.ingest.keywords import KeywordTagger, keyword_tagger_active
from feed.ingest.leases import (
    host_claim,
    host_rows_ensure,
    host_slots,
    hosts_release,
    lease_free_q,
    leases_transaction,
    source_release,
)
from feed.ingest.pipeline import (
    FeedRead,
    IngestResult,
    LeaseLostError,
    Outcome,
    feed_fetch_read,
    history_prune,
    host_deferred,
    internal_error,
    source_record_safely,
    source_state_apply,
    source_write,
)
from feed.ingest.reading import ReaderPool
from feed.ingest.rows import RowWrites
from feed.ingest.schedule import host_key
from feed.models import Source, TaggedSource
from feed.signals import arrivals_gathered

logger = logging.getLogger(__name__)


def sources_claim_batch(*, owner: str, now: datetime.datetime, limit: int) -> list[Source]:
    """Lease up to `limit` due sources to `owner` and return them, the longest overdue first.

    On PostgreSQL the due rows are locked with FOR UPDATE SKIP LOCKED, so
    workers claiming at the same moment take different sources without
    waiting; on SQLite (which ignores FOR UPDATE and has one writer at a
    time) the conditional UPDATE on a free lease is what keeps two claims
    apart. Either way a source goes to exactly one worker.
    """
    lease = datetime.timedelta(seconds=settings.FETCH_LEASE_SECONDS)
    with leases_transaction():
        ids = list(
            sources_due(now=now)
            .select_for_update(skip_locked=True, of=("self",))
            .values_list("id", flat=True)[:limit]
        )
        if not ids:
            return []
        Source.objects.filter(lease_free_q(now), id__in=ids).update(
            lease_owner=owner, lease_expires_at=now + lease
        )
    # Every source's default tags in one query, for the items its fetch creates.
    claimed = Source.objects.filter(id__in=ids, lease_owner=owner).prefetch_related(
        Prefetch("tagged_sources", queryset=TaggedSource.objects.select_related("tag"))
    )
    order = {source_id: position for position, source_id in enumerate(ids)}
    return sorted(claimed, key=lambda source: order[source.id])


@dataclasses.dataclass
class Claims:
    """A worker's claims of due sources: it holds at most `limit` at once, claiming as they end.

    A batch asks for more when its queue of sources is too short to fill its
    free request slots, so a worker with more due sources than a batch's
    worth keeps its requests going, instead of waiting for the last fetches
    of one claim before it makes the next. A claim that comes back short
    means nothing more is due: no more is asked for in that batch.
    """

    owner: str
    limit: int
    stopping: threading.Event | None = None
    full: bool = True  # the last claim held all it asked for (or there was none yet)

    def more(self, held: int = 0) -> list[Source]:
        """Up to `limit - held` more due sources, leased to `owner`; none after a short claim."""
        wanted = self.limit - held
        if wanted <= 0 or not self.full or (self.stopping and self.stopping.is_set()):
            return []
        sources = sources_claim_batch(owner=self.owner, now=timezone.now(), limit=wanted)
        self.full = len(sources) == wanted
        return sources


@dataclasses.dataclass
class _InFlight:
    source: Source
    host: str
    # Who holds the host's slot: one name per request, so that two requests
    # of this batch to one host hold (and free) two slots.
    slot_owner: str
    now: datetime.datetime
    started: float


@dataclasses.dataclass
class _HostWait:
    """A host that refused a slot (another worker holds it, or its gap runs): when to ask again."""

    since: float  # time.monotonic() of the first refusal
    at: float  # of the next try
    delay: float  # between the last two tries


# The first try again after a refusal, doubling up to a second: another
# worker's request to the host usually ends within milliseconds.
_FIRST_RETRY = 0.05
_LONGEST_RETRY = 1.0


def sources_fetch_batch(
    *,
    sources: list[Source],
    owner: str,
    concurrency: int | None = None,
    now: datetime.datetime | None = None,
    readers: ReaderPool | None = None,
    threads: ThreadPoolExecutor | None = None,
    more: Callable[[int], list[Source]] | None = None,
) -> list[IngestResult]:
    """Fetch sources that `owner` has leased, up to `concurrency` at once; one result each.

    A source whose host is busy with one of this batch's own requests waits
    for it; one whose host another worker holds, or whose gap has not passed,
    waits in the batch while the host may be free within
    AITOP_FETCH_HOST_WAIT (`_wait_here`), and is otherwise given back with
    its next fetch at the host's time (DEFERRED). With
    `readers`, the fetched documents are parsed in its processes. The
    requests go out in `threads` (a worker's `fetch_threads`, kept for its
    life), or in threads started for this batch. When its queue is too
    short to fill its free request slots, the batch asks `more(held)` (a
    worker's `Claims.more`) for sources, `held` being how many it has not
    yet written.

    What is the same for every source is done once a batch: the keyword
    rules are read, and the hosts' slot rows made, at the start; the fetch
    history is pruned, and the apps above feed are told of the new items
    (feed.signals.arrivals_gathered), at the end.
    """
    concurrency = concurrency or settings.FETCH_CONCURRENCY
    pending = deque(sources)
    in_flight: dict[Future, _InFlight] = {}
    busy_hosts: dict[str, int] = {}
    host_waits: dict[str, _HostWait] = {}
    results: list[IngestResult] = []
    tagger = keyword_tagger_active()
    host_rows_ensure({host_key(source.feed_url) for source in sources})
    with (
        arrivals_gathered(),
        contextlib.nullcontext(threads)
        if threads
        else ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="fetch") as pool,
    ):
        finished: list[tuple[Future, _InFlight]] = []
        while pending or in_flight or finished:
            # Two transactions a turn. First the slots of the next requests are
            # taken, committed before they go out; then, while they are out,
            # the fetches that ended are written and their hosts freed.
            room = concurrency - len(in_flight)
            if more is not None and len(pending) < room:
                claimed = more(len(pending) + len(in_flight) + len(finished))
                if claimed:
                    host_rows_ensure({host_key(source.feed_url) for source in claimed})
                    pending.extend(claimed)
            if pending and room > 0:
                starting, waiting, deferred = _start_all(
                    pending,
                    room=room,
                    owner=owner,
                    now=now,
                    busy_hosts=busy_hosts,
                    host_waits=host_waits,
                )
                results += deferred
                for flight in starting:
                    future = pool.submit(
                        feed_fetch_read,
                        url=flight.source.feed_url,
                        etag=flight.source.etag,
                        last_modified=flight.source.last_modified,
                        now=flight.now,
                        readers=readers,
                    )
                    in_flight[future] = flight
                pending = waiting + pending
            if finished:
                results += _finish_all(finished, owner=owner, busy_hosts=busy_hosts, tagger=tagger)
                finished = []
                if pending or more is not None:
                    continue  # a host or a lease just freed may let another source go
            # Sources waiting for a host held elsewhere are tried again at
            # their time, whether or not a fetch of ours ends first.
            retry_in = _next_try_in(host_waits) if pending else None
            if not in_flight:
                if retry_in is not None:
                    time.sleep(retry_in)
                continue
            if len(in_flight) >= concurrency:
                retry_in = None  # no request slot to try them in
            done, _ = wait(in_flight, timeout=retry_in, return_when=FIRST_COMPLETED)
            finished = [(future, in_flight.pop(future)) for future in done]
        history_prune([result.source_id for result in results if result.status != Outcome.DEFERRED])
    return results


def fetch_threads(concurrency: int) -> ThreadPoolExecutor:
    """A pool of `concurrency` fetch threads for a worker's life, started now, TLS context loaded.

    A batch that starts its own threads makes its first requests wait for
    them, and for certifi's bundle, which the first request loads while the
    others wait on it (about 20 ms, docs/ingestion.md): a running worker
    pays neither when its sources fall due. The pool is the caller's to shut
    down.
    """
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="fetch")
    # A task per thread that waits for all the others: the pool starts a new
    # thread for each task no idle thread can take.
    started = threading.Barrier(concurrency)
    wait([pool.submit(_thread_warm, started) for _ in range(concurrency)])
    return pool


def _thread_warm(started: threading.Barrier) -> None:
    verifying_ssl_context(settings.FETCH_CA_BUNDLE)
    started.wait(timeout=30)


def _start_all(
    pending: deque[Source],
    *,
    room: int,
    owner: str,
    now: datetime.datetime | None,
    busy_hosts: dict[str, int],
    host_waits: dict[str, _HostWait],
) -> tuple[list[_InFlight], deque[Source], list[IngestResult]]:
    """Take hosts for up to `room` pending sources: (to fetch, to wait for us, deferred).

    The slots are taken in one `leases_transaction` (one commit for all), in
    the order of their hosts' keys: two workers taking slots at the same
    moment then lock the hosts' rows in the same order, so neither can wait
    for the other in a circle (on PostgreSQL, a deadlock that ends one of
    their batches). No transaction is opened when every source waits for
    one of our own requests, or for a host held elsewhere whose next try
    (`host_waits`) has not come.
    """
    chosen: list[tuple[str, Source]] = []
    planned: dict[str, int] = {}
    waiting: deque[Source] = deque()
    clock = time.monotonic()
    while pending and len(chosen) < room:
        source = pending.popleft()
        host = host_key(source.feed_url)
        if busy_hosts.get(host, 0) + planned.get(host, 0) >= host_slots(host):
            # Every slot of the host is ours: wait for us, no need to ask the database.
            waiting.append(source)
            continue
        if host in host_waits and host_waits[host].at > clock:
            waiting.append(source)
            continue
        planned[host] = planned.get(host, 0) + 1
        chosen.append((host, source))
    starting: list[_InFlight] = []
    deferred: list[IngestResult] = []
    if not chosen:
        return starting, waiting, deferred
    with leases_transaction():
        for host, source in sorted(chosen, key=lambda pair: pair[0]):
            started = _start(
                source,
                host=host,
                owner=owner,
                now=now,
                busy_hosts=busy_hosts,
                host_waits=host_waits,
            )
            if isinstance(started, IngestResult):
                deferred.append(started)
            elif started is None:
                waiting.append(source)
            else:
                starting.append(started)
    return starting, waiting, deferred


def _start(
    source: Source,
    *,
    host: str,
    owner: str,
    now: datetime.datetime | None,
    busy_hosts: dict[str, int],
    host_waits: dict[str, _HostWait],
) -> _InFlight | IngestResult | None:
    """Take the source's host for it: in flight, a result (deferred), or None (wait here)."""
    ours = busy_hosts.get(host, 0)
    at = now or timezone.now()
    slot_owner = f"{owner}/{source.pk}"
    retry_at = host_claim(host=host, owner=slot_owner, now=at)
    if retry_at is None:
        busy_hosts[host] = ours + 1
        host_waits.pop(host, None)
        return _InFlight(source, host, slot_owner, at, time.monotonic())
    if ours:
        # Our own request holds the host: this source goes when it is done.
        return None
    if _wait_here(host_waits, host, retry_in=(retry_at - at).total_seconds()):
        return None
    read = host_deferred(host, retry_at)
    source_release(source_id=source.pk, owner=owner, next_fetch_at=retry_at)
    return IngestResult(source.pk, Outcome.DEFERRED, error=read.error, next_fetch_at=retry_at)


def _wait_here(host_waits: dict[str, _HostWait], host: str, *, retry_in: float) -> bool:
    """Whether a source its host refused waits in the batch (True) or is given back.

    It waits while the host may be free within AITOP_FETCH_HOST_WAIT of its
    first refusal: giving it back would keep it until the host's time
    (`host_claim`'s guess for a request in flight is a second, or the
    host's gap if longer), and then cost a claim to take it again. The host
    is tried again at growing intervals, never later than that time; one
    whose time is further off than the wait is given back at once. One try
    a host at a time: the host's other sources wait for that one.
    """
    clock = time.monotonic()
    previous = host_waits.get(host)
    delay = min(previous.delay * 2, _LONGEST_RETRY) if previous else _FIRST_RETRY
    since = previous.since if previous else clock
    at = clock + min(max(retry_in, 0.0), delay)
    if retry_in > settings.FETCH_HOST_WAIT or at - since > settings.FETCH_HOST_WAIT:
        host_waits.pop(host, None)  # the host's next source starts afresh
        return False
    host_waits[host] = _HostWait(since, at, delay)
    return True


def _next_try_in(host_waits: dict[str, _HostWait]) -> float | None:
    """Seconds until the first host waited for may be tried again (None: no host is)."""
    if not host_waits:
        return None
    # Never less than 10 ms, so that a host whose try is due but cannot be
    # made yet (every request slot busy) never spins the loop.
    return max(min(wait.at for wait in host_waits.values()) - time.monotonic(), 0.01)


def _finish_all(
    finished: list[tuple[Future, _InFlight]],
    *,
    owner: str,
    busy_hosts: dict[str, int],
    tagger: KeywordTagger,
) -> list[IngestResult]:
    """Free the hosts of the fetches that ended together, and write what they brought.

    All in one transaction (inside the turn's, a savepoint): one commit for
    the fetches of a turn rather than two for each, which was most of what
    the worker's one thread of database work waited on. If any of them
    cannot be written (its lease was lost, a bug), that is rolled back and
    each is written on its own, as `source_record_safely` does, so one
    source never costs another its items.
    """
    reads = []
    for future, flight in finished:
        busy_hosts[flight.host] -= 1
        reads.append((flight, _read(future, flight)))
    try:
        with transaction.atomic():
            hosts_release(_host_freed(flight) for flight, _ in reads)
            writes = RowWrites()
            written = [
                source_write(flight.source, read, writes=writes, **_how(flight, owner, tagger))
                for flight, read in reads
            ]
            if not writes.write():
                raise LeaseLostError
    except Exception:
        return [_finish_alone(flight, read, owner=owner, tagger=tagger) for flight, read in reads]
    for (flight, _), (_, state) in zip(reads, written, strict=True):
        source_state_apply(flight.source, state)
    return [result for result, _ in written]


def _read(future: Future, flight: _InFlight) -> FeedRead:
    try:
        return future.result()
    except Exception as error:
        logger.exception("fetching source %s failed", flight.source.pk)
        return FeedRead(Outcome.FAILED, error=internal_error(error))


def _host_freed(flight: _InFlight) -> tuple[str, str, datetime.datetime]:
    """What frees the flight's slot (`hosts_release`): the host's gap counts from now."""
    elapsed = datetime.timedelta(seconds=time.monotonic() - flight.started)
    return flight.host, flight.slot_owner, flight.now + elapsed


def _finish_alone(
    flight: _InFlight, read: FeedRead, *, owner: str, tagger: KeywordTagger
) -> IngestResult:
    hosts_release([_host_freed(flight)])
    return source_record_safely(
        flight.source, read, prune_history=False, **_how(flight, owner, tagger)
    )


def _how(flight: _InFlight, owner: str, tagger: KeywordTagger) -> dict:
    """What writing a flight's fetch needs besides the source and the read."""
    return {"owner": owner, "now": flight.now, "started": flight.started, "tagger": tagger}
