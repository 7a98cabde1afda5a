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

from feed.ingest import wording
from feed.ingest.insert import items_insert_new, items_known, items_seen
from feed.ingest.keywords import KeywordTagger, keyword_tagger_active
from feed.ingest.normalise import Entry, Skip
from feed.ingest.tagging import items_tag
from feed.ingest.wording import recorded
from feed.models import Item, Source
from feed.revisions import item_refresh_from_source
from feed.signals import items_arrived_on_commit

BATCH_SIZE = 500


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
    # .all(): a fetch worker's batch prefetched every source's default tags at
    # once (read through the tag rows: taggit's own prefetch built a query a source).
    default_tags = [tagged.tag.name for tagged in source.tagged_sources.all()]
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
    by_guid, by_url, tombstoned = _items_known(source=source, guids=guids, urls=urls)

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
        items_seen(item_ids=seen_ids, fetched_at=now)
    if fresh:
        _items_create(
            source=source,
            entries=fresh,
            now=now,
            tagger=tagger,
            default_tags=default_tags,
            counts=counts,
        )


def _items_known(
    *, source: Source, guids: list[str], urls: list[str]
) -> tuple[dict[str, Item], dict[str, Item], set[str]]:
    """The items these entries may be, by guid and by URL, and the tombstoned URLs: one query.

    By guid in this source, by URL in any.
    """
    known, tombstoned = items_known(source=source, guids=guids, urls=urls)
    wanted_guids, wanted_urls = set(guids), set(urls)
    by_guid, by_url = {}, {}
    for item in known:
        # Found by one condition, an item may meet the other by chance: each
        # map holds only what it was asked for.
        if item.source_id == source.id and item.guid in wanted_guids:
            by_guid[item.guid] = item
        if item.url in wanted_urls:
            by_url[item.url] = item
    return by_guid, by_url, tombstoned


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


def _items_create(*, source, entries, now, tagger, default_tags, counts: UpsertCounts) -> None:
    """New drafts for these entries: one INSERT (feed/ingest/insert.py), then their tags."""
    ids = items_insert_new(source=source, entries=entries, fetched_at=now)
    # What another worker wrote a moment ago is known now.
    counts.unchanged += len(entries) - len(ids)
    counts.new += len(ids)
    if ids:
        items_arrived_on_commit(sorted(ids.values()))
    pairs = []
    for entry in entries:
        if entry.url in ids:
            names = dict.fromkeys(
                [*default_tags, *entry.tags, *tagger.tags_for(entry.title, entry.summary)]
            )
            pairs.extend((ids[entry.url], name) for name in names)
    items_tag(pairs)
