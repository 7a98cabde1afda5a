"""Who may fetch what, now: a lease per source and AITOP_FETCH_PER_HOST slots per host.

Both are conditional UPDATEs with a row count (healthchecks' method), so
they work the same on PostgreSQL and SQLite, across any number of workers
and machines. A lease expires: a worker killed mid-fetch holds nothing for
longer than settings.FETCH_LEASE_SECONDS.
"""

import contextlib
import datetime
import os
import secrets
import socket
from collections.abc import Iterable

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q, Subquery

from feed.ingest.schedule import host_gap
from feed.models import FetchHost, Source

# The lease the scheduler puts on a source it has queued: any worker that
# runs the queued task may take it over.
QUEUED = "queued"


def lease_owner_id() -> str:
    """A name for one fetch by this process, unique across machines."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{secrets.token_hex(4)}"


def _lease_length() -> datetime.timedelta:
    return datetime.timedelta(seconds=settings.FETCH_LEASE_SECONDS)


@contextlib.contextmanager
def leases_transaction():
    """A transaction that only takes or gives back leases and host slots.

    On PostgreSQL its commit does not wait for the write-ahead log to reach
    the disk (`synchronous_commit = off` for this transaction alone): about
    a millisecond a commit, for a claim and for each turn's slots. What a
    crash could lose is the last fraction of a second of such commits, and
    each of those only hands a lease or a slot back to how it was before:
    it expires, as a killed worker's does. A block already inside a
    transaction is left as it is (the setting would last to its end).
    """
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit = off")
        yield


def lease_free_q(now: datetime.datetime) -> Q:
    """Sources no worker holds (never leased, lease expired)."""
    return Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lte=now)


def source_claim(*, source_id: int, owner: str, now: datetime.datetime) -> bool:
    """Take the source's lease; False if another worker holds it."""
    claimable = lease_free_q(now) | Q(lease_owner=QUEUED)
    return (
        Source.objects.filter(claimable, pk=source_id).update(
            lease_owner=owner, lease_expires_at=now + _lease_length()
        )
        == 1
    )


def source_mark_queued(*, source_id: int, now: datetime.datetime) -> bool:
    """Mark a free source as queued, so the scheduler does not queue it twice."""
    return (
        Source.objects.filter(lease_free_q(now), pk=source_id).update(
            lease_owner=QUEUED, lease_expires_at=now + _lease_length()
        )
        == 1
    )


def source_release(
    *, source_id: int, owner: str, next_fetch_at: datetime.datetime | None = None
) -> bool:
    """Give the lease back (optionally moving the next fetch), if we still hold it."""
    changes = {"lease_owner": "", "lease_expires_at": None}
    if next_fetch_at is not None:
        changes["next_fetch_at"] = next_fetch_at
    return Source.objects.filter(pk=source_id, lease_owner=owner).update(**changes) == 1


# Hosts whose slot rows this process has made sure exist: rows are never
# deleted by ingestion, so the INSERT is needed once per host and process.
_HOSTS_WITH_ROWS: set[tuple[str, int]] = set()


def host_slots(host: str) -> int:
    """How many requests may be in flight to `host` at once (one for a host with its own gap)."""
    name = host.rsplit(":", 1)[0]
    return 1 if name in settings.FETCH_HOST_GAPS else settings.FETCH_PER_HOST


def host_rows_ensure(hosts: Iterable[str]) -> None:
    """Make the slot rows of these hosts: one INSERT for those this process has not made yet.

    A batch calls it with all its hosts first, so that its claims only update.
    """
    missing = {(host, host_slots(host)) for host in hosts} - _HOSTS_WITH_ROWS
    if missing:
        FetchHost.objects.bulk_create(
            [FetchHost(host=host, slot=slot) for host, slots in missing for slot in range(slots)],
            ignore_conflicts=True,
        )
        _HOSTS_WITH_ROWS.update(missing)


