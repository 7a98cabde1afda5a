"""Tagging many items at once, in a fixed number of queries.

taggit's `item.tags.add()` costs several queries per item; a fetch of
thousands of entries tags them here instead: the tags are looked up (and the
missing ones created) once, then every item-tag row is inserted in bulk.
"""

from collections.abc import Iterable

from django.db import IntegrityError, connection, transaction
from taggit.models import Tag

from feed.models import TaggedItem


def tags_by_name(names: Iterable[str]) -> dict[str, Tag]:
    """The Tag for each name, created if missing; an existing tag of another case is reused."""
    wanted = {name.strip() for name in names if name and name.strip()}
    found = {tag.name: tag for tag in Tag.objects.filter(name__in=wanted)}
    for name in wanted - found.keys():
        tag = Tag.objects.filter(name__iexact=name).first()
        if tag is None:
            try:
                with transaction.atomic():
                    tag = Tag.objects.create(name=name)
            except IntegrityError:
                # Another worker created it a moment ago.
                tag = Tag.objects.get(name=name)
        found[name] = tag
    return found


def items_tag(pairs: Iterable[tuple[int, str]]) -> int:
    """Give items tags, from (item id, tag name) pairs; returns how many rows were new."""
    pairs = list(pairs)
    if not pairs:
        return 0
    tags = tags_by_name(name for _, name in pairs)
    wanted = {(item_id, tags[name.strip()].pk) for item_id, name in pairs if name.strip()}
    existing = set(
        TaggedItem.objects.filter(
            content_object_id__in={item_id for item_id, _ in wanted},
            tag_id__in={tag_id for _, tag_id in wanted},
        ).values_list("content_object_id", "tag_id")
    )
    rows = sorted(wanted - existing)
    if rows:
        # Two integers a row: plain executemany, a fraction of what the ORM's
        # bulk_create spends preparing model instances for thousands of rows.
        # A row another worker inserted meanwhile is skipped (same as
        # bulk_create's ignore_conflicts, on SQLite and PostgreSQL alike).
        meta = TaggedItem._meta
        quote = connection.ops.quote_name
        item_column = meta.get_field("content_object").column
        tag_column = meta.get_field("tag").column
        with connection.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO {quote(meta.db_table)} ({quote(item_column)}, {quote(tag_column)}) "  # noqa: S608 (names from the model)
                "VALUES (%s, %s) ON CONFLICT DO NOTHING",
                rows,
            )
    return len(rows)
