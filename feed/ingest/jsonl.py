"""Importing items from JSON Lines: one JSON object per line, through the feed pipeline.

Each line names its source by slug and gives the item the way a feed entry
would (so it is normalised, deduplicated, tombstone-checked and tagged
exactly as a fetched one):

    {"source": "openai-blog", "url": "https://…", "title": "…",
     "guid": "…", "authors": ["…"], "published": "2026-06-19T09:50:00+08:00",
     "summary": "…", "body": "<p>…</p>", "tags": ["…"]}

`source`, `url` and `title` (or `summary`) are required. A bad line is
reported with its number and the reason, and the good lines are imported.
"""

import dataclasses
import datetime
import json
from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from feed.ingest.normalise import Skip, entry_normalise
from feed.ingest.parse import RawEntry
from feed.ingest.upsert import UpsertCounts, items_upsert
from feed.models import Source

CHUNK = 500


@dataclasses.dataclass
class ItemsImportResult:
    lines: int = 0
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    # (line number, reason) for lines that were valid but not taken, and bad ones.
    skipped: list[tuple[int, str]] = dataclasses.field(default_factory=list)
    bad: list[tuple[int, str]] = dataclasses.field(default_factory=list)


class _BadLine(ValueError):
    pass


def _text(obj: dict, key: str) -> str:
    value = obj.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _BadLine(f"{key!r} must be a string")
    return value


def _list_of_text(obj: dict, key: str) -> list[str]:
    value = obj.get(key) or []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _BadLine(f"{key!r} must be a string or a list of strings")
    return value


def _published(obj: dict) -> datetime.datetime | None:
    value = _text(obj, "published")
    if not value:
        return None
    try:
        parsed = datetime.datetime.fromisoformat(value)
    except ValueError:
        raise _BadLine("'published' is not an ISO 8601 time") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.UTC)


def _raw_entry(line: str) -> tuple[str, RawEntry]:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError) as error:
        raise _BadLine(f"not JSON: {error}") from None
    if not isinstance(obj, dict):
        raise _BadLine("not a JSON object")
    slug = _text(obj, "source").strip()
    if not slug:
        raise _BadLine("'source' (a source slug) is missing")
    if not _text(obj, "url").strip():
        raise _BadLine("'url' is missing")
    if not (_text(obj, "title").strip() or _text(obj, "summary").strip()):
        raise _BadLine("'title' is missing")
    return slug, RawEntry(
        guid=_text(obj, "guid"),
        link=_text(obj, "url"),
        title=_text(obj, "title"),
        authors=_list_of_text(obj, "authors"),
        published=_published(obj),
        summary=_text(obj, "summary"),
        content=_text(obj, "body"),
        tags=_list_of_text(obj, "tags"),
    )


def items_import_jsonl(
    lines: Iterable[str | bytes], *, now: datetime.datetime | None = None
) -> ItemsImportResult:
    """Import items from JSON Lines; returns what was done, line by line for problems."""
    now = now or timezone.now()
    result = ItemsImportResult()
    sources: dict[str, Source | None] = {}
    pending: list[tuple[int, Source, object]] = []
    for number, line in enumerate(lines, start=1):
        result.lines = number
        if isinstance(line, bytes):
            line = line.decode("utf-8", "replace")
        if not line.strip():
            continue
        try:
            slug, raw = _raw_entry(line)
        except _BadLine as error:
            result.bad.append((number, str(error)))
            continue
        if slug not in sources:
            sources[slug] = Source.objects.filter(slug=slug).first()
        source = sources[slug]
        if source is None:
            result.bad.append((number, f"no source with the slug {slug!r}"))
            continue
        entry = entry_normalise(raw, base_url="", now=now)
        if isinstance(entry, Skip):
            result.skipped.append((number, entry.reason))
            continue
        pending.append((number, source, entry))
        if len(pending) >= CHUNK:
            _flush(pending, now=now, result=result)
    _flush(pending, now=now, result=result)
    return result


def _flush(pending: list, *, now: datetime.datetime, result: ItemsImportResult) -> None:
    by_source: dict[int, tuple[Source, list]] = {}
    for number, source, entry in pending:
        by_source.setdefault(source.pk, (source, []))[1].append((number, entry))
    for source, numbered in by_source.values():
        # Two lines with the same URL: the first one counts.
        seen: set[str] = set()
        entries = []
        for number, entry in numbered:
            if entry.url in seen:
                result.skipped.append((number, "the same item appears on an earlier line"))
                continue
            seen.add(entry.url)
            entries.append(entry)
        with transaction.atomic():
            counts: UpsertCounts = items_upsert(
                source=source, entries=entries, now=now, origin="import"
            )
        result.new += counts.new
        result.updated += counts.updated
        result.unchanged += counts.unchanged
        line_of = {entry.url: number for number, entry in numbered}
        result.skipped.extend((line_of.get(skip.ref, 0), skip.reason) for skip in counts.skips)
    pending.clear()
