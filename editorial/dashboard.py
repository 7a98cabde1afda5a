"""The editors' dashboard on the admin index: what waits, what is coming, what is broken."""

import datetime
from dataclasses import dataclass

from django.db.models import Q, QuerySet
from django.utils import timezone

from aitop.days import today_start
from editorial.models import LogAction
from feed.models import Item, Source

SCHEDULED_SHOWN = 5
FAILING_SHOWN = 10


@dataclass(frozen=True)
class Dashboard:
    drafts: int
    scheduled: int
    next_scheduled: list[Item]
    published_today: int
    featured_today: int
    failing: int
    failing_sources: list[Source]


def sources_failing() -> QuerySet[Source]:
    """Active sources whose last fetch failed, most failures first."""
    return Source.objects.filter(is_active=True).filter(
        Q(consecutive_failures__gt=0) | Q(last_status=Source.Status.FAILED)
    )


def dashboard_build(*, now: datetime.datetime | None = None) -> Dashboard:
    """The dashboard's figures as of `now`, "today" in the site's time zone."""
    now = now or timezone.now()
    today = timezone.localdate(now)
    start = today_start(now)
    scheduled = Item.objects.scheduled(now=now)
    failing = sources_failing()
    return Dashboard(
        drafts=Item.objects.drafts().count(),
        scheduled=scheduled.count(),
        next_scheduled=list(
            scheduled.select_related("source").order_by("published_at", "id")[:SCHEDULED_SHOWN]
        ),
        published_today=Item.objects.visible(now=now).on_day(today).count(),
        # Featured by an editor today and still featured.
        featured_today=Item.objects.featured()
        .filter(log_entries__action=LogAction.FEATURE, log_entries__at__gte=start)
        .distinct()
        .count(),
        failing=failing.count(),
        failing_sources=list(failing.order_by("-consecutive_failures", "name")[:FAILING_SHOWN]),
    )
