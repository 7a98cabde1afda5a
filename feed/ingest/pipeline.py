"""Ingesting a source: lease → host slot → fetch → parse → normalise → one transaction.

`ingest_source` is the one entry point that the worker's task, the
`fetch_sources` command and the admin's "fetch now" all end in;
`feed_test` runs the same fetch and read for the admin's "test this feed"
button and writes nothing.

Nothing is written while the network is in use: the fetch and the parse
happen outside any transaction, then the source's state, the items and the
fetch's history row are written together in one. A worker killed before
that commit leaves no trace but its lease, which expires.
"""

import dataclasses
import datetime
import enum
import logging
import time

import httpx
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from feed.ingest import wording
from feed.ingest.fetch import FetchError, fetch_feed, url_scheme_refusal
from feed.ingest.keywords import KeywordTagger
from feed.ingest.leases import (
    host_claim,
    host_release,
    lease_owner_id,
    source_claim,
    source_release,
)
from feed.ingest.normalise import Entry, Skip, text_clean
from feed.ingest.parse import ParseError
from feed.ingest.reading import ReaderPool, body_read
from feed.ingest.rows import RowWrites
from feed.ingest.schedule import (
    host_key,
    interval_adapt,
    next_fetch_after_failure,
    next_fetch_after_success,
)
from feed.ingest.upsert import UpsertCounts, items_upsert
from feed.ingest.wording import recorded
from feed.models import FetchAttempt, Item, Source
from feed.signals import items_ingested_on_commit
from feed.sql import in_values

logger = logging.getLogger(__name__)


class Outcome(enum.StrEnum):
    """How an ingest ended: a fetch's status, or why there was no fetch."""

    OK = Source.Status.OK
    NOT_MODIFIED = Source.Status.NOT_MODIFIED
    PARTIAL = Source.Status.PARTIAL
    FAILED = Source.Status.FAILED
    BUSY = "busy"  # another worker holds the source
    DEFERRED = "deferred"  # the host was fetched too recently; next_fetch_at says when


class LeaseLostError(Exception):
    """Our lease expired and another worker took the source: write nothing."""


@dataclasses.dataclass
class FeedRead:
    """One fetch and what could be read from it, before anything is written."""

    status: Outcome
    http_status: int | None = None
    headers: httpx.Headers = dataclasses.field(default_factory=httpx.Headers)
    final_url: str = ""
    entries: list[Entry] = dataclasses.field(default_factory=list)
    skips: list[Skip] = dataclasses.field(default_factory=list)
    ttl_minutes: int | None = None
    error: str = ""
    warning: str = ""
    retry_at: datetime.datetime | None = None


@dataclasses.dataclass
class IngestResult:
    """What an ingest (or a test of a feed) did, for tasks, commands and the admin."""

    source_id: int | None
    status: Outcome
    http_status: int | None = None
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped_reasons: dict[str, int] = dataclasses.field(default_factory=dict)
    error: str = ""
    warning: str = ""
    seconds: float = 0.0
    next_fetch_at: datetime.datetime | None = None
    # Only from feed_test: the entries as they would be stored.
    entries: list[Entry] = dataclasses.field(default_factory=list)

    @property
    def skipped(self) -> int:
        return sum(self.skipped_reasons.values())

    def as_dict(self) -> dict:
        """A JSON-friendly summary (a task's return value)."""
        return {
            "source_id": self.source_id,
            "status": str(self.status),
            "http_status": self.http_status,
            "new": self.new,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "skipped": self.skipped,
            "skipped_reasons": self.skipped_reasons,
            "error": self.error,
            "warning": self.warning,
            "seconds": round(self.seconds, 3),
            "next_fetch_at": self.next_fetch_at.isoformat() if self.next_fetch_at else None,
        }


def internal_error(error: Exception) -> str:
    """The recorded text of a fetch that a bug ended."""
    return recorded(wording.INTERNAL, detail=f"{type(error).__name__}: {error}")


