"""Loading the demo content: sources, items and tags for a fresh install."""

import datetime
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from feed.demo_content import ITEMS, SOURCES
from feed.models import Item, Source


@dataclass(frozen=True)
class DemoResult:
    sources_created: int
    items_created: int


@transaction.atomic
def demo_load(*, now: datetime.datetime | None = None) -> DemoResult:
    """Create the demo sources and items that are missing; never change existing rows."""
    now = now or timezone.now()
    specs = {spec["slug"]: spec for spec in SOURCES}
    sources: dict[str, Source] = {}
    sources_created = 0
    for slug, spec in specs.items():
        fields = {k: v for k, v in spec.items() if k not in {"slug", "tags", "item_base"}}
        fields["is_active"] = False
        source, created = Source.objects.get_or_create(slug=slug, defaults=fields)
        if created:
            source.default_tags.set(spec["tags"])
            sources_created += 1
        sources[slug] = source

    items_created = 0
    seen_per_source: dict[str, int] = {}
    for spec in ITEMS:
        source_spec = specs[spec["source"]]
        seen_per_source[spec["source"]] = seen_per_source.get(spec["source"], 0) + 1
        url = f"{source_spec['item_base']}{seen_per_source[spec['source']]:04d}"
        defaults = _item_fields(spec, source=sources[spec["source"]], url=url, now=now)
        item, created = Item.objects.get_or_create(url=url, defaults=defaults)
        if created:
            item.tags.set([*source_spec["tags"], *spec["tags"]])
            items_created += 1
    return DemoResult(sources_created=sources_created, items_created=items_created)


def _item_fields(spec: dict, *, source: Source, url: str, now: datetime.datetime) -> dict:
    status = spec.get("status", Item.Status.PUBLISHED)
    if status == "scheduled":
        status = Item.Status.PUBLISHED
        published_at = now + datetime.timedelta(hours=spec["hours_ahead"])
        original = now
    else:
        published_at = now - datetime.timedelta(hours=spec["hours_ago"])
        original = published_at - datetime.timedelta(minutes=17)
    if status in {Item.Status.DRAFT, Item.Status.REJECTED}:
        published_at = None
    return {
        "source": source,
        "title": spec["title"],
        "guid": url,
        "authors": spec["authors"],
        "summary": spec["summary"],
        "recommendation": spec["recommendation"],
        "kind": source.kind,
        "category": spec.get("category", source.default_category),
        "status": status,
        "heat": spec["heat"],
        "original_published_at": original,
        "published_at": published_at,
        "fetched_at": original,
    }
