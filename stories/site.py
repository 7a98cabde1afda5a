"""Stories on the public site: one card per story, its other sources, hot order, related items.

Every function here runs a fixed number of queries whatever the page holds,
and reads only visible items: a draft never shows among a story's sources.
"""

import functools

from django.db import connection
from django.db.models import Exists, OuterRef
from django.utils.translation import gettext_lazy as _

from feed.models import Item, ItemQuerySet, Source, visible_params, visible_sql
from feed.sql import column, in_values, prepared_cursor, table, values_converted
from feed.views.common import BadParameters
from stories.models import StoryItem

SORTS = ("latest", "hot")


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
    if not items:
        return
    by_story: dict[int, list[Item]] = {}
    story_of: dict[int, int] = {}
    for story_id, member in _story_members([item.pk for item in items]):
        by_story.setdefault(story_id, []).append(member)
        story_of[member.pk] = story_id
    for item in items:
        story = story_of.get(item.pk)
        if story is not None:
            item.coverage = [m for m in by_story[story] if m.pk != item.pk]
            item.coverage_sources = len(
                {m.source_id for m in item.coverage if m.source_id != item.source_id}
            )


# What a story's other members show wherever coverage is listed (a card, an
# item page's related list, the daily brief): the rest of the item is not read.
# In the model's own order, which is the order `Model.from_db` takes values in.
MEMBER_FIELDS = tuple(
    field.attname
    for field in Item._meta.concrete_fields
    if field.attname in {"id", "source_id", "title", "url", "published_at"}
)
_SOURCE_ID = MEMBER_FIELDS.index("source_id")


@functools.cache
def _members_sql(vendor: str) -> str:
    """The visible members of the stories of the items `%(ids)s`, lead order (model names)."""
    links, items, sources = (table(m) for m in (StoryItem, Item, Source))
    fields = ", ".join(column(Item, field) for field in MEMBER_FIELDS)
    own_stories = (
        f"SELECT {column(StoryItem, 'story', 'own')} FROM {links} own"  # noqa: S608 (model names)
        f" WHERE {column(StoryItem, 'item', 'own')} %(ids)s"
    )
    return (
        f"SELECT {column(StoryItem, 'story')}, {fields}, {column(Source, 'name')}"  # noqa: S608
        f" FROM {links}"
        f" INNER JOIN {items} ON {column(StoryItem, 'item')} = {column(Item, 'id')}"
        f" INNER JOIN {sources} ON {column(Item, 'source')} = {column(Source, 'id')}"
        f" WHERE {column(StoryItem, 'story')} IN ({own_stories})"
        f" AND {visible_sql()}"
        f" ORDER BY {column(StoryItem, 'rank')}, {column(Item, 'id')}"
    )


def _story_members(ids: list[int]) -> list[tuple[int, Item]]:
    """(story id, member) for every visible member of the stories of `ids`, in lead order.

    Plain SQL written once: the ORM's statement (a subquery, the visibility
    rule, a join for the source, an annotation) cost ten times what the
    database took to answer it, on every page of cards, even when no item of
    the page is in a story (docs/benchmarks.md). The members are items with
    only the fields coverage shows loaded (any other is read on access, as
    with `.only()`), each with its source's name.
    """
    in_ids, params = in_values(ids)
    sql = _members_sql(connection.vendor) % {"ids": in_ids}
    with prepared_cursor() as cursor:
        cursor.execute(sql, [*params, *visible_params()])
        rows = cursor.fetchall()
    return [
        (story_id, member_from_row(values, source_name)) for story_id, *values, source_name in rows
    ]


def member_from_row(values: list, source_name: str) -> Item:
    """An item from the values of MEMBER_FIELDS (in that order) and its source's name."""
    values = values_converted(Item, MEMBER_FIELDS, values)
    member = Item.from_db(connection.alias, MEMBER_FIELDS, values)
    source = [values[_SOURCE_ID], source_name]
    member.source = Source.from_db(connection.alias, ("id", "name"), source)
    return member


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