def _reasons(skips: list[Skip]) -> dict[str, int]:
    reasons: dict[str, int] = {}
    for skip in skips:
        reasons[skip.reason] = reasons.get(skip.reason, 0) + 1
    return reasons


def feed_read(
    *, url: str, owner: str, now: datetime.datetime, etag: str = "", last_modified: str = ""
) -> FeedRead:
    """Fetch `url` (within the host's politeness slots) and read its entries."""
    refusal = url_scheme_refusal(url)
    if refusal:
        return FeedRead(Outcome.FAILED, error=refusal)
    host = host_key(url)
    retry_at = host_claim(host=host, owner=owner, now=now)
    if retry_at is not None:
        return host_deferred(host, retry_at)
    started = time.monotonic()
    try:
        return feed_fetch_read(url=url, etag=etag, last_modified=last_modified, now=now)
    finally:
        elapsed = datetime.timedelta(seconds=time.monotonic() - started)
        host_release(host=host, owner=owner, finished_at=now + elapsed)


def host_deferred(host: str, retry_at: datetime.datetime) -> FeedRead:
    """The read of a fetch that has to wait for its host."""
    return FeedRead(
        Outcome.DEFERRED,
        retry_at=retry_at,
        # The time as the site's clock reads it (a worker's active time zone is TIME_ZONE).
        error=recorded(
            wording.HOST_DEFERRED, host=host, time=f"{timezone.localtime(retry_at):%H:%M:%S}"
        ),
    )


def feed_fetch_read(
    *,
    url: str,
    now: datetime.datetime,
    etag: str = "",
    last_modified: str = "",
    readers: ReaderPool | None = None,
) -> FeedRead:
    """The network and CPU part of a fetch: GET, parse, normalise. No database query.

    The caller holds the host's slot; this is what fetch_worker's threads run.
    With `readers`, the parse and normalise happen in one of its processes.
    """
    try:
        fetched = fetch_feed(url, etag=etag, last_modified=last_modified)
    except FetchError as error:
        return FeedRead(
            Outcome.FAILED,
            http_status=error.http_status,
            headers=error.headers,
            error=error.message,
        )
    if fetched.not_modified:
        return FeedRead(Outcome.NOT_MODIFIED, 304, fetched.headers, fetched.final_url)
    read = readers.read if readers else body_read
    try:
        document = read(
            fetched.body,
            content_type=fetched.content_type,
            url=fetched.final_url,
            now=now,
            limit=settings.FETCH_MAX_ENTRIES,
        )
    except ParseError as error:
        return FeedRead(
            Outcome.FAILED,
            fetched.status_code,
            fetched.headers,
            fetched.final_url,
            error=str(error),
        )
    return FeedRead(
        Outcome.PARTIAL if document.warning else Outcome.OK,
        fetched.status_code,
        fetched.headers,
        fetched.final_url,
        entries=document.entries,
        skips=document.skips,
        ttl_minutes=document.ttl_minutes,
        warning=document.warning,
    )


def ingest_source(source: Source, *, now: datetime.datetime | None = None) -> IngestResult:
    """Fetch one source and upsert its entries into items; never raises for a bad feed."""
    now = now or timezone.now()
    started = time.monotonic()
    if not source.feed_url:
        return IngestResult(source.pk, Outcome.FAILED, error=recorded(wording.NO_FEED_URL))
    owner = lease_owner_id()
    if not source_claim(source_id=source.pk, owner=owner, now=now):
        return IngestResult(source.pk, Outcome.BUSY, error=recorded(wording.BUSY))
    try:
        # The state as it is now that we hold the lease (ETag, failures…).
        source.refresh_from_db()
        read = feed_read(
            url=source.feed_url,
            etag=source.etag,
            last_modified=source.last_modified,
            owner=owner,
            now=now,
        )
    except Exception as error:
        logger.exception("fetching source %s failed", source.pk)
        read = FeedRead(Outcome.FAILED, error=internal_error(error))
    if read.status == Outcome.DEFERRED:
        source_release(source_id=source.pk, owner=owner, next_fetch_at=read.retry_at)
        return IngestResult(
            source.pk, Outcome.DEFERRED, error=read.error, next_fetch_at=read.retry_at
        )
    return source_record_safely(source, read, owner=owner, now=now, started=started)


