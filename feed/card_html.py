"""An item card's HTML written in Python: the markup of feed/partials/item_card.html, 20× cheaper.

Rendering the card template cost about 1.4 ms a card (70 ms of a cold page of
50): Django's template engine resolves every `{{ … }}` through its lookup
chain, renders a node per tag and runs `{% spaceless %}`'s regular expression
over each card. Here the words a card repeats (translated labels, the
"Original" link's path around the id) are looked up once per page
(`CardWords`), and each card is a few string joins of escaped values.

The template stays: it is what the daily brief includes, and it is the
reference this renderer must match byte for byte in every language
(tests/feed/test_card_html.py renders both for a varied set of items). A
change to the card goes into both.
"""

import datetime
import functools
import html
import re
from dataclasses import dataclass

from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import uri_to_iri
from django.utils.translation import gettext, ngettext

# What {% spaceless %} removes (django.utils.html.strip_spaces_between_tags,
# without its check for lazy strings on every call).
_SPACES_BETWEEN_TAGS = re.compile(r">\s+<")

# A placeholder id and slug, reversed once per page and replaced by each card's.
_PK = 2_147_483_647
_SLUG = "aitop-card-slug"


def escape(value) -> str:
    """What autoescaping does to a value: django.utils.html.escape without its lazy check."""
    if type(value) is str:
        return _escape_text(value)
    return html.escape(str(value))


@functools.lru_cache(maxsize=8192)
def _escape_text(value: str) -> str:
    # Remembered: a page escapes about 700 values, most of them again on the
    # next page (tag and source names and links, the same items' texts).
    return html.escape(value)


@dataclass(frozen=True)
class CardWords:
    """What every card of one page (one language, one URL prefix) says alike, already escaped."""

    featured: str
    heat: str
    tags: str
    why: str
    original: str
    go_before: str
    go_after: str
    detail_before: str
    detail_after: str
    zone: datetime.tzinfo

    @classmethod
    def current(cls) -> "CardWords":
        """The words in the active language, the links under the active URL prefix."""
        before, after = reverse("feed:go", args=[_PK]).split(str(_PK))
        # The item page as `item.get_absolute_url|iri` writes it. A slug holds only
        # letters, digits, "_" and "-" (slugify), which the IRI shows as they are.
        detail = uri_to_iri(reverse("feed:item-detail", kwargs={"pk": _PK, "slug": _SLUG}))
        detail_before, detail_after = detail.split(f"{_PK}/{_SLUG}")
        return cls(
            featured=escape(gettext("Featured")),
            heat=escape(gettext("heat")),
            tags=escape(gettext("tags")),
            why=escape(gettext("Why it matters:")),
            original=escape(gettext("Original")),
            go_before=escape(before),
            go_after=escape(after),
            detail_before=escape(detail_before),
            detail_after=escape(detail_after),
            zone=timezone.get_current_timezone(),
        )

    def go(self, pk: int) -> str:
        return f"{self.go_before}{pk}{self.go_after}"

    def detail(self, item) -> str:
        """`item.get_absolute_url|iri`, escaped; reversed once a page, not once a card."""
        if "get_absolute_url" in item.__dict__:
            # This one item's own address (the editors' preview links a draft to its preview).
            return escape(uri_to_iri(item.get_absolute_url()))
        return f"{self.detail_before}{item.pk}/{escape(item.slug)}{self.detail_after}"


def _chip(chip, *, opening: str = "<li>") -> str:
    current = ' aria-current="true"' if chip.active else ""
    return f'{opening}<a href="{escape(chip.url)}"{current}>{escape(chip.label)}</a></li>'


def _meta(item, source_chip, words: CardWords) -> str:
    parts = ['<p class="item-meta">']
    if item.published_at:
        local = item.published_at.astimezone(words.zone)
        machine = local.isoformat(timespec="seconds")
        parts.append(f'<time datetime="{machine}">{local.hour:02d}:{local.minute:02d}</time> ')
    current = ' aria-current="true"' if source_chip.active else ""
    parts.append(
        f'<span class="item-byline"><a class="item-source" href="{escape(source_chip.url)}"'
        f"{current}>{escape(item.source.name)}</a>"
    )
    if item.authors:
        parts.append(
            f' <span class="item-at">@</span> <span class="item-authors">'
            f"{escape(item.authors)}</span>"
        )
    elif item.source.handle:
        parts.append(f' <span class="item-handle">{escape(item.source.handle)}</span>')
    parts.append("</span>")
    if item.is_featured:
        parts.append(f' <span class="badge">{words.featured}</span>')
    if item.heat:
        parts.append(f' <span class="heat" title="{words.heat}">{item.heat}°</span>')
    parts.append("</p>")
    return "".join(parts)


def coverage_summary(count: int) -> str:
    """What the coverage list's summary says: how many other sources told the story."""
    return ngettext(
        "Also covered by %(counter)s source", "Also covered by %(counter)s sources", count
    ) % {"counter": count}


def coverage_rows(others, *, go, detail, after: str = "") -> str:
    """stories/coverage.html's rows: each member's source (the counted link) and its page."""
    return "".join(
        f'<li><a href="{go(other.pk)}" rel="noopener">{escape(other.source.name)}</a>: '
        f'<a href="{detail(other)}">{escape(other.title)}</a></li>{after}'
        for other in others
    )


def _coverage(item, words: CardWords) -> str:
    """stories/coverage.html: the story's other sources, when stories gave the item any."""
    others = getattr(item, "coverage", None)
    if not others:
        return ""
    summary = coverage_summary(len(others))
    rows = coverage_rows(others, go=words.go, detail=words.detail)
    return (
        f'<details class="coverage"><summary>{summary}</summary>'
        f'<ul class="coverage-list">{rows}</ul></details>'
    )


def card_html(item, *, tag_chips, category_chip, source_chip, words: CardWords) -> str:
    """The card of `item` with its chips, as feed/partials/item_card.html renders it."""
    featured = " item--featured" if item.is_featured else ""
    parts = [
        f'<article class="item{featured}" id="item-{item.pk}">',
        _meta(item, source_chip, words),
        f'<h3 class="item-title"><a href="{words.detail(item)}">{escape(item.title)}</a></h3>',
    ]
    if item.summary:
        parts.append(f'<p class="item-summary">{escape(item.summary)}</p>')
    parts.append(f'<ul class="tags" aria-label="{words.tags}">')
    if category_chip:
        parts.append(_chip(category_chip, opening='<li class="tag--category">'))
    parts.extend(_chip(chip) for chip in tag_chips)
    parts.append("</ul>")
    if item.recommendation:
        parts.append(
            f'<p class="item-why"><strong>{words.why}</strong> {escape(item.recommendation)}</p>'
        )
    parts.append(_coverage(item, words))
    parts.append(
        f'<p class="item-links"><a class="item-original" href="{words.go(item.pk)}">'
        f"{words.original}</a></p></article>"
    )
    # As {% spaceless %} does: a value that is only whitespace between two tags goes too.
    # (The template's file ends in a newline after it.)
    return _SPACES_BETWEEN_TAGS.sub("><", "".join(parts).strip()) + "\n"
