"""The stream and day pages written in Python: feed/stream.html, feed/day.html and their partials.

With the cards and the day sections already written in Python
(feed/card_html.py, feed/day_html.py), the template engine still cost 2.7 ms
of a cold stream page's 17 ms of CPU at a million items (docs/benchmarks.md):
half of it the frame of base.html (feed/frame_html.py writes it), the rest
the filter bar, the tags beside the stream and the pager. Here each page is
a few joins of values the view's context already holds, escaped as
autoescaping would.

The templates stay the reference, and stay in use wherever the page is
rendered from another template (the editors' preview extends stream.html):
tests/feed/test_page_html.py renders both ways in each language, for pages
filtered and not, paged and not, empty and full, and with hostile values,
and compares them byte for byte. A change to the page goes into both.
"""

from django.urls import reverse
from django.utils.translation import gettext

from feed.card_html import escape
from feed.day_html import day_sections_hidden
from feed.frame_html import aria_current, frame_html
from feed.templatetags.feed_tags import day_heading


def _tabs(tabs) -> str:
    return "".join(
        f'<li><a href="{escape(tab.url)}"{aria_current(tab.active)}>{escape(tab.label)}</a></li>'
        for tab in tabs
    )


def _hidden(name: str, value: str) -> str:
    return f'<input type="hidden" name="{name}" value="{escape(value)}">' if value else ""


def _filters_html(context: dict) -> str:
    """feed/partials/filters_folded.html with the filter bar it includes."""
    query, chips = context["query"], context["chips"]
    featured = context["featured_link"]
    hidden = "".join(
        f"      {inputs}\n"
        for inputs in (
            _hidden("kind", query.kind),
            _hidden("category", query.category),
            "".join(_hidden("tag", slug) for slug in query.tags),
            _hidden("source", query.source),
            _hidden("featured", query.featured),
            _hidden("since", query.since),
            _hidden("until", query.until),
        )
    )
    chips_html = ""
    if chips:
        remove = escape(gettext("Remove"))
        items = "".join(
            f'\n      <li class="chip chip--{escape(chip.kind)}">{escape(chip.prefix)}'
            f'{escape(chip.label)}<a class="chip-remove" href="{escape(chip.remove_url)}"'
            f' aria-label="{gettext("Remove filter %(label)s") % {"label": escape(chip.label)}}"'
            f' title="{remove}">×</a></li>\n    '
            for chip in chips
        )
        clear = (
            f'<li><a class="chips-clear" href="{escape(context["clear_url"])}">'
            f"{escape(gettext('Clear all'))}</a></li>"
            if len(chips) > 1
            else ""
        )
        chips_html = (
            f'\n  <ul class="chips" aria-label="{escape(gettext("Active filters"))}">\n    '
            f"{items}\n    {clear}\n  </ul>\n  "
        )
    count = f" ({len(chips)})" if chips else ""
    search = escape(gettext("Search"))
    placeholder = escape(gettext("Search titles, summaries, authors"))
    return (
        f'<details class="filters-fold"{" open" if query.is_filtered else ""}>\n'
        f"  <summary>{escape(gettext('Filters'))}{count}</summary>\n"
        '  \n<div class="filters">\n'
        f'  <nav class="tabs" aria-label="{escape(gettext("Kind"))}">\n'
        "    <ul>\n"
        f"      {_tabs(context['kind_tabs'])}\n"
        "    </ul>\n"
        "  </nav>\n"
        f'  <nav class="tabs tabs--category" aria-label="{escape(gettext("Category"))}">\n'
        "    <ul>\n"
        f"      {_tabs(context['category_tabs'])}\n"
        "    </ul>\n"
        "  </nav>\n"
        '  <div class="filter-tools">\n'
        f'    <form class="search" role="search" method="get"'
        f' action="{escape(context["search_action"])}">\n'
        f'      <label class="visually-hidden" for="search-q">{search}</label>\n'
        f'      <input type="search" id="search-q" name="q" value="{escape(query.q)}"'
        ' maxlength="100"\n'
        f'             placeholder="{placeholder}">\n'
        f"{hidden}"
        f'      <button type="submit">{search}</button>\n'
        "    </form>\n"
        f'    <a class="toggle" href="{escape(featured.url)}"{aria_current(featured.active)}>'
        f"{'✓ ' if featured.active else ''}{escape(featured.label)}</a>\n"
        "  </div>\n"
        f"  {chips_html}\n"
        "</div>\n\n"
        "</details>\n"
    )


