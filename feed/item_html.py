"""An item's page written in Python: the markup of feed/item_detail.html and stories/coverage.html.

The template engine took 3.3 ms of a cold item page's 8.6 ms of CPU in the
web process at a million items (docs/benchmarks.md, stop 34): the frame,
about twenty `{% url %}` and `{% translate %}` tags, the date filters, each
value looked up through the context's chain. Here the page is a few joins
of values `feed.pages.item_page_context` already holds, escaped as
autoescaping would, in the frame feed/frame_html.py writes.

The template stays the reference, and stays in use for the editors'
preview of a draft (editorial/preview_item.html extends it):
tests/feed/test_item_html.py renders both ways in each language, for items
with every field and with none, featured or not, in a story or not, with
related items or without, and with hostile values, and compares them byte
for byte. A change to the page goes into both.
"""

from urllib.parse import quote

from django.urls import reverse
from django.utils import formats, timezone
from django.utils.encoding import uri_to_iri
from django.utils.translation import get_language, gettext

from feed.card_html import CardWords, coverage_rows, coverage_summary, escape
from feed.frame_html import frame_html
from feed.html import clean_html
from feed.templatetags.feed_tags import day_heading, machine_time


def _date(moment, format_name: str) -> str:
    """`{{ moment|date:format_name }}`: the local time, as the date filter formats it."""
    if moment is None:
        return ""
    local = timezone.localtime(moment)
    # The two fixed formats directly (Django's "c" is isoformat()): date_format's
    # lookups cost about 50 µs a call, five or more calls a page.
    if format_name == "c":
        return local.isoformat()
    if format_name == "Y-m-d":
        return f"{local.year:04d}-{local.month:02d}-{local.day:02d}"
    return escape(formats.date_format(local, format_name))


def _slug_query(slug: str) -> str:
    """`{{ slug|urlencode|iri }}`: percent-encoded, then shown as characters, escaped."""
    return escape(uri_to_iri(quote(slug)))


def _head(context: dict) -> str:
    """item_detail.html's head block: the canonical link and the page's social metadata."""
    item = context["item"]
    title, description = escape(item.title), escape(context["description"])
    canonical = escape(context["canonical_url"])
    locale = "en_US" if get_language() == "en" else "zh_CN"
    published = (
        f'<meta property="article:published_time" content="{_date(item.published_at, "c")}">'
        if item.published_at
        else ""
    )
    section = (
        f'<meta property="article:section" content="{escape(item.get_category_display())}">'
        if item.category
        else ""
    )
    tags = "".join(
        f'<meta property="article:tag" content="{escape(tag.name)}">\n  '
        for tag in item.tags_sorted()
    )
    creator = (
        f'<meta name="twitter:creator" content="{escape(item.source.handle)}">'
        if item.source.handle
        else ""
    )
    return (
        f'\n  <link rel="canonical" href="{canonical}">\n'
        f'  <meta name="description" content="{description}">\n'
        '  <meta property="og:type" content="article">\n'
        '  <meta property="og:site_name" content="AITOP">\n'
        f'  <meta property="og:title" content="{title}">\n'
        f'  <meta property="og:description" content="{description}">\n'
        f'  <meta property="og:url" content="{canonical}">\n'
        f'  <meta property="og:locale" content="{locale}">\n'
        f"  {published}\n"
        f'  <meta property="article:modified_time" content="{_date(item.updated_at, "c")}">\n'
        f"  {section}\n"
        f'  {tags}<meta name="twitter:card" content="summary">\n'
        f'  <meta name="twitter:title" content="{title}">\n'
        f'  <meta name="twitter:description" content="{description}">\n'
        f"  {creator}\n"
    )


def _coverage(item, words: CardWords) -> str:
    """stories/coverage.html: the other sources of the item's story, when it has any."""
    others = getattr(item, "coverage", None)
    if not others:
        return "\n"  # what the template's file holds after its {% endif %}
    summary = coverage_summary(len(others))
    rows = coverage_rows(others, go=words.go, detail=words.detail, after="\n    ")
    return (
        '\n<details class="coverage">\n'
        f"  <summary>{summary}</summary>\n"
        '  <ul class="coverage-list">\n'
        f"    {rows}\n"
        "  </ul>\n"
        "</details>\n"
    )


def _related(related, words: CardWords) -> str:
    if not related:
        return ""
    rows = "".join(
        "\n    <li>\n"
        f'      <a href="{words.detail(other)}">{escape(other.title)}</a>\n'
        f'      <span class="muted">{escape(other.source.name)} · <time datetime="'
        f'{machine_time(other.published_at)}">{_date(other.published_at, "Y-m-d")}</time></span>\n'
        "    </li>\n    "
        for other in related
    )
    return (
        '\n<section class="related" aria-labelledby="related-heading">\n'
        f'  <h2 id="related-heading">{escape(gettext("Related"))}</h2>\n'
        '  <ul class="related-list">\n'
        f"    {rows}\n"
        "  </ul>\n"
        "</section>\n"
    )


