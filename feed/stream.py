"""Arranging visible items the way readers scan them: day by day."""

import datetime
import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from django.utils import timezone

from feed.models import Item


@dataclass(frozen=True)
class Day:
    """One day of the stream: its date in the site's time zone and its items."""

    date: datetime.date
    items: list[Item]


def group_by_day(items: Iterable[Item]) -> list[Day]:
    """Group items (already newest first) by their local publish date."""

    def local_date(item: Item) -> datetime.date:
        return timezone.localdate(item.published_at)

    return [Day(date=day, items=list(group)) for day, group in itertools.groupby(items, local_date)]
