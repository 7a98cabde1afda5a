"""Template contexts of the public pages, built from data the caller already fetched.

The views fetch, these functions arrange. They run no queries of their own
(except `item_page_context` when it is not given the related items), so other
code can render the public templates too: the editors' preview calls
`stream_context(request=…, days=group_by_day([draft]))` and
`item_page_context(request=…, item=draft, related=[])` to show a draft exactly
as readers would see it.
"""

import datetime
import functools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from django.urls import reverse
from django.utils import timezone
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from feed.cards import cards_render
from feed.day_html import days_html
from feed.links import NO_FILTERS, StreamQuery
from feed.models import Item
from feed.paging import Cursor, Day
from feed.templatetags.feed_tags import day_heading

# How many of the most used tags of a page the stream shows beside it.
FACET_LIMIT = 20
RELATED_LIMIT = 6
# Related items are looked for among this many visible items published before the item.
RELATED_WINDOW = 500

KIND_TABS = [
    ("", _("All")),
    ("blog", _("Blogs")),
    ("news", _("News")),
    ("tweet", _("Tweets")),
    ("paper", _("Papers")),
]
CATEGORY_TABS = [
    ("", _("All")),
    ("model", _("Models")),
    ("product", _("Products")),
    ("industry", _("Industry")),
    ("paper", _("Papers")),
    ("tip", _("Tips")),
]

# What each kind of chip says before its value: 标签：分布式训练 ×
CHIP_PREFIXES = {
    "tag": _("Tag:"),
    "source": _("Source:"),
    "q": _("Search:"),
    "since": _("Since:"),
    "until": _("Until:"),
}


@dataclass(frozen=True)
class Link:
    """A labelled link; `active` marks the one that is the current page."""

    label: str
    url: str
    active: bool = False
    count: int | None = None
    # A feed's media type, for <link rel="alternate">.
    type: str = ""

    @property
    def title(self) -> str:
        return f"AITOP · {self.label}"


@dataclass(frozen=True)
class DayCards:
    """A day as the templates show it: its heading facts and its rendered cards.

    The heading's text, anchor and links are worked out here, once a page
    (`_DayLinks`): a search or a rare tag spreads its 50 cards over as many
    days, and the partial's date filters and `{% url %}` tags for each were
    a fifth of such a page's cold CPU (feed/day_html.py writes the rest).
    """

    date: datetime.date
    cards: list
    items: list
    continued: bool = False
    continues: bool = False
    heading: str = ""
    url: str = ""
    brief_url: str = ""

    @property
    def iso(self) -> str:
        return self.date.isoformat()


class _DayLinks:
    """A day's page (with the page's filters) and its daily brief, from one reverse() each."""

    # Any date: the links of the others are these with the date replaced.
    _SAMPLE = datetime.date(2000, 1, 1)

    def __init__(self, querystring: str):
        sample = self._SAMPLE.isoformat()
        self._day = reverse("feed:day", args=[self._SAMPLE]).split(sample)
        # The daily brief lives in the stories app; its address is linked by name only.
        self._brief = reverse("stories:daily", args=[self._SAMPLE]).split(sample)
        self._querystring = querystring

    def day(self, date: datetime.date) -> str:
        return date.isoformat().join(self._day) + self._querystring

    def brief(self, date: datetime.date) -> str:
        return date.isoformat().join(self._brief)


@dataclass(frozen=True)
class Chip:
    """An active filter and the link that removes just it."""

    kind: str
    label: str
    remove_url: str

    @property
    def prefix(self) -> str:
        return CHIP_PREFIXES.get(self.kind, "")


@dataclass(frozen=True)
class TagCount:
    """A tag and how many of a page's items carry it."""

    name: str
    slug: str
    item_count: int


def page_tag_counts(
    items: Sequence[Item], *, leave_out: Sequence[str] = (), limit: int = FACET_LIMIT
) -> list[TagCount]:
    """The tags of the page's items (cards already carry them), most used first.

    Counted over the page, not over the archive or a window of it: no query,
    and the same cost whatever the filters (the newest 500 items carrying two
    common tags took 40 ms to find at a million items).
    """
    counts: Counter = Counter()
    tags = {}
    for item in items:
        for tag in item.tags_sorted():
            if tag.slug not in leave_out:
                counts[tag.pk] += 1
                tags[tag.pk] = tag
    ranked = sorted(counts, key=lambda pk: (-counts[pk], tags[pk].name.casefold(), pk))
    return [
        TagCount(name=tags[pk].name, slug=tags[pk].slug, item_count=counts[pk])
        for pk in ranked[:limit]
    ]


def stream_url(query: StreamQuery, *, base: str | None = None, **extra: str) -> str:
    """The stream (or the page at `base`) under `query`, as a URI: for feeds and redirects."""
    return (base or reverse("feed:stream")) + query.querystring(**extra)


def stream_link(query: StreamQuery, *, base: str | None = None, **extra: str) -> str:
    """`stream_url` as a link on a page writes it: an IRI, as the cards' links are."""
    return (base or reverse("feed:stream")) + query.iri_querystring(**extra)


def feed_links(query: StreamQuery) -> list[Link]:
    """The RSS, Atom and JSON feeds of exactly this filter."""
    return [
        Link(label=label, url=reverse(name) + query.iri_querystring(), type=mime)
        for name, label, mime in (
            ("feed:rss", "RSS", "application/rss+xml"),
            ("feed:atom", "Atom", "application/atom+xml"),
            ("feed:json", "JSON Feed", "application/feed+json"),
        )
    ]