def item_page_html(request, context: dict) -> str:
    """The page templates/feed/item_detail.html renders from `item_page_context`'s context."""
    item = context["item"]
    source = item.source
    stream = escape(reverse("feed:stream"))
    # The original's link and the item pages' links, reversed once for the page.
    words = CardWords.current()
    local_day = context.get("local_day")
    day_link = (
        '<span aria-hidden="true">›</span>'
        f' <a href="{escape(reverse("feed:day", args=[local_day]))}">'
        f"{escape(day_heading(local_day, context['today']))}</a>"
        if local_day
        else ""
    )
    name = escape(source.name)
    source_link = f"{stream}?source={_slug_query(source.slug)}"
    if item.authors:
        authors = escape(item.authors)
        byline = f' <span class="item-at">@</span> <span class="item-authors">{authors}</span>'
    elif source.handle:
        byline = f' <span class="item-handle">{escape(source.handle)}</span>'
    else:
        byline = ""
    published = (
        f'<time datetime="{machine_time(item.published_at)}">'
        f"{_date(item.published_at, 'DATETIME_FORMAT')}</time>"
        if item.published_at
        else ""
    )
    category = escape(item.get_category_display()) if item.category else ""
    category_query = f"{stream}?category={escape(item.category)}"
    facts = [
        f"<dt>{escape(gettext('source'))}</dt>\n"
        f'    <dd><a href="{source_link}">{name}</a>'
        f"{' ' + escape(source.handle) if source.handle else ''}</dd>\n    ",
        (
            f"<dt>{escape(gettext('authors'))}</dt><dd>{escape(item.authors)}</dd>"
            if item.authors
            else ""
        ),
        f"\n    <dt>{escape(gettext('kind'))}</dt>\n"
        f'    <dd><a href="{stream}?kind={escape(item.kind)}">'
        f"{escape(item.get_kind_display())}</a></dd>\n    ",
        (
            f"<dt>{escape(gettext('category'))}</dt>"
            f'<dd><a href="{category_query}">{category}</a></dd>'
            if item.category
            else ""
        ),
        f"\n    <dt>{escape(gettext('heat'))}</dt><dd>{item.heat}°</dd>\n    ",
        (
            f"<dt>{escape(gettext('publish time'))}</dt><dd>{published}</dd>"
            if item.published_at
            else ""
        ),
        "\n    ",
        (
            f"<dt>{escape(gettext('originally published'))}</dt><dd>"
            f'<time datetime="{machine_time(item.original_published_at)}">'
            f"{_date(item.original_published_at, 'DATETIME_FORMAT')}</time></dd>"
            if item.original_published_at
            else ""
        ),
        f"\n    <dt>{escape(gettext('original URL'))}</dt>\n"
        f'    <dd class="facts-url"><a href="{words.go(item.pk)}" rel="noopener">'
        f"{escape(item.url)}</a></dd>\n",
    ]
    tags = "".join(
        f'<li><a href="{stream}?tag={_slug_query(tag.slug)}">{escape(tag.name)}</a></li>'
        for tag in item.tags_sorted()
    )
    body = (
        '\n  <section class="item-body" aria-labelledby="excerpt-heading">\n'
        f'    <h2 id="excerpt-heading">{escape(gettext("Excerpt"))}</h2>\n'
        f"    {clean_html(item.body)}\n"
        "  </section>\n  "
        if item.body
        else ""
    )
    content = (
        f'\n<article class="item-page{" item--featured" if item.is_featured else ""}">\n'
        '  <p class="breadcrumbs">\n'
        f'    <a href="{stream}">{escape(gettext("All AI updates"))}</a>\n'
        f"    {day_link}\n"
        "  </p>\n"
        f'  <h1 class="item-page-title">{escape(item.title)}</h1>\n'
        '  <p class="item-meta">\n'
        f"    {published}\n"
        f'    <span class="item-byline"><a class="item-source" href="{source_link}">{name}</a>'
        f"{byline}</span>\n"
        f"    {_badge(item)}\n"
        f"    {_heat(item)}\n"
        "  </p>\n"
        f"  {_summary(item)}\n"
        f"  {_why(item)}\n"
        f"  {_coverage(item, words)}\n"
        f'  <p><a class="button item-original" href="{words.go(item.pk)}" rel="noopener">'
        f"{escape(gettext('Read the original'))}</a></p>\n"
        f'  <ul class="tags" aria-label="{escape(gettext("tags"))}">\n'
        f"    {_category_chip(category_query, category) if item.category else ''}\n"
        f"    {tags}\n"
        "  </ul>\n"
        '  <dl class="facts">\n'
        f"    {''.join(facts)}"
        "  </dl>\n"
        f"  {body}\n"
        "</article>\n"
        f"{_related(context['related'], words)}\n"
    )
    title = f"{escape(item.title)} · AITOP"
    return frame_html(request, context, title=title, head=_head(context), content=content)


def _badge(item) -> str:
    return f'<span class="badge">{escape(gettext("Featured"))}</span>' if item.is_featured else ""


def _heat(item) -> str:
    if not item.heat:
        return ""
    return f'<span class="heat" title="{escape(gettext("heat"))}">{item.heat}°</span>'


def _summary(item) -> str:
    if not item.summary:
        return ""
    return f'<p class="item-summary item-page-summary">{escape(item.summary)}</p>'


def _why(item) -> str:
    if not item.recommendation:
        return ""
    return (
        f'<p class="item-why"><strong>{escape(gettext("Why it matters:"))}</strong>'
        f" {escape(item.recommendation)}</p>"
    )


def _category_chip(url: str, label: str) -> str:
    return f'<li class="tag--category"><a href="{url}">{label}</a></li>'
