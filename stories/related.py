"""The item page's related items: its story's visible members, then items sharing its rarest tags.

Three queries at most whatever the site's size: the story's members; the
items of a window of visible items published around the item
(`feed.pages.RELATED_WINDOW`), not the whole site, that carry one of its
tags, which give both the tags' weights and the ranking; and the few chosen,
with their sources. Plain SQL written once from the models' names: building
the window through the ORM (a union of two ranges of the stream index) cost
about 3 ms of CPU on every cold item page (docs/benchmarks.md).
"""

import functools
import math
from collections import Counter, defaultdict

from django.db import connection
from django.utils import timezone

from feed.models import Item, Source, TaggedItem, visible_params, visible_sql
from feed.pages import RELATED_WINDOW
from feed.sql import column, in_values, prepared_cursor, table, values_converted
from stories.site import MEMBER_FIELDS, cards_add_coverage, member_from_row

RELATED_LIMIT = 8


@functools.cache
def _window_sql(vendor: str) -> str:
    """(id, publication) of RELATED_WINDOW visible items around a moment: half before, half after.

    Its parameters are `_window_params`: for each half the visibility rule's, then the moment.
    Each half is a derived table, as SQLite allows no LIMIT inside a UNION. Both
    columns come from the stream index: the window was an `id IN (…)` read
    again through the primary key, 500 look-ups more (docs/benchmarks.md).
    """

    item_id, published = column(Item, "id", "v"), column(Item, "published_at", "v")

    def half(name: str, compare: str, order: str) -> str:
        return (
            f"SELECT * FROM (SELECT {item_id}, {published} FROM {table(Item)} v"  # noqa: S608
            f" WHERE {visible_sql('v')} AND {published} {compare} %%s"
            f" ORDER BY {published} {order}, {item_id} {order} LIMIT {RELATED_WINDOW // 2}) {name}"
        )

    return f"{half('before', '<=', 'DESC')} UNION ALL {half('after', '>', 'ASC')}"


def _window_params(item: Item, now) -> list:
    moment = connection.ops.adapt_datetimefield_value(item.published_at or now)
    return [*visible_params(now), moment] * 2


@functools.cache
def _pairs_sql(vendor: str) -> str:
    """(item, its publication, tag) for each item of the window carrying one of `%(tags)s`."""
    tag, item_id = column(TaggedItem, "tag", "t"), column(Item, "id", "w")
    return (
        f"SELECT {item_id}, {column(Item, 'published_at', 'w')}, {tag}"  # noqa: S608 (model names)
        f" FROM ({_window_sql(vendor)}) w INNER JOIN {table(TaggedItem)} t"
        f" ON {item_id} = {column(TaggedItem, 'content_object', 't')}"
        f" WHERE {tag} IN (%(tags)s)"
    )


def tag_weights(pairs: list[tuple[int, object, int]], tag_ids: list[int]) -> dict[int, float]:
    """How telling each tag is around the item: rarer tags weigh more (1 / log of use)."""
    counts = Counter(tag for _item, _published, tag in pairs)
    return {tag: 1.0 / math.log(2 + counts[tag]) for tag in tag_ids}


def _ranked(pairs, weights: dict[int, float], *, skip: set[int], limit: int) -> list[int]:
    """The ids of the items sharing the most weight, then the newest first."""
    tags: dict[int, list[int]] = defaultdict(list)
    published = {}
    for item_id, moment, tag in pairs:
        if item_id not in skip:
            tags[item_id].append(tag)
            published[item_id] = moment
    # Summed in one order of the tags, so two items with the same tags weigh the same.
    weight = {
        item_id: sum(weights[tag] for tag in sorted(found)) for item_id, found in tags.items()
    }
    return sorted(weight, key=lambda pk: (-weight[pk], -published[pk].timestamp(), -pk))[:limit]


@functools.cache
def _members_by_id_sql(vendor: str) -> str:
    fields = ", ".join(column(Item, field, "i") for field in MEMBER_FIELDS)
    return (
        f"SELECT {fields}, {column(Source, 'name', 's')}"  # noqa: S608 (model names)
        f" FROM {table(Item)} i INNER JOIN {table(Source)} s"
        f" ON {column(Item, 'source', 'i')} = {column(Source, 'id', 's')}"
        f" WHERE {column(Item, 'id', 'i')} %(ids)s"
    )


def _tag_matches(item: Item, tag_ids: list[int], *, skip: set[int], limit: int, now) -> list[Item]:
    """The window's items sharing the most weight of `tag_ids` with `item`, best first.

    The window is read once: its items carrying any of the tags, with their
    publication, give both the tags' weights and the ranking; then the few
    chosen are read with their sources. The ranking was two statements that
    each found the same window (docs/benchmarks.md).
    """
    sql = _pairs_sql(connection.vendor) % {"tags": ", ".join(["%s"] * len(tag_ids))}
    with prepared_cursor() as cursor:
        cursor.execute(sql, [*_window_params(item, now), *tag_ids])
        pairs = [
            (item_id, values_converted(Item, ("published_at",), [moment])[0], tag)
            for item_id, moment, tag in cursor.fetchall()
        ]
    chosen = _ranked(pairs, tag_weights(pairs, tag_ids), skip=skip, limit=limit)
    if not chosen:
        return []
    ids, params = in_values(chosen)
    with prepared_cursor() as cursor:
        cursor.execute(_members_by_id_sql(connection.vendor) % {"ids": ids}, params)
        found = {
            member.pk: member
            for member in (member_from_row(values, name) for *values, name in cursor.fetchall())
        }
    return [found[pk] for pk in chosen]


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
    skip = {item.pk, *(other.pk for other in related)}
    return related + _tag_matches(
        item, tag_ids, skip=skip, limit=limit - len(related), now=timezone.now()
    )
