"""Item cards, rendered once per look and remembered in the cache.

A card's key holds everything the card shows (its fields, its source's name,
its tags' names, the language, the filters its links compose with), so an
edit, a rename or a re-tag makes a new key: a cached card is never stale, and
after a change only the cards that changed are rendered again.
"""

import hashlib
import marshal
from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone, translation
from django.utils.safestring import SafeString, mark_safe

from feed.card_html import CardWords, card_html
from feed.conditional import _RELEASE
from feed.links import StreamQuery, iri_quote
from feed.models import Item

# The card's reference markup; feed/card_html.py writes the same HTML without the engine.
CARD_TEMPLATE = "feed/partials/item_card.html"


@dataclass(frozen=True)
class Chip:
    """A link on a card that adds one filter to the current ones."""

    label: str
    url: str
    active: bool = False


# Stands for a chip's value while a page's link shapes are worked out (a NUL
# never reaches a page: feed.views.common refuses it with a 400).
_VALUE = "\x00"


class _ChipLinks:
    """The links of one page's chips: each shape worked out once, each link a join.

    A chip's link is the page's query with one value put in (a tag added, the
    category or source set), so for each field the link is the same text
    around the value: `before + value + after`, found once a page.
    """

    def __init__(self, *, query: StreamQuery, base: str):
        self.query = query
        self.base = base
        self._shapes: dict[str, tuple[str, str]] = {}
        self._urls: dict[tuple[str, str], str] = {}
        self._categories: dict[str, str] = {}

    def _shape(self, field: str) -> tuple[str, str]:
        shape = self._shapes.get(field)
        if shape is None:
            if field == "tag":
                changed = self.query.with_tag(_VALUE)
            else:
                changed = self.query.replace(**{field: _VALUE})
            before, after = (self.base + changed.iri_querystring()).split(iri_quote(_VALUE))
            shape = self._shapes[field] = (before, after)
        return shape

    def url(self, field: str, value: str) -> str:
        found = self._urls.get((field, value))
        if found is None:
            if field == "tag" and value in self.query.tags:
                found = self.base + self.query.iri_querystring()
            else:
                before, after = self._shape(field)
                found = f"{before}{iri_quote(value)}{after}"
            self._urls[(field, value)] = found
        return found

    def category_label(self, item: Item) -> str:
        found = self._categories.get(item.category)
        if found is None:
            found = self._categories[item.category] = str(item.get_category_display())
        return found


def card_chips(item: Item, *, query: StreamQuery, base: str, links=None, tags=None) -> dict:
    """The card's source, category and tag links, each keeping the reader's other filters."""
    links = links or _ChipLinks(query=query, base=base)
    tags = [
        Chip(label=tag.name, url=links.url("tag", tag.slug), active=tag.slug in query.tags)
        for tag in (item.tags_sorted() if tags is None else tags)
    ]
    category = (
        Chip(
            label=links.category_label(item),
            url=links.url("category", item.category),
            active=query.category == item.category,
        )
        if item.category
        else None
    )
    source = Chip(
        label=item.source.name,
        url=links.url("source", item.source.slug),
        active=query.source == item.source.slug,
    )
    return {"tag_chips": tags, "category_chip": category, "source_chip": source}


def card_key(item: Item, *, query: StreamQuery, base: str, page: tuple = (), tags=None) -> str:
    """Everything the card shows, hashed: any change to any of it is a new key.

    `page` is what all cards of the page share (`_page_parts`), `tags` the
    item's tags if the caller already sorted them.
    """
    source = item.source
    tags = item.tags_sorted() if tags is None else tags
    parts = [
        *(page or _page_parts(query=query, base=base)),
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
        [(tag.slug, tag.name) for tag in tags],
        # The story's other visible sources, when an app above feed added them (stories/site.py).
        [(o.pk, o.slug, o.title, o.source.name) for o in getattr(item, "coverage", ())],
    ]
    return "aitop:card:" + hashlib.sha256(_serialised(parts)).hexdigest()


def _serialised(parts: list) -> bytes:
    """`parts` as bytes that only equal parts give: marshal, or repr for what marshal cannot write.

    marshal writes a card's parts in a quarter of repr's time (about 8 µs a
    card). Version 2 is used because later versions mark interned strings
    and repeated objects, which would give two processes different bytes
    for the same card. What marshal cannot write (an enum member, a lazy
    translation) is written by repr; the first byte keeps the two apart.
    """
    try:
        return b"m" + marshal.dumps(parts, 2)
    except ValueError:
        return b"r" + repr(parts).encode()


def _page_parts(*, query: StreamQuery, base: str) -> tuple:
    return (
        _RELEASE,
        translation.get_language() or "",
        timezone.get_current_timezone_name(),
        base,
        query.querystring(),
    )


def cards_render(items: Sequence[Item], *, query: StreamQuery, base: str) -> list[SafeString]:
    """The cards of `items`, in order: one cache read for all, rendering only the missing ones."""
    page = _page_parts(query=query, base=base)
    tags = [item.tags_sorted() for item in items]
    keys = [
        card_key(item, query=query, base=base, page=page, tags=item_tags)
        for item, item_tags in zip(items, tags, strict=True)
    ]
    found = cache.get_many(keys) if keys else {}
    fresh = {}
    cards = []
    words = links = None
    for item, item_tags, key in zip(items, tags, keys, strict=True):
        html = found.get(key)
        if html is None:
            if words is None:
                words = CardWords.current()
                links = _ChipLinks(query=query, base=base)
            chips = card_chips(item, query=query, base=base, links=links, tags=item_tags)
            html = card_html(item, words=words, **chips)
            fresh[key] = html
        cards.append(mark_safe(html))  # noqa: S308 - every value escaped by feed/card_html.py
    if fresh:
        cache.set_many(fresh, settings.AITOP_CARD_CACHE_SECONDS)
    return cards
