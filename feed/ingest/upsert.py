"""Upserting normalised entries into items: new ones become drafts, known ones are refreshed.

The rules, in the order they are applied to each entry:

- an entry is known when its guid is known in its source, or its canonical
  URL is known from any source (the URL is unique across sources: the same
  story from two feeds is one item);
- a known item is refreshed only by its own source, and only in the fields
  the feed owns (title, authors, time, summary, body), never in a field an
  editor has changed (`edited_fields`), never to an empty value, and never in
  its status: a rejected item stays rejected, a published one stays
  published; a live item's text changes only through a proposed revision
  that a chief editor accepts (feed/revisions.py);
- an unknown entry whose URL an editor deleted (a tombstone) stays deleted;
- any other entry becomes a draft with the source's kind, category and
  default tags, the tags of the keyword rules it matches (and arXiv's
  categories), and a heat from the source's weight, raised when other
  sources already carry the same story (same cluster key).

Runs inside the caller's transaction, in batches, with a fixed number of
queries per batch plus one per item whose feed fields changed.
"""

import dataclasses
import datetime
import functools

from django.db import connection
from django.db.models import Count, Field, Q

from feed.ingest import wording
from feed.ingest.keywords import KeywordTagger, keyword_tagger_active
from feed.ingest.normalise import Entry, Skip
from feed.ingest.tagging import items_tag
from feed.ingest.wording import recorded
from feed.models import Item, Source, Tombstone
from feed.revisions import item_refresh_from_source
from feed.signals import items_arrived_on_commit

BATCH_SIZE = 500
# What an item's heat gains for each other source that carries the same story.
HEAT_PER_OTHER_SOURCE = 10
_COMPARED = ("id", "source_id", "guid", "url", "version", "edited_fields", "status")
_FEED_FIELDS = ("title", "authors", "original_published_at", "summary", "body")


@dataclasses.dataclass
class UpsertCounts:
    """What an upsert did with the entries it was given."""

    new: int = 0
    updated: int = 0
    unchanged: int = 0
    skips: list[Skip] = dataclasses.field(default_factory=list)


def items_upsert(
    *,
    source: Source,
    entries: list[Entry],
    now: datetime.datetime,
    tagger: KeywordTagger | None = None,
    origin: str = "feed",
) -> UpsertCounts:
    """Create drafts for new entries and refresh the feed fields of known ones.

    `origin` ("feed" or "import") is what the item's revisions say made a change.
    """
    counts = UpsertCounts()
    if not entries:
        return counts
    tagger = tagger or keyword_tagger_active()
    # .all(): a fetch worker's batch prefetched every source's default tags at once.
    default_tags = [tag.name for tag in source.default_tags.all()]
    for start in range(0, len(entries), BATCH_SIZE):
        _upsert_batch(
            source=source,
            batch=entries[start : start + BATCH_SIZE],
            now=now,
            tagger=tagger,
            default_tags=default_tags,
            counts=counts,
            origin=origin,
        )
    return counts


def _upsert_batch(
    *, source, batch, now, tagger, default_tags, counts: UpsertCounts, origin: str
) -> None:
    urls = [entry.url for entry in batch]
    guids = [entry.guid for entry in batch if entry.guid]
    by_guid, by_url = _items_known(source=source, guids=guids, urls=urls)
    tombstoned = set(Tombstone.objects.filter(url__in=urls).values_list("url", flat=True))

    fresh: list[Entry] = []
    seen_ids: list[int] = []
    handled: set[int] = set()
    for entry in batch:
        item = (by_guid.get(entry.guid) if entry.guid else None) or by_url.get(entry.url)
        if item is None:
            if entry.url in tombstoned:
                counts.skips.append(Skip(recorded(wording.SKIP_DELETED), entry.url))
            else:
                fresh.append(entry)
            continue
        if item.id in handled or item.source_id != source.id:
            # The story is already in, from this entry's twin or another source.
            counts.unchanged += 1
            continue
        handled.add(item.id)
        if _item_refresh(item, entry, source=source, origin=origin, now=now):
            counts.updated += 1
        else:
            counts.unchanged += 1
            seen_ids.append(item.id)
    if seen_ids:
        Item.objects.filter(id__in=seen_ids).update(fetched_at=now)
    if fresh:
        _items_create(
            source=source,
            entries=fresh,
            now=now,
            tagger=tagger,
            default_tags=default_tags,
            counts=counts,
        )