def _tabs(query: StreamQuery, field: str, tabs, base: str) -> list[Link]:
    current = getattr(query, field)
    return [
        Link(
            label=label,
            url=stream_link(query.replace(**{field: value}), base=base),
            active=current == value,
        )
        for value, label in tabs
    ]


def _chips(query: StreamQuery, base: str, *, tag_names: dict, source_name: str) -> list[Chip]:
    chips = [
        Chip(
            kind="tag",
            label=tag_names.get(slug, slug),
            remove_url=stream_link(query.without_tag(slug), base=base),
        )
        for slug in query.tags
    ]
    singles = [
        ("source", source_name or query.source),
        ("featured", _("Featured only") if query.featured == "1" else _("Not featured")),
        ("q", query.q),
        ("since", query.since),
        ("until", query.until),
    ]
    for field, label in singles:
        if getattr(query, field):
            chips.append(
                Chip(
                    kind=field,
                    label=label,
                    remove_url=stream_link(query.replace(**{field: ""}), base=base),
                )
            )
    return chips


def stream_context(
    *,
    request,
    days: Sequence[Day],
    query: StreamQuery = NO_FILTERS,
    base: str | None = None,
    older: Cursor | None = None,
    tag_names: dict[str, str] | None = None,
    source_name: str = "",
    today: datetime.date | None = None,
) -> dict:
    """Everything templates/feed/stream.html shows, for days of items already fetched.

    The tags beside the stream are those of these items (`page_tag_counts`);
    `tag_names` maps the active tag slugs to their names; tabs, chips and the
    search lead to `base` (the stream unless told otherwise, e.g. a day page).
    """
    base = base or reverse("feed:stream")
    today = today or timezone.localdate()
    items = [item for day in days for item in day.items]
    cards = iter(cards_render(items, query=query, base=base))
    links = _DayLinks(query.iri_querystring())
    day_cards = [
        DayCards(
            date=day.date,
            cards=[next(cards) for _ in day.items],
            items=day.items,
            continued=day.continued,
            continues=day.continues,
            heading=day_heading(day.date, today),
            url=links.day(day.date),
            brief_url=links.brief(day.date),
        )
        for day in days
    ]
    return {
        "days": day_cards,
        # Written when the template shows it: the day page includes the partial instead.
        "days_html": functools.partial(days_html, day_cards),
        "query": query,
        "canonical_url": request.build_absolute_uri(
            base + query.querystring(before=request.GET.get("before", "").strip())
        ),
        "today": today,
        "kind_tabs": _tabs(query, "kind", KIND_TABS, base),
        "category_tabs": _tabs(query, "category", CATEGORY_TABS, base),
        "featured_link": Link(
            label=_("Featured only"),
            url=stream_link(
                query.replace(featured="" if query.featured == "1" else "1"), base=base
            ),
            active=query.featured == "1",
        ),
        "chips": _chips(query, base, tag_names=tag_names or {}, source_name=source_name),
        "clear_url": base if query.is_filtered else "",
        "facets": [
            Link(
                label=tag.name,
                url=stream_link(query.with_tag(tag.slug), base=base),
                count=tag.item_count,
            )
            for tag in page_tag_counts(items, leave_out=query.tags)
        ],
        "feeds": feed_links(query),
        "older_url": stream_link(query, base=base, before=older.token()) if older else "",
        "newest_url": stream_link(query, base=base) if request.GET.get("before") else "",
        "search_action": base,
    }


def related_window(item: Item):
    """The primary keys of RELATED_WINDOW visible items published around `item`, as a subquery.

    Half published just before it, half just after: two ranges of the stream
    index, so whatever is counted over the window costs the same whatever the
    size of the site and however common the tags.
    """
    moment = item.published_at or timezone.now()
    visible = Item.objects.visible()
    half = RELATED_WINDOW // 2
    before = visible.filter(published_at__lte=moment).newest_first().values("pk")[:half]
    after = (
        visible.filter(published_at__gt=moment).order_by("published_at", "id").values("pk")[:half]
    )
    # One IN over a UNION, not two INs joined by OR: the planner keeps to the indexes.
    # (Each side wrapped in its own IN: SQLite allows no LIMIT inside a UNION.)
    return (
        Item.objects.filter(pk__in=before)
        .values("pk")
        .union(Item.objects.filter(pk__in=after).values("pk"), all=True)
    )


def related_items(item: Item) -> list[Item]:
    """Visible items sharing the most tags with `item`, among the window around it."""
    return list(
        Item.objects.visible()
        .filter(pk__in=related_window(item))
        .related_to(item)
        .select_related("source")[:RELATED_LIMIT]
    )


def item_page_context(*, request, item: Item, related: Sequence[Item] | None = None) -> dict:
    """Everything templates/feed/item_detail.html shows for `item` (visible or a draft).

    Without `related`, the visible items that share its tags are looked up
    (one query, `related_items`).
    """
    if related is None:
        related = related_items(item)
    canonical = request.build_absolute_uri(item.get_absolute_url())
    return {
        "item": item,
        "related": related,
        "canonical_url": canonical,
        "description": Truncator(item.summary or item.recommendation or item.title).chars(200),
        "feeds": feed_links(NO_FILTERS),
        "today": timezone.localdate(),
        "local_day": timezone.localdate(item.published_at) if item.published_at else None,
    }