def _lease_lost(source: Source) -> IngestResult:
    return IngestResult(
        source.pk,
        Outcome.BUSY,
        error=recorded(wording.LEASE_LOST),
    )


def source_record(
    source: Source,
    read: FeedRead,
    *,
    owner: str,
    now: datetime.datetime,
    started: float,
    tagger: KeywordTagger | None = None,
    prune_history: bool = True,
) -> IngestResult:
    """Write a fetch's items, the source's state and the history row in one transaction.

    The lease is checked last, by the conditional UPDATE that gives it back:
    if another worker took the source meanwhile, everything is rolled back.
    A worker's batch passes the keyword rules it read once (`tagger`) and
    prunes the history of all its sources at the end (`prune_history=False`).
    """
    with transaction.atomic():
        result, state = source_write(
            source, read, owner=owner, now=now, started=started, tagger=tagger
        )
        if prune_history:
            history_prune([source.pk])
    source_state_apply(source, state)
    return result


def source_write(
    source: Source,
    read: FeedRead,
    *,
    owner: str,
    now: datetime.datetime,
    started: float,
    tagger: KeywordTagger | None = None,
    writes: RowWrites | None = None,
) -> tuple[IngestResult, dict]:
    """`source_record`'s statements, inside a transaction the caller holds; the result and state.

    Raises LeaseLostError if the lease is gone: the caller rolls back. The
    source object is left as it was until `source_state_apply(source, state)`
    after the commit, so that a rolled-back write can be made again. Given
    `writes`, the source's state and history rows are left in it, for the
    caller to write with those of other fetches (and to check the leases).
    """
    gathered = writes is not None
    writes = writes if gathered else RowWrites()
    counts = (
        items_upsert(source=source, entries=read.entries, now=now, tagger=tagger)
        if read.entries
        else UpsertCounts()
    )
    state = _source_state(source, read, now=now, changed=bool(counts.new or counts.updated))
    writes.state_release(source_id=source.pk, owner=owner, state=state)
    reasons = _reasons(read.skips + counts.skips)
    seconds = time.monotonic() - started
    writes.attempt_insert(
        source_id=source.pk,
        started_at=now,
        duration=datetime.timedelta(seconds=seconds),
        status=str(read.status),
        http_status=read.http_status,
        items_new=counts.new,
        items_updated=counts.updated,
        items_unchanged=counts.unchanged,
        items_skipped=sum(reasons.values()),
        skipped_reasons=reasons,
        error=state.get("last_error", ""),
        warning=state.get("last_warning", ""),
        final_url=read.final_url[:2000],
        worker=owner,
    )
    if not gathered and not writes.write():
        raise LeaseLostError
    if counts.new:  # apps above feed (enrichment) react to new drafts
        items_ingested_on_commit(source_id=source.pk, fetched_at=now)
    result = IngestResult(
        source.pk,
        read.status,
        http_status=read.http_status,
        new=counts.new,
        updated=counts.updated,
        unchanged=counts.unchanged,
        skipped_reasons=reasons,
        error=state.get("last_error", ""),
        warning=state.get("last_warning", ""),
        seconds=seconds,
        next_fetch_at=state["next_fetch_at"],
    )
    return result, state


def source_state_apply(source: Source, state: dict) -> None:
    """Bring the in-memory source up to the state `source_write` committed, lease given back."""
    for field, value in state.items():
        setattr(source, field, value)
    source.lease_owner, source.lease_expires_at = "", None


