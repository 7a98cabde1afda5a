"""Which sources are due for a fetch, marking them queued, and the queue's depth and lag."""

import dataclasses
import datetime

from django.conf import settings
from django.db.models import Count, F, Min, Q, QuerySet
from django.db.models.functions import Coalesce

from feed.ingest.leases import lease_free_q, source_mark_queued
from feed.models import Source


def sources_due(*, now: datetime.datetime) -> QuerySet[Source]:
    """Active sources with a feed whose next fetch has come and that no worker holds.

    Never-fetched sources come first, then the longest overdue.
    """
    return (
        Source.objects.filter(is_active=True)
        .exclude(feed_url="")
        .filter(Q(next_fetch_at__isnull=True) | Q(next_fetch_at__lte=now))
        .filter(lease_free_q(now))
        .order_by(F("next_fetch_at").asc(nulls_first=True), "id")
    )


def sources_soon_due(*, now: datetime.datetime, within: float = 5.0) -> bool:
    """Whether a source is due within `within` seconds or is being fetched right now."""
    soon = now + datetime.timedelta(seconds=within)
    return (
        Source.objects.filter(is_active=True)
        .exclude(feed_url="")
        .filter(
            Q(next_fetch_at__isnull=True) | Q(next_fetch_at__lte=soon) | Q(lease_expires_at__gt=now)
        )
        .exists()
    )


def sources_next_due_at(*, now: datetime.datetime) -> datetime.datetime | None:
    """When the next active source falls due after `now`; None if none is scheduled.

    A worker with nothing to do sleeps until then rather than a whole
    interval, so a source is fetched when it falls due, not up to
    AITOP_FETCH_SCHEDULER_INTERVAL later. One read of source_due_idx.
    """
    return (
        Source.objects.filter(is_active=True, next_fetch_at__gt=now)
        .exclude(feed_url="")
        .aggregate(next_due=Min("next_fetch_at"))["next_due"]
    )


def idle_seconds(*, now: datetime.datetime, longest: float) -> float:
    """How long a worker with nothing due waits: until the next source is due, `longest` at most."""
    next_due = sources_next_due_at(now=now)
    if next_due is None:
        return longest
    # A moment past it: a source is claimed once its time is <= now.
    return min(longest, (next_due - now).total_seconds() + 0.001)


def sources_claim_due(*, now: datetime.datetime, limit: int = 500) -> list[int]:
    """Mark up to `limit` due sources as queued and return their ids.

    Each is marked by its own conditional UPDATE, so two schedulers running
    at once never queue the same source twice.
    """
    ids = list(sources_due(now=now).values_list("id", flat=True)[:limit])
    return [source_id for source_id in ids if source_mark_queued(source_id=source_id, now=now)]


@dataclasses.dataclass(frozen=True)
class FetchQueue:
    """The fetch queue at a moment: what is due, what is in flight, how late the oldest is."""

    active: int  # active sources with a feed
    due: int  # due now and free to claim
    fetching: int  # held by a worker (or queued for one) right now
    due_next_hour: int  # not due yet, but within the hour
    failing: int  # AITOP_FETCH_FAILING_AFTER failures in a row or more
    lag: datetime.timedelta | None  # how long the most overdue source has waited


def fetch_queue(*, now: datetime.datetime) -> FetchQueue:
    """The queue's depth and lag, in one aggregate query (admin and `fetch_status`)."""
    due = Q(next_fetch_at__isnull=True) | Q(next_fetch_at__lte=now)
    held = Q(lease_expires_at__gt=now)
    # A never-fetched source has waited since it was added.
    waiting_since = Coalesce("next_fetch_at", "created_at")
    row = (
        Source.objects.filter(is_active=True)
        .exclude(feed_url="")
        .aggregate(
            active=Count("id"),
            due=Count("id", filter=due & ~held),
            fetching=Count("id", filter=held),
            due_next_hour=Count(
                "id",
                filter=Q(
                    next_fetch_at__gt=now, next_fetch_at__lte=now + datetime.timedelta(hours=1)
                )
                & ~held,
            ),
            failing=Count("id", filter=Q(consecutive_failures__gte=settings.FETCH_FAILING_AFTER)),
            oldest=Min(waiting_since, filter=due & ~held),
        )
    )
    oldest = row.pop("oldest")
    return FetchQueue(**row, lag=max(now - oldest, datetime.timedelta(0)) if oldest else None)