def host_claim(*, host: str, owner: str, now: datetime.datetime) -> datetime.datetime | None:
    """Take one of the host's slots for one request; None if taken, else when to try again."""
    slots = host_slots(host)
    rows: list[dict] = []
    for make_rows in ((host, slots) not in _HOSTS_WITH_ROWS, True):
        if make_rows:
            _HOSTS_WITH_ROWS.discard((host, slots))
            host_rows_ensure([host])
        if _slot_take(host, slots=slots, owner=owner, now=now):
            return None
        rows = list(
            FetchHost.objects.filter(host=host, slot__lt=slots).values(
                "busy_until", "next_request_at"
            )
        )
        if rows:
            break
        # No row at all: someone deleted the host's rows since we made them.
    retry = None
    for row in rows:
        # When this slot is free again: a request in flight usually ends in
        # seconds, not at its lease's end.
        at = now
        if row["busy_until"] and row["busy_until"] > now:
            at = now + max(host_gap(host), datetime.timedelta(seconds=1))
        if row["next_request_at"] and row["next_request_at"] > at:
            at = row["next_request_at"]
        retry = at if retry is None else min(retry, at)
    return retry or now


# The two statements every fetch runs, written once: the ORM took ten times
# as long to build each as the database took to run it (docs/ingestion.md).
_TAKE_ONE = (
    "UPDATE {table} SET busy_owner = %s, busy_until = %s"
    " WHERE host = %s AND slot = 0"
    " AND (busy_until IS NULL OR busy_until <= %s)"
    " AND (next_request_at IS NULL OR next_request_at <= %s)"
)
_RELEASE = (
    "UPDATE {table} SET busy_owner = '', busy_until = NULL, next_request_at = %s"
    " WHERE host = %s AND busy_owner = %s"
)


def _run(statement: str, params: list) -> int:
    """Run one of the statements above on FetchHost's table; the rows it changed."""
    table = connection.ops.quote_name(FetchHost._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(statement.format(table=table), params)
        return cursor.rowcount


def _when(moment: datetime.datetime | None):
    return connection.ops.adapt_datetimefield_value(moment)


def _slot_take(host: str, *, slots: int, owner: str, now: datetime.datetime) -> bool:
    """Take one of the host's free slots for `owner`; False if none is free."""
    busy_until = now + _lease_length()
    if slots == 1:
        # Most hosts have one slot: taken on the condition that it is free.
        return _run(_TAKE_ONE, [owner, _when(busy_until), host, _when(now), _when(now)]) == 1
    free = (Q(busy_until__isnull=True) | Q(busy_until__lte=now)) & (
        Q(next_request_at__isnull=True) | Q(next_request_at__lte=now)
    )
    candidates = FetchHost.objects.filter(free, host=host, slot__lt=slots)
    for _ in range(slots):
        # One statement: the first free slot, taken on the condition that it
        # is still free, so two workers that pick the same slot cannot both
        # have it (the loser tries the next one; with none free, each try is
        # an UPDATE of no row).
        first_free = candidates.order_by("slot").values("id")[:1]
        taken = candidates.filter(id__in=Subquery(first_free))
        if taken.update(busy_owner=owner, busy_until=busy_until):
            return True
    return False


def host_release(*, host: str, owner: str, finished_at: datetime.datetime) -> None:
    """Free our slot of the host; the next request in it may go after the host's gap."""
    hosts_release([(host, owner, finished_at)])


def hosts_release(releases: Iterable[tuple[str, str, datetime.datetime]]) -> None:
    """`host_release` for each (host, owner, finished_at): one `executemany`, in host order.

    In the order of the hosts' keys, as `_start_all` takes them (feed.ingest.batch), so that
    two workers lock the hosts' rows in one order.
    """
    rows = []
    for host, owner, finished_at in sorted(releases):
        gap = host_gap(host)
        rows.append([_when(finished_at + gap) if gap else None, host, owner])
    if rows:
        table = connection.ops.quote_name(FetchHost._meta.db_table)
        with connection.cursor() as cursor:
            cursor.executemany(_RELEASE.format(table=table), rows)
