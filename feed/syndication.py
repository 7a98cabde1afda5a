"""Feeds out: RSS 2.0 and Atom (written by `feed.feed_xml`) and JSON Feed 1.1.

Each feed takes the stream's filters from its query string, so the page at
`/?tag=…` links to `/feed.xml?tag=…` and a reader subscribes to exactly
what they were looking at.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from django.http import JsonResponse
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from feed.card_html import escape
from feed.conditional import public_cache
from feed.feed_xml import AbsoluteURLs, Channel, Entry, atom_response, rss_response
from feed.links import StreamQuery
from feed.models import Category, Item
from feed.pages import stream_url
from feed.paging import CARD_FIELDS
from feed.views.common import filter_names, filtered_items, public_page

# How many of the newest items a feed carries.
FEED_ITEMS = 50
# What an entry shows: a card's fields and the original's address (JSON Feed's
# external_url). Not the body: an entry holds the summary and the why.
FEED_FIELDS = (*CARD_FIELDS, "url")
# Stands for an item's id in the shape of its "Original" link.
_PK = 2_147_483_647


class OriginalLinks:
    """Each entry's counted link to the original, as a full URL: reversed once a feed."""

    def __init__(self, request):
        path = reverse("feed:go", kwargs={"pk": _PK})
        self.before, self.after = request.build_absolute_uri(path).split(str(_PK))

    def url(self, pk: int) -> str:
        return f"{self.before}{pk}{self.after}"


@dataclass(frozen=True)
class FeedSource:
    """What one feed request asked for, and the items it gets."""

    query: StreamQuery
    items: list[Item]
    title: str
    path: str


def _feed_source(request) -> FeedSource:
    filtered = filtered_items(request, Item.objects.visible())
    items = list(filtered.items.newest_first().for_cards().only(*FEED_FIELDS)[:FEED_ITEMS])
    return FeedSource(
        query=filtered.query,
        items=items,
        title=feed_title(filtered.query, items=items),
        path=request.path + filtered.query.querystring(),
    )


def feed_title(query: StreamQuery, *, items: Sequence[Item] = ()) -> str:
    """ "AITOP" plus the filters in words, e.g. "AITOP · Papers · 分布式训练".

    `items`, the feed's entries loaded for cards, name the tags and source when there are any.
    """
    tag_names, source_name = filter_names(query, items=items)
    parts = ["AITOP"]
    if query.kind:
        parts.append(str(dict(Item._meta.get_field("kind").choices)[query.kind]))
    if query.category:
        parts.append(str(dict(Item._meta.get_field("category").choices)[query.category]))
    parts += [tag_names.get(slug, slug) for slug in query.tags]
    if query.source:
        parts.append(source_name or query.source)
    if query.featured == "1":
        parts.append(_("Featured only"))
    if query.q:
        parts.append(f"“{query.q}”")
    return " · ".join(parts)


def item_authors(item: Item) -> str:
    """Who wrote it: the authors, else the source and its handle."""
    return item.authors or " ".join(part for part in (item.source.name, item.source.handle) if part)


def category_label(category: str) -> str:
    """What `item.get_category_display()` says, in the active language.

    Django's method builds a dict of every choice on each call: about 30 µs
    an entry, 1.5 ms of a feed of 50.
    """
    try:
        return str(Category(category).label)
    except ValueError:
        return category


@dataclass(frozen=True)
class EntryLabels:
    """The words an entry shows, in the active language: translated once a feed, not an entry."""

    why: str  # escaped
    original: str  # escaped
    categories: dict[str, str]

    @classmethod
    def active(cls) -> "EntryLabels":
        return cls(
            why=escape(_("Why it matters:")),
            original=escape(_("Original")),
            categories={value: str(label) for value, label in Category.choices},
        )


def item_categories(item: Item, labels: EntryLabels | None = None) -> list[str]:
    """The category label first, then the tags, as on the page."""
    names = [tag.name for tag in item.tags_sorted()]
    if not item.category:
        return names
    if labels is None:
        return [category_label(item.category), *names]
    return [labels.categories.get(item.category, item.category), *names]


def item_html(item: Item, *, original_url: str, labels: EntryLabels | None = None) -> SafeString:
    """The summary, the "why" and the original link, as HTML for feed readers.

    Joined from escaped values, as `format_html` would write them, at a
    quarter of its cost (each of its calls formats and marks a SafeString).
    """
    labels = labels or EntryLabels.active()
    parts = [f"<p>{escape(item.summary)}</p>"] if item.summary else []
    if item.recommendation:
        parts.append(f"<p><strong>{labels.why}</strong> {escape(item.recommendation)}</p>")
    parts.append(f'<p><a href="{escape(original_url)}">{labels.original}</a></p>')
    return mark_safe("\n".join(parts))  # noqa: S308 - every value escaped above


def _stream_feed(request) -> tuple[Channel, list[Entry]]:
    source = _feed_source(request)
    absolute = AbsoluteURLs(request)
    channel = Channel(
        title=source.title,
        link=absolute(stream_url(source.query)),
        description=_("The whole stream of AI news, day by day."),
        feed_url=absolute(source.path),
        language=translation.get_language(),
    )
    originals = OriginalLinks(request)
    labels = EntryLabels.active()
    entries = [
        Entry(
            title=item.title,
            link=absolute(item.get_absolute_url()),
            description=item_html(item, original_url=originals.url(item.pk), labels=labels),
            author=item_authors(item),
            published=item.published_at,
            updated=item.updated_at,
            categories=item_categories(item, labels),
        )
        for item in source.items
    ]
    return channel, entries


@public_page
@public_cache
def rss(request):
    """RSS 2.0 of the stream under the query string's filters."""
    return rss_response(*_stream_feed(request))


@public_page
@public_cache
def atom(request):
    """Atom 1.0 of the stream under the query string's filters."""
    return atom_response(*_stream_feed(request))


@public_page
@public_cache
def json_feed(request):
    """JSON Feed 1.1 of the stream under the query string's filters."""
    source = _feed_source(request)
    absolute = request.build_absolute_uri
    originals = OriginalLinks(request)
    labels = EntryLabels.active()
    body = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": source.title,
        "home_page_url": absolute(stream_url(source.query)),
        "feed_url": absolute(source.path),
        "description": _("The whole stream of AI news, day by day."),
        "language": translation.get_language(),
        "items": [
            _json_item(item, absolute=absolute, originals=originals, labels=labels)
            for item in source.items
        ],
    }
    return JsonResponse(
        body,
        content_type="application/feed+json; charset=utf-8",
        json_dumps_params={"ensure_ascii": False},
    )


def _json_item(item: Item, *, absolute, originals: OriginalLinks, labels: EntryLabels) -> dict:
    original = originals.url(item.pk)
    page = absolute(item.get_absolute_url())
    entry = {
        "id": page,
        "url": page,
        "external_url": item.url,
        "title": item.title,
        "content_html": item_html(item, original_url=original, labels=labels),
        "content_text": "\n\n".join(part for part in (item.summary, item.recommendation) if part),
        "date_published": item.published_at.isoformat(),
        "date_modified": item.updated_at.isoformat(),
        "authors": [{"name": item_authors(item)}],
        "tags": item_categories(item, labels),
        "_aitop": {
            "kind": item.kind,
            "category": item.category,
            "heat": item.heat,
            "featured": item.is_featured,
            "source": item.source.name,
        },
    }
    if item.summary:
        entry["summary"] = item.summary
    return entry