def items_maybe_known(*, source: Source, guids: list[str], urls: list[str]):
    """Items with one of these guids in this source or one of these URLs: two index ranges."""
    # guid != "" is the unique guid index's own condition: SQLite uses a
    # partial index only when the query states its WHERE clause.
    in_source = Q(~Q(guid=""), source=source, guid__in=guids)
    return Item.objects.filter((in_source | Q(url__in=urls)) if guids else Q(url__in=urls))


def _items_known(
    *, source: Source, guids: list[str], urls: list[str]
) -> tuple[dict[str, Item], dict[str, Item]]:
    """The items these entries may be, by guid (in this source) and by URL (in any); one query."""
    known = items_maybe_known(source=source, guids=guids, urls=urls)
    wanted_guids, wanted_urls = set(guids), set(urls)
    by_guid, by_url = {}, {}
    for item in known.only(*_COMPARED, *_FEED_FIELDS):
        # Found by one condition, an item may meet the other by chance: each
        # map holds only what it was asked for.
        if item.source_id == source.id and item.guid in wanted_guids:
            by_guid[item.guid] = item
        if item.url in wanted_urls:
            by_url[item.url] = item
    return by_guid, by_url


def _feed_values(entry: Entry) -> dict:
    values = {
        "title": entry.title,
        "authors": entry.authors,
        "summary": entry.summary,
        "body": entry.body,
    }
    # A time that stands in for a missing date must not move the item every fetch.
    if entry.published_from_feed:
        values["original_published_at"] = entry.published_at
    return values


def _item_refresh(item: Item, entry: Entry, *, source: Source, origin: str, now) -> bool:
    """Apply the feed's changes, or propose them for a live item (feed/revisions.py)."""
    return item_refresh_from_source(
        item=item, values=_feed_values(entry), origin=origin, by_name=source.slug, now=now
    )


# Columns whose Python value is what the ORM sends the driver (text, integers,
# foreign keys): preparing 25 columns field by field was a third of an insert.
_PLAIN_TYPES = {
    "CharField",
    "TextField",
    "ForeignKey",
    "PositiveSmallIntegerField",
    "PositiveIntegerField",
}


@functools.cache
def _plain_columns() -> frozenset[str]:
    return frozenset(
        field.attname
        for field in Item._meta.concrete_fields
        if field.get_internal_type() in _PLAIN_TYPES and type(field).pre_save is Field.pre_save
    )


