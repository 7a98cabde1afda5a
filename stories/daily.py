"""The daily brief: a day's top stories by heat, one card per story, editors may pin or drop."""

import dataclasses
import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from feed.freshness import generation_bump
from feed.models import Item
from stories.models import BriefChoice
from stories.site import cards_add_coverage, stream_collapse


@dataclasses.dataclass(frozen=True)
class Brief:
    day: datetime.date
    items: list[Item]


def brief_size() -> int:
    return settings.AITOP_DAILY_BRIEF_SIZE


def daily_brief(*, day: datetime.date, now: datetime.datetime | None = None) -> Brief:
    """The day's stories: pinned ones first, then the hottest; dropped ones never (3 queries)."""
    choices = BriefChoice.objects.filter(day=day, item=OuterRef("pk"))
    items = list(
        stream_collapse(Item.objects.visible(now=now).on_day(day))
        .exclude(Exists(choices.filter(choice=BriefChoice.Choice.DROP)))
        .annotate(pinned=Exists(choices.filter(choice=BriefChoice.Choice.PIN)))
        .order_by("-pinned", "-heat", "-published_at", "-id")
        .for_cards()[: brief_size()]
    )
    cards_add_coverage(items)
    return Brief(day=day, items=items)


def brief_choose(*, day: datetime.date, item: Item, choice: str | None, by) -> None:
    """Pin an item into `day`'s brief, drop it, or (None) leave it to heat again."""
    if not (by is not None and by.is_active and by.has_perm("stories.add_briefchoice")):
        from editorial.errors import NotPermitted

        raise NotPermitted("You are not allowed to change the daily brief.")
    with transaction.atomic():
        BriefChoice.objects.filter(day=day, item=item).delete()
        if choice is not None:
            BriefChoice.objects.create(day=day, item=item, choice=choice)
        generation_bump()  # the brief's page and feeds change


def local_day(moment: datetime.datetime | None) -> datetime.date:
    return timezone.localdate(moment) if moment else timezone.localdate()