def source_record_safely(
    source: Source, read: FeedRead, *, owner: str, now: datetime.datetime, started: float, **batch
) -> IngestResult:
    """`source_record`, turning a lost lease or a bug into a result instead of an exception."""
    try:
        return source_record(source, read, owner=owner, now=now, started=started, **batch)
    except LeaseLostError:
        return _lease_lost(source)
    except Exception as error:
        # A bug, or a feed that found a way past every check: record it as a
        # failed fetch (the items of this fetch were rolled back) and go on.
        logger.exception("ingesting source %s failed", source.pk)
        failed = FeedRead(Outcome.FAILED, error=internal_error(error))
        try:
            return source_record(source, failed, owner=owner, now=now, started=started, **batch)
        except LeaseLostError:
            return _lease_lost(source)


def _validator(value: str, limit: int) -> str:
    """An ETag or Last-Modified we can send back; an unusable one is dropped."""
    value = text_clean(value).strip()
    return value if len(value) <= limit else ""


def _source_state(source: Source, read: FeedRead, *, now: datetime.datetime, changed: bool) -> dict:
    """The source's fetch-state fields after this fetch (`changed`: it brought something)."""
    state = {
        "last_fetched_at": now,
        "last_status": str(read.status),
        "last_http_status": read.http_status,
    }
    if read.status == Outcome.FAILED:
        failures = source.consecutive_failures + 1
        state |= {
            "consecutive_failures": failures,
            "next_fetch_at": next_fetch_after_failure(
                now=now, failures=failures, headers=read.headers
            ),
            "last_error": text_clean(read.error),
        }
        return state
    interval = interval_adapt(
        interval=source.fetch_interval,
        lower=source.fetch_interval_min,
        upper=source.fetch_interval_max,
        changed=changed,
    )
    state |= {
        "consecutive_failures": 0,
        "fetch_interval": interval,
        "next_fetch_at": next_fetch_after_success(
            now=now,
            interval=interval,
            headers=read.headers,
            ttl_minutes=read.ttl_minutes,
            spread_key=source.pk,
        ),
        "last_error": "",
    }
    if read.status != Outcome.NOT_MODIFIED:
        # A 304 keeps the validators (and the items) as they were.
        state |= {
            "last_warning": text_clean(read.warning),
            "etag": _validator(read.headers.get("etag", ""), 500),
            "last_modified": _validator(read.headers.get("last-modified", ""), 100),
        }
    return state


# One statement, written once: the ORM spent 3 ms building the window query and
# its filter for each batch, far more than the database spends running it.
_HISTORY_PRUNE = (
    "DELETE FROM {table} WHERE id IN (SELECT id FROM ("
    " SELECT id, ROW_NUMBER() OVER ("
    " PARTITION BY source_id ORDER BY started_at DESC, id DESC) AS position"
    " FROM {table} WHERE source_id {sources}) ranked WHERE position > %s)"
)


def history_prune(source_ids: list[int]) -> None:
    """Keep the newest FETCH_HISTORY_KEEP fetches of each of these sources: one statement."""
    if not source_ids:
        return
    sources, params = in_values(source_ids)
    statement = _HISTORY_PRUNE.format(
        table=connection.ops.quote_name(FetchAttempt._meta.db_table), sources=sources
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, [*params, settings.FETCH_HISTORY_KEEP])


def feed_test(*, url: str, now: datetime.datetime | None = None) -> IngestResult:
    """Fetch and read a feed exactly as ingestion would, and write no item.

    For the admin's "test this feed": what the entries would become, and how
    many of them are new to us.
    """
    now = now or timezone.now()
    started = time.monotonic()
    read = feed_read(url=url, owner=lease_owner_id(), now=now)
    known = set(
        Item.objects.filter(url__in=[entry.url for entry in read.entries]).values_list(
            "url", flat=True
        )
    )
    return IngestResult(
        None,
        read.status,
        http_status=read.http_status,
        new=sum(entry.url not in known for entry in read.entries),
        unchanged=len(known),
        skipped_reasons=_reasons(read.skips),
        error=read.error,
        warning=read.warning,
        seconds=time.monotonic() - started,
        next_fetch_at=read.retry_at,
        entries=read.entries,
    )
