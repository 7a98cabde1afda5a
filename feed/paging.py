"""Arranging visible items the way readers scan them: newest first, a page of cards, by day.

A page holds at most `AITOP_STREAM_PAGE_ITEMS` cards and ends with a keyset
cursor, the (publish time, id) of its last card: the next page is "older than
that", an index range however deep the reader goes. Never OFFSET, never a
COUNT of everything. A day that a page boundary cuts is marked as continued
on the next page, and as going on at the end of this one.
"""

import datetime
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.utils import timezone

from aitop.days import day_start
from feed.models import Item, ItemQuerySet
from feed.sql import values_converted

# What a card, its cache key and the stories' hooks read of an item and its source.
# Not the article's body, which a feed's full text makes the biggest column by
# far (with 22 KB bodies a cold stream read 1.1 MB more and took 1.5-2 ms
# longer), nor the review and ingestion columns: each column loaded is a
# conversion and an attribute on 51 items and their sources (docs/benchmarks.md).
CARD_FIELDS = (
    *("id", "source_id", "title", "summary", "recommendation", "authors"),
    *("kind", "category", "status", "heat", "published_at", "version", "updated_at"),
    *("source__id", "source__slug", "source__name", "source__handle"),
)

_CURSOR = re.compile(r"^(\d{8}T\d{12})Z-(\d{1,18})$")


@dataclass(frozen=True)
class Cursor:
    """A place in the stream: everything strictly older than this (publish time, id)."""

    published_at: datetime.datetime
    id: int

    @classmethod
    def after(cls, item: Item) -> "Cursor":
        return cls(published_at=item.published_at, id=item.pk)

    @classmethod
    def parse(cls, token: str) -> "Cursor":
        """Read a token made by `token()`; ValueError when it is not one."""
        match = _CURSOR.match(token)
        if match is None:
            raise ValueError(token)
        moment = datetime.datetime.strptime(match[1], "%Y%m%dT%H%M%S%f")
        return cls(published_at=moment.replace(tzinfo=datetime.UTC), id=int(match[2]))

    def token(self) -> str:
        """E.g. 20260620T040000000000Z-123: the UTC publish time to the microsecond, then the id."""
        utc = self.published_at.astimezone(datetime.UTC)
        return f"{utc:%Y%m%dT%H%M%S%f}Z-{self.id}"


@dataclass(frozen=True)
class Day:
    """One day of the stream: its date in the site's time zone and its items on this page."""

    date: datetime.date
    items: list[Item]
    # The previous page already showed newer items of this day.
    continued: bool = False
    # The next page shows older items of this day.
    continues: bool = False


@dataclass(frozen=True)
class StreamPage:
    """A page of cards by day, and the cursor of the next (older) page, if any."""

    days: list[Day]
    older: Cursor | None


def local_date(item: Item) -> datetime.date:
    """The item's publish date in the site's time zone (a draft, previewed, sits on today)."""
    return timezone.localdate(item.published_at) if item.published_at else timezone.localdate()


def group_by_day(items: Iterable[Item]) -> list[Day]:
    """Group items (already newest first) by their local publish date."""
    return [Day(date=day, items=list(group)) for day, group in itertools.groupby(items, local_date)]


def older_than(queryset: ItemQuerySet, cursor: Cursor) -> ItemQuerySet:
    """Items strictly older than `cursor` in (publish time, id) order.

    Written as "published at or before, and not the same moment with a higher
    id" so the first part is a range of the stream index and the second only
    trims its first few rows.
    """
    return queryset.filter(published_at__lte=cursor.published_at).exclude(
        published_at=cursor.published_at, id__gte=cursor.id
    )


def stream_page(
    queryset: ItemQuerySet,
    *,
    before: Cursor | datetime.date | None = None,
    max_items: int | None = None,
) -> StreamPage:
    """The newest `max_items` cards of `queryset` (visible, filtered) older than `before`.

    `before` is a cursor of a previous page, or a date (the old day links:
    everything before that day's midnight). One read of the cards, one more
    than fits telling whether an older page exists.
    """
    max_items = max_items or settings.AITOP_STREAM_PAGE_ITEMS
    if isinstance(before, Cursor):
        queryset = older_than(queryset, before)
        continued_date = timezone.localdate(before.published_at)
    elif before is not None:
        queryset = queryset.before(day_start(before))
        continued_date = None
    else:
        continued_date = None
    items = list(queryset.newest_first().for_cards().only(*CARD_FIELDS)[: max_items + 1])
    more = len(items) > max_items
    shown = items[:max_items]
    days = group_by_day(shown)
    if days and days[0].date == continued_date:
        days[0] = Day(date=days[0].date, items=days[0].items, continued=True, continues=False)
    if more and days and local_date(items[max_items]) == days[-1].date:
        last = days[-1]
        days[-1] = Day(date=last.date, items=last.items, continued=last.continued, continues=True)
    return StreamPage(days=days, older=Cursor.after(shown[-1]) if more else None)


def neighbour_days(
    queryset: ItemQuerySet, *, day: datetime.date
) -> tuple[datetime.date | None, datetime.date | None]:
    """The nearest older and newer days than `day` that have items (two index reads, one query).

    Each side is the ORM's own one-row statement (filters, visibility and
    all); they are sent as the two columns of one SELECT, so a day page asks
    once where it asked twice.
    """
    start, end = day_start(day), day_start(day + datetime.timedelta(days=1))
    older = queryset.before(start).newest_first().values("published_at")[:1]
    newer = queryset.filter(published_at__gte=end).order_by("published_at", "id")
    newer = newer.values("published_at")[:1]
    try:
        older_sql, older_params = older.query.sql_with_params()
        newer_sql, newer_params = newer.query.sql_with_params()
    except EmptyResultSet:
        return None, None  # filtered to nothing (an unknown tag): no query at all
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(f"SELECT ({older_sql}), ({newer_sql})", [*older_params, *newer_params])
        moments = values_converted(Item, ("published_at", "published_at"), list(cursor.fetchone()))
    return tuple(timezone.localdate(moment) if moment else None for moment in moments)


def on_day(queryset: ItemQuerySet, *, day: datetime.date) -> ItemQuerySet:
    """The items of `queryset` published on `day` in the site's time zone."""
    start, end = day_start(day), day_start(day + datetime.timedelta(days=1))
    return queryset.filter(published_at__gte=start, published_at__lt=end)


def recent_item_ids(*, window: int | None = None):
    """The ids of the newest `window` items of any status (default AITOP_FACET_WINDOW), by id."""
    return Item.objects.order_by("-pk").values("pk")[: window or settings.AITOP_FACET_WINDOW]