def _aside_html(context: dict) -> str:
    """feed/partials/aside.html: the page's tags and its feeds."""
    filtered = context["query"].is_filtered
    facets = context["facets"]
    if facets:
        links = "".join(
            f'<li><a href="{escape(facet.url)}"><span class="facet-name">{escape(facet.label)}'
            f'</span> <span class="facet-count">{facet.count}</span></a></li>'
            for facet in facets
        )
        listed = f'\n    <ul class="facets">\n      {links}\n    </ul>\n    '
    else:
        listed = f'\n    <p class="muted">{escape(gettext("No other tags here."))}</p>\n    '
    feeds = "".join(
        f'<li><a href="{escape(feed.url)}" type="{escape(feed.type)}">{escape(feed.label)}</a></li>'
        for feed in context.get("feeds") or ()
    )
    if filtered:
        heading, feeds_of = gettext("Tags in this view"), gettext("Feeds of exactly this view:")
    else:
        heading, feeds_of = gettext("Popular tags"), gettext("Feeds of the whole stream:")
    return (
        '\n<aside class="layout-aside" aria-labelledby="facets-heading">\n'
        '  <section class="panel">\n'
        f'    <h2 id="facets-heading">{escape(heading)}</h2>\n'
        f"    {listed}\n"
        f'    <p><a href="{escape(reverse("feed:tag-index"))}">'
        f"{escape(gettext('All tags'))}</a></p>\n"
        "  </section>\n"
        '  <section class="panel">\n'
        f"    <h2>{escape(gettext('Subscribe'))}</h2>\n"
        f'    <p class="muted">{escape(feeds_of)}</p>\n'
        '    <ul class="feed-links">\n'
        f"      {feeds}\n"
        "    </ul>\n"
        "  </section>\n"
        "</aside>\n"
    )


def _pager_html(context: dict) -> str:
    """feed/partials/pager.html: the links to the latest and to older items."""
    older, newest = context.get("older_url"), context.get("newest_url")
    if not (older or newest):
        return "\n"
    latest = f'<a href="{escape(newest)}">{escape(gettext("← Latest"))}</a>' if newest else ""
    more = (
        f'<a class="pager-older" href="{escape(older)}" rel="next">{escape(gettext("Older →"))}</a>'
        if older
        else ""
    )
    return (
        f'\n<nav class="pager" aria-label="{escape(gettext("More items"))}">\n'
        f"  {latest}\n  {more}\n</nav>\n\n"
    )


def _nothing_html(context: dict) -> str:
    """feed/partials/nothing.html: what an empty page says."""
    if context["query"].is_filtered:
        clear = context.get("clear_url")
        link = (
            f'<a href="{escape(clear)}">{escape(gettext("Clear all filters"))}</a>' if clear else ""
        )
        said = f"{escape(gettext('Nothing matches.'))} {link}"
    else:
        said = escape(gettext("Nothing here yet."))
    return f'<p class="empty">{said}</p>\n'


def stream_page_html(request, context: dict) -> str:
    """The page templates/feed/stream.html renders from `feed.pages.stream_context`'s context."""
    every = escape(gettext("All AI updates"))
    title = "".join(f"{escape(chip.prefix)}{escape(chip.label)} · " for chip in context["chips"])
    head = f'<link rel="canonical" href="{escape(context["canonical_url"])}">'
    if context.get("older_url"):
        head += f'\n  <link rel="next" href="{escape(context["older_url"])}">'
    # The day sections are already written (feed/day_html.py); an empty page says why.
    days = context["days_html"]() if context["days"] else f"\n      {_nothing_html(context)}\n    "
    content = (
        '\n<div class="layout">\n'
        '  <header class="page-head">\n'
        f"    <h1>{every}</h1>\n"
        f'    <p class="lede">{escape(gettext("The whole stream of AI news, day by day."))}</p>\n'
        "  </header>\n"
        f"  {_filters_html(context)}\n"
        '  <div class="layout-main">\n'
        "    \n"
        f"    {days}\n"
        f"    {_pager_html(context)}\n"
        "  </div>\n"
        f"  {_aside_html(context)}\n"
        "</div>\n"
    )
    return frame_html(request, context, title=f"{title}{every} · AITOP", head=head, content=content)


def day_page_html(request, context: dict) -> str:
    """The page templates/feed/day.html renders: `stream_context`'s context plus the day's own."""
    query, today = context["query"], context["today"]
    querystring = escape(query.querystring())
    every = escape(gettext("All AI updates"))
    heading = escape(day_heading(context["day"], today))
    if context["days"]:
        # The template's loop around each included section.
        sections = "".join(
            f"\n      {section}\n    " for section in day_sections_hidden(context["days"])
        )
    else:
        sections = f"\n      {_nothing_html(context)}\n    "
    newer, older = context.get("newer_day"), context.get("older_day")
    newer_link = (
        f'<a href="{escape(reverse("feed:day", args=[newer]))}{querystring}">'
        f"← {escape(day_heading(newer, today))}</a>"
        if newer
        else ""
    )
    older_link = (
        f'<a class="pager-older-day" href="{escape(reverse("feed:day", args=[older]))}'
        f'{querystring}">{escape(day_heading(older, today))} →</a>'
        if older
        else ""
    )
    content = (
        '\n<div class="layout">\n'
        '  <header class="page-head">\n'
        f'    <p class="breadcrumbs"><a href="{escape(reverse("feed:stream"))}{querystring}">'
        f"{every}</a></p>\n"
        f"    <h1>{heading}</h1>\n"
        "  </header>\n"
        f"  {_filters_html(context)}\n"
        '  <div class="layout-main">\n'
        f"    {sections}\n"
        f"    {_pager_html(context)}\n"
        f'    <nav class="pager" aria-label="{escape(gettext("Other days"))}">\n'
        f"      {newer_link}\n"
        f"      {older_link}\n"
        "    </nav>\n"
        "  </div>\n"
        f"  {_aside_html(context)}\n"
        "</div>\n"
    )
    head = f'<link rel="canonical" href="{escape(context["canonical_url"])}">'
    title = f"{heading} · {every} · AITOP"
    return frame_html(request, context, title=title, head=head, content=content)
