"""Arranging visible items the way readers scan them: day by day, a few whole days a page.

Paging goes by date (`before=YYYY-MM-DD`), never by OFFSET: each page starts
from an indexed "published before midnight of that day" and reads forward.
"""

import datetime
import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from feed.filters import day_start
from feed.models import Item, ItemQuerySet

# A stream page holds at most this many days, however few items they have.
STREAM_MAX_DAYS = 7
# No page shows more items of one day than this (a day page, or a stream page
# whose first day alone is bigger than the page); the rest is left to filters.
DAY_MAX_ITEMS = 300


@dataclass(frozen=True)
class Day:
    """One day of the stream: its date in the site's time zone and its items."""

    date: datetime.date
    items: list[Item]
    # More items of this day exist than DAY_MAX_ITEMS let us show.
    truncated: bool = False


@dataclass(frozen=True)
class StreamPage:
    """Whole days of a stream, and the `before` date of the next (older) page."""

    days: list[Day]
    older: datetime.date | None


@dataclass(frozen=True)
class DayPage:
    """One day's items, with the nearest older and newer days that have any."""

    day: Day
    older: datetime.date | None
    newer: datetime.date | None


def group_by_day(items: Iterable[Item]) -> list[Day]:
    """Group items (already newest first) by their local publish date."""

    def local_date(item: Item) -> datetime.date:
        # A draft has no publish time yet: previewed, it sits on today.
        return timezone.localdate(item.published_at) if item.published_at else timezone.localdate()

    return [Day(date=day, items=list(group)) for day, group in itertools.groupby(items, local_date)]


def _capped_days(items: list[Item]) -> list[Day]:
    """Group, and mark the last day as cut when the query hit DAY_MAX_ITEMS."""
    days = group_by_day(items[:DAY_MAX_ITEMS])
    if len(items) > DAY_MAX_ITEMS:
        days[-1] = Day(date=days[-1].date, items=days[-1].items, truncated=True)
    return days


def stream_page(
    queryset: ItemQuerySet,
    *,
    before: datetime.date | None = None,
    max_items: int | None = None,
    max_days: int = STREAM_MAX_DAYS,
) -> StreamPage:
    """The newest whole days of `queryset` (visible, filtered) before the day `before`.

    Two reads, whatever the data: the publish times of the next `max_items`
    items tell which days fit whole on the page; then the cards of exactly
    those days. A first day bigger than the page is shown alone.
    """
    max_items = max_items or settings.AITOP_STREAM_PAGE_ITEMS
    if before is not None:
        queryset = queryset.before(day_start(before))
    ordered = queryset.newest_first()
    moments = list(ordered.values_list("published_at", flat=True)[: max_items + 1])
    if not moments:
        return StreamPage(days=[], older=None)
    dates = list(dict.fromkeys(timezone.localdate(moment) for moment in moments))
    if len(moments) <= max_items:
        # Everything that is left fits: every day seen is whole.
        kept, has_older = dates[:max_days], len(dates) > max_days
    elif len(dates) > 1:
        # The last day seen may go on beyond the moments read: leave it for later.
        kept, has_older = dates[:-1][:max_days], True
    else:
        kept, has_older = dates, None
    oldest = kept[-1]
    newest_next = kept[0] + datetime.timedelta(days=1)
    items = list(
        ordered.filter(
            published_at__gte=day_start(oldest), published_at__lt=day_start(newest_next)
        ).for_cards()[: DAY_MAX_ITEMS + 1]
    )
    if has_older is None:
        has_older = queryset.before(day_start(oldest)).exists()
    return StreamPage(days=_capped_days(items), older=oldest if has_older else None)


def day_page(queryset: ItemQuerySet, *, day: datetime.date) -> DayPage:
    """Every item of `queryset` published on `day`, and where the neighbouring days are."""
    start, end = day_start(day), day_start(day + datetime.timedelta(days=1))
    items = list(
        queryset.filter(published_at__gte=start, published_at__lt=end)
        .newest_first()
        .for_cards()[: DAY_MAX_ITEMS + 1]
    )
    older = queryset.before(start).newest_first().values_list("published_at", flat=True).first()
    newer = (
        queryset.filter(published_at__gte=end)
        .order_by("published_at", "id")
        .values_list("published_at", flat=True)
        .first()
    )
    days = _capped_days(items)
    return DayPage(
        day=days[0] if days else Day(date=day, items=[]),
        older=timezone.localdate(older) if older else None,
        newer=timezone.localdate(newer) if newer else None,
    )