def _items_insert(items: list[Item]) -> list[Item]:
    """INSERT new items, one statement per BATCH_SIZE; the items written, with their ids.

    An item whose URL (or guid in its source) another worker wrote a moment
    ago is skipped (ON CONFLICT DO NOTHING) and left out of what is returned:
    the story is in, and one conflict costs neither the other items nor a
    savepoint around every insert.

    What bulk_create does, without the per-value SQL it builds for each of an
    item's two dozen columns: at 10,000 entries that compiling was most of
    the upsert's time (docs/ingestion.md). Values are prepared by each
    field's own pre_save/get_db_prep_save, so defaults, auto_now and JSON
    columns are written as the ORM would write them; RETURNING gives each
    written row's id with its URL, which is unique.
    """
    fields = [field for field in Item._meta.concrete_fields if not field.primary_key]
    plain = _plain_columns()
    quote = connection.ops.quote_name
    table = quote(Item._meta.db_table)
    columns = ", ".join(quote(field.column) for field in fields)
    returning = f"{quote(Item._meta.pk.column)}, {quote('url')}"
    written = []
    for start in range(0, len(items), BATCH_SIZE):
        chunk = items[start : start + BATCH_SIZE]
        rows = [
            [
                getattr(item, field.attname)
                if field.attname in plain
                else field.get_db_prep_save(field.pre_save(item, True), connection)
                for field in fields
            ]
            for item in chunk
        ]
        if connection.vendor == "postgresql":
            # One array a column (as bulk_create does on PostgreSQL): a
            # statement of 25 parameters, where 500 rows of VALUES made
            # 12,500, and psycopg's splitting and quoting of that statement
            # was two thirds of the insert's time.
            arrays = ", ".join(
                f"(%s)::{field.db_type(connection).split('(')[0]}[]" for field in fields
            )
            sql = f"INSERT INTO {table} ({columns}) SELECT * FROM unnest({arrays})"  # noqa: S608
            params = [list(column) for column in zip(*rows, strict=True)]
        else:
            row = "(" + ", ".join(["%s"] * len(fields)) + ")"
            sql = f"INSERT INTO {table} ({columns}) VALUES {', '.join([row] * len(chunk))}"  # noqa: S608
            params = [value for values in rows for value in values]
        with connection.cursor() as cursor:
            # Table and column names come from the model, never from a feed.
            cursor.execute(f"{sql} ON CONFLICT DO NOTHING RETURNING {returning}", params)
            ids = {url: pk for pk, url in cursor.fetchall()}
        for item in chunk:
            if item.url in ids:
                item.pk = ids[item.url]
                item._state.adding = False
                item._state.db = connection.alias
                written.append(item)
    return written


def _heat(*, source: Source, others: int) -> int:
    return max(0, min(100, source.weight + HEAT_PER_OTHER_SOURCE * others))


def cluster_other_sources(keys, *, source: Source):
    """(cluster key, how many other sources have it) for these keys: one index range each."""
    return (
        # The ~Q term is the partial index's own condition, written out: SQLite
        # uses a partial index only when the query states its WHERE clause.
        Item.objects.filter(~Q(cluster_key=""), cluster_key__in=keys)
        .exclude(source=source)
        .values("cluster_key")
        .annotate(sources=Count("source", distinct=True))
        .values_list("cluster_key", "sources")
    )


def _items_create(*, source, entries, now, tagger, default_tags, counts: UpsertCounts) -> None:
    keys = {entry.cluster_key for entry in entries if entry.cluster_key}
    others = dict(cluster_other_sources(keys, source=source))
    items = [
        Item(
            source=source,
            title=entry.title,
            url=entry.url,
            guid=entry.guid,
            authors=entry.authors,
            original_published_at=entry.published_at,
            summary=entry.summary,
            body=entry.body,
            kind=source.kind,
            category=source.default_category,
            status=Item.Status.DRAFT,
            heat=_heat(source=source, others=others.get(entry.cluster_key, 0)),
            cluster_key=entry.cluster_key,
            fetched_at=now,
        )
        # In URL order: two workers inserting overlapping batches then take the
        # unique index's locks in the same order and wait, instead of deadlocking.
        for entry in sorted(entries, key=lambda entry: entry.url)
    ]
    created = _items_insert(items)
    # What another worker wrote a moment ago is known now.
    counts.unchanged += len(items) - len(created)
    counts.new += len(created)
    if created:
        items_arrived_on_commit([item.pk for item in created])
    entry_by_url = {entry.url: entry for entry in entries}
    pairs = []
    for item in created:
        entry = entry_by_url[item.url]
        names = dict.fromkeys(
            [*default_tags, *entry.tags, *tagger.tags_for(entry.title, entry.summary)]
        )
        pairs.extend((item.pk, name) for name in names)
    items_tag(pairs)
