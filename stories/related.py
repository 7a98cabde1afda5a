"""The item page's related items: its story's visible members, then items sharing its rarest tags.

Three queries whatever the site's size: the story's members, the tags'
weights and the tag matches, both counted over a window of visible items
published around the item (`feed.pages.RELATED_WINDOW`), not the whole site.
The last two are plain SQL written once from the models' names, as the
ORM wrote them: building them through the ORM (a union of two ranges of the
stream index, twice, and a weighted sum) cost about 3 ms of CPU on every cold
item page, more than half of the page's own work (docs/benchmarks.md).
"""

import functools
import math

from django.db import connection
from django.utils import timezone

from feed.models import Item, Source, TaggedItem, visible_params, visible_sql
from feed.pages import RELATED_WINDOW
from feed.sql import column, table
from stories.site import MEMBER_FIELDS, cards_add_coverage, member_from_row

RELATED_LIMIT = 8


@functools.cache
def _window_sql(vendor: str) -> str:
    """The ids of RELATED_WINDOW visible items around a moment: half before, half after.

    Its parameters are `_window_params`: for each half the visibility rule's, then the moment.
    Each half is wrapped in its own IN, as SQLite allows no LIMIT inside a UNION.
    """

    outer_id, inner_id = column(Item, "id", "w"), column(Item, "id", "v")
    published = column(Item, "published_at", "v")

    def half(compare: str, order: str) -> str:
        return (
            f"SELECT {outer_id} FROM {table(Item)} w"  # noqa: S608 (model names)
            f" WHERE {outer_id} IN (SELECT {inner_id} FROM {table(Item)} v"
            f" WHERE {visible_sql('v')} AND {published} {compare} %%s"
            f" ORDER BY {published} {order}, {inner_id} {order} LIMIT {RELATED_WINDOW // 2})"
        )

    return f"{half('<=', 'DESC')} UNION ALL {half('>', 'ASC')}"


def _window_params(item: Item, now) -> list:
    moment = connection.ops.adapt_datetimefield_value(item.published_at or now)
    return [*visible_params(now), moment] * 2


@functools.cache
def _weights_sql(vendor: str) -> str:
    tag, item = column(TaggedItem, "tag", "t"), column(TaggedItem, "content_object", "t")
    return (
        f"SELECT {tag}, COUNT({column(TaggedItem, 'id', 't')})"  # noqa: S608 (model names)
        f" FROM {table(TaggedItem)} t"
        f" WHERE {item} IN ({_window_sql(vendor)}) AND {tag} IN (%(tags)s) GROUP BY {tag}"
    )


def tag_weights(tag_ids: list[int], *, item: Item, now) -> dict[int, float]:
    """How telling each tag is around `item`: rarer tags weigh more (1 / log of use)."""
    sql = _weights_sql(connection.vendor) % {"tags": ", ".join(["%s"] * len(tag_ids))}
    with connection.cursor() as cursor:
        cursor.execute(sql, [*_window_params(item, now), *tag_ids])
        counts = dict(cursor.fetchall())
    return {tag: 1.0 / math.log(2 + counts.get(tag, 0)) for tag in tag_ids}


@functools.cache
def _matches_sql(vendor: str) -> str:
    """Visible items of the window carrying the tags, by summed weight (model names)."""
    fields = ", ".join(column(Item, field, "i") for field in MEMBER_FIELDS)
    tag = column(TaggedItem, "tag", "t")
    return (
        f"SELECT {fields}, {column(Source, 'name', 's')},"  # noqa: S608 (model names)
        f" SUM(CASE %(cases)s ELSE 0.0 END) AS weight"
        f" FROM {table(Item)} i"
        f" INNER JOIN {table(TaggedItem)} t"
        f" ON {column(Item, 'id', 'i')} = {column(TaggedItem, 'content_object', 't')}"
        f" INNER JOIN {table(Source)} s"
        f" ON {column(Item, 'source', 'i')} = {column(Source, 'id', 's')}"
        f" WHERE {visible_sql('i')}"
        f" AND {column(Item, 'id', 'i')} IN ({_window_sql(vendor)})"
        f" AND {tag} IN (%(tags)s) AND NOT ({column(Item, 'id', 'i')} IN (%(skip)s))"
        f" GROUP BY {column(Item, 'id', 'i')}, {column(Source, 'id', 's')}"
        f" ORDER BY weight DESC, {column(Item, 'published_at', 'i')} DESC,"
        f" {column(Item, 'id', 'i')} DESC LIMIT %%s"
    )


def _tag_matches(
    item: Item, weights: dict[int, float], *, skip: list[int], limit: int, now
) -> list[Item]:
    tag = column(TaggedItem, "tag", "t")
    sql = _matches_sql(connection.vendor) % {
        "cases": " ".join(f"WHEN {tag} = %s THEN %s" for _ in weights),
        "tags": ", ".join(["%s"] * len(weights)),
        "skip": ", ".join(["%s"] * len(skip)),
    }
    params = [
        *(value for pair in weights.items() for value in pair),
        *visible_params(now),
        *_window_params(item, now),
        *weights,
        *skip,
        limit,
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [member_from_row(values, source_name) for *values, source_name, _weight in rows]


def item_related(item: Item, *, limit: int = RELATED_LIMIT) -> list[Item]:
    """The item's story first (visible members), then items sharing its rarest tags.

    The members are items with the fields the related list shows loaded
    (any other is read on access), each with its source's name.
    """
    cards_add_coverage([item])
    related = list(item.coverage[:limit])
    tag_ids = [tag.pk for tag in item.tags_sorted()]
    if len(related) >= limit or not tag_ids:
        return related
    now = timezone.now()
    weights = tag_weights(tag_ids, item=item, now=now)
    skip = [item.pk, *(other.pk for other in related)]
    return related + _tag_matches(item, weights, skip=skip, limit=limit - len(related), now=now)
