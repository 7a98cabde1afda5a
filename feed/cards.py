"""Item cards, rendered once per look and remembered in the cache.

A card's key holds everything the card shows (its fields, its source's name,
its tags' names, the language, the filters its links compose with), so an
edit, a rename or a re-tag makes a new key: a cached card is never stale, and
after a change only the cards that changed are rendered again.
"""

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from django.conf import settings
from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.safestring import SafeString, mark_safe

from feed.conditional import _RELEASE
from feed.links import StreamQuery
from feed.models import Item

CARD_TEMPLATE = "feed/partials/item_card.html"


@dataclass(frozen=True)
class Chip:
    """A link on a card that adds one filter to the current ones."""

    label: str
    url: str
    active: bool = False


def _iri_quote(value: str) -> str:
    # Letters and digits of any script stay; everything else (ASCII punctuation,
    # spaces, controls) is percent-encoded as in any query string.
    return "".join(
        char if not char.isascii() and char.isalnum() else quote(char, safe="-._~")
        for char in value
    )


def _iri(base: str, query: StreamQuery) -> str:
    """`base?…` with non-ASCII letters kept as they are (an IRI): 3 bytes a letter, not 9."""
    pairs = query.params()
    if not pairs:
        return base
    return base + "?" + "&".join(f"{name}={_iri_quote(value)}" for name, value in pairs)


def card_chips(item: Item, *, query: StreamQuery, base: str) -> dict:
    """The card's source, category and tag links, each keeping the reader's other filters."""
    tags = [
        Chip(
            label=tag.name,
            url=_iri(base, query.with_tag(tag.slug)),
            active=tag.slug in query.tags,
        )
        for tag in item.tags_sorted()
    ]
    category = (
        Chip(
            label=str(item.get_category_display()),
            url=_iri(base, query.replace(category=item.category)),
            active=query.category == item.category,
        )
        if item.category
        else None
    )
    source = Chip(
        label=item.source.name,
        url=_iri(base, query.replace(source=item.source.slug)),
        active=query.source == item.source.slug,
    )
    return {"tag_chips": tags, "category_chip": category, "source_chip": source}


def card_key(item: Item, *, query: StreamQuery, base: str) -> str:
    """Everything the card shows, hashed: any change to any of it is a new key."""
    source = item.source
    parts = [
        _RELEASE,
        translation.get_language() or "",
        timezone.get_current_timezone_name(),
        base,
        query.querystring(),
        item.pk,
        item.version,
        item.updated_at.isoformat() if item.updated_at else "",
        item.status,
        item.heat,
        item.published_at.isoformat() if item.published_at else "",
        item.title,
        item.summary,
        item.recommendation,
        item.authors,
        item.kind,
        item.category,
        source.pk,
        source.slug,
        source.name,
        source.handle,
        [(tag.slug, tag.name) for tag in item.tags_sorted()],
        # The story's other visible sources, when an app above feed added them (stories/site.py).
        [(o.pk, o.slug, o.title, o.source.name) for o in getattr(item, "coverage", ())],
    ]
    return "aitop:card:" + hashlib.sha256(repr(parts).encode()).hexdigest()


def cards_render(items: Sequence[Item], *, query: StreamQuery, base: str) -> list[SafeString]:
    """The cards of `items`, in order: one cache read for all, rendering only the missing ones."""
    keys = [card_key(item, query=query, base=base) for item in items]
    found = cache.get_many(keys) if keys else {}
    fresh = {}
    cards = []
    for item, key in zip(items, keys, strict=True):
        html = found.get(key)
        if html is None:
            html = render_to_string(
                CARD_TEMPLATE, {"item": item, **card_chips(item, query=query, base=base)}
            )
            fresh[key] = html
        cards.append(mark_safe(html))  # noqa: S308 - rendered by our own autoescaping template
    if fresh:
        cache.set_many(fresh, settings.AITOP_CARD_CACHE_SECONDS)
    return cards
