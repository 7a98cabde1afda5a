"""Stories on the public site: one card per story, its other sources, hot order, related items.

Every function here runs a fixed number of queries whatever the page holds,
and reads only visible items: a draft never shows among a story's sources.
"""

import math

from django.db.models import Case, Count, Exists, F, FloatField, OuterRef, Subquery, Sum, When
from django.utils.translation import gettext_lazy as _

from feed.models import Item, ItemQuerySet, TaggedItem
from feed.pages import related_window
from feed.views.common import BadParameters
from stories.models import StoryItem

SORTS = ("latest", "hot")
RELATED_LIMIT = 8


def stream_collapse(queryset: ItemQuerySet, request=None) -> ItemQuerySet:
    """Each story once: drop an item when a better-ranked member of its story is also listed.

    "Listed" means in this very queryset (visible and filtered), so with
    `?source=x` the story shows by x's item, and a draft lead gives way to
    the best visible member.
    """
    better = queryset.order_by().filter(
        story_link__story_id=OuterRef("story_link__story_id"),
        story_link__rank__lt=OuterRef("story_link__rank"),
    )
    return queryset.filter(~Exists(better))


def cards_add_coverage(items: list[Item], request=None) -> None:
    """Give each item `coverage`: the other visible items of its story, lead order (one query)."""
    for item in items:
        item.coverage = []
    ids = [item.pk for item in items]
    if not ids:
        return
    story_ids = StoryItem.objects.filter(item_id__in=ids).values("story_id")
    members = list(
        Item.objects.visible()
        .filter(story_link__story_id__in=Subquery(story_ids))
        .select_related("source")
        .annotate(story_id=F("story_link__story_id"))
        .order_by("story_link__rank", "pk")
    )
    by_story: dict[int, list[Item]] = {}
    story_of: dict[int, int] = {}
    for member in members:
        by_story.setdefault(member.story_id, []).append(member)
        story_of[member.pk] = member.story_id
    for item in items:
        story = story_of.get(item.pk)
        if story is not None:
            item.coverage = [m for m in by_story[story] if m.pk != item.pk]
            item.coverage_sources = len(
                {m.source_id for m in item.coverage if m.source_id != item.source_id}
            )


def stream_sort(request) -> str:
    """The `sort` parameter: "latest" (the default) or "hot"; anything else is a 400."""
    value = request.GET.get("sort", "").strip() or "latest"
    if value not in SORTS:
        raise BadParameters(
            {"sort": [str(_("Sort by one of: %(names)s.") % {"names": ", ".join(SORTS)})]}
        )
    return value


def days_arrange(days: list, request) -> list:
    """With `?sort=hot`, each day's items hottest first (days stay newest first)."""
    if stream_sort(request) == "hot":
        for day in days:
            day.items.sort(key=lambda item: (-item.heat, -item.published_at.timestamp(), -item.pk))
    return days


def tag_weights(tag_ids: list[int], *, among) -> dict[int, float]:
    """How telling each tag is among the items `among`: rarer tags weigh more (1 / log of use)."""
    counts = dict(
        TaggedItem.objects.filter(tag_id__in=tag_ids, content_object_id__in=among)
        .values("tag_id")
        .annotate(n=Count("pk"))
        .values_list("tag_id", "n")
    )
    return {tag: 1.0 / math.log(2 + counts.get(tag, 0)) for tag in tag_ids}


def item_related(item: Item, *, limit: int = RELATED_LIMIT) -> list[Item]:
    """The item's story first (visible members), then items sharing its rarest tags.

    Three queries: the story's members, the tags' weights, the tag matches;
    both counted over the window of items published around it, not the whole site.
    """
    cards_add_coverage([item])
    related = list(item.coverage[:limit])
    tag_ids = [tag.pk for tag in item.tags_sorted()]
    if len(related) >= limit or not tag_ids:
        return related
    window = related_window(item)
    weights = tag_weights(tag_ids, among=window)
    weight = Sum(
        Case(
            *[When(tagged_items__tag_id=tag, then=w) for tag, w in weights.items()],
            default=0.0,
            output_field=FloatField(),
        )
    )
    skip = [item.pk, *(other.pk for other in related)]
    others = (
        Item.objects.visible()
        .filter(pk__in=window, tagged_items__tag_id__in=tag_ids)
        .exclude(pk__in=skip)
        .annotate(weight=weight)
        .order_by("-weight", "-published_at", "-id")
        .select_related("source")[: limit - len(related)]
    )
    return related + list(others)
