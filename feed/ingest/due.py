"""Which sources are due for a fetch, and marking them queued."""

import datetime

from django.db.models import F, Q, QuerySet

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


def sources_claim_due(*, now: datetime.datetime, limit: int = 500) -> list[int]:
    """Mark up to `limit` due sources as queued and return their ids.

    Each is marked by its own conditional UPDATE, so two schedulers running
    at once never queue the same source twice.
    """
    ids = list(sources_due(now=now).values_list("id", flat=True)[:limit])
    return [source_id for source_id in ids if source_mark_queued(source_id=source_id, now=now)]
