"""templates/base.html written in Python: the frame of the public pages written without the engine.

The frame alone cost about 1.3 ms of a cold page's template rendering (two
`{% static %}`, six `{% url %}`, the language links, every variable looked
up through the context's chain). feed/page_html.py (the stream and day
pages) and feed/item_html.py (an item's page) put their blocks in it here;
base.html stays the reference for every page, and their tests compare the
two byte for byte.
"""

from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import get_language, gettext

from feed.card_html import escape
from feed.templatetags.feed_tags import language_links


def aria_current(active) -> str:
    """` aria-current="page"` on the link to the page itself, nothing on the others."""
    return ' aria-current="page"' if active else ""


def _attribute_current(request, name: str) -> str:
    match = request.resolver_match
    return aria_current(match is not None and match.url_name == name)


def _frame_head(request, context: dict, *, title: str, head: str) -> str:
    """base.html from its start to the end of its <header>, with the page's title and head."""
    feeds = context.get("feeds") or ()
    languages = language_links(request)
    origin = f"{escape(request.scheme)}://{escape(request.get_host())}"
    alternates = "".join(
        f'<link rel="alternate" type="{escape(feed.type)}" title="{escape(feed.title)}"'
        f' href="{escape(feed.url)}">\n  '
        for feed in feeds
    )
    alternates += "".join(
        f'<link rel="alternate" hreflang="{escape(language.code)}"'
        f' href="{origin}{escape(language.url)}">\n  '
        for language in languages
    )
    if languages:
        alternates += (
            f'<link rel="alternate" hreflang="x-default" href="{origin}'
            f'{escape(languages[0].url)}">\n  '
        )
    switch = "".join(
        (
            f'\n          \n            <span class="language-current"'
            f' lang="{escape(language.code)}" aria-current="true">'
            f"{escape(language.name)}</span>\n          \n        "
        )
        if language.current
        else (
            f'\n          \n            <a href="{escape(language.url)}"'
            f' lang="{escape(language.code)}" hreflang="{escape(language.code)}">'
            f"{escape(language.name)}</a>\n          \n        "
        )
        for language in languages
    )
    stream = escape(reverse("feed:stream"))
    return (
        f'<!doctype html>\n\n<html lang="{escape(get_language())}">\n<head>\n'
        '  <meta charset="utf-8">\n'
        '  <meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"  <title>{title}</title>\n"
        f'  <link rel="icon" href="{escape(static("favicon.svg"))}" type="image/svg+xml">\n'
        f'  <link rel="stylesheet" href="{escape(static("css/aitop.css"))}">\n'
        f"  {alternates}{head}\n</head>\n<body>\n"
        f'  <a class="skip-link" href="#main">{escape(gettext("Skip to content"))}</a>\n'
        '  <header class="site-header">\n'
        '    <div class="site-header-inner">\n'
        f'      <a class="brand" href="{stream}">AITOP</a>\n'
        f'      <nav class="site-nav" aria-label="{escape(gettext("Site"))}">\n'
        "        <ul>\n"
        f'          <li><a href="{stream}"{_attribute_current(request, "stream")}>'
        f"{escape(gettext('Stream'))}</a></li>\n"
        f'          <li><a href="{escape(reverse("feed:tag-index"))}"'
        f"{_attribute_current(request, 'tag-index')}>{escape(gettext('Tags'))}</a></li>\n"
        f'          <li><a href="{escape(reverse("feed:source-index"))}"'
        f"{_attribute_current(request, 'source-index')}>{escape(gettext('Sources'))}</a></li>\n"
        "        </ul>\n"
        "      </nav>\n"
        "      \n"
        f'      <nav class="language-switch" aria-label="{escape(gettext("Language"))}">\n'
        f"        {switch}\n"
        "      </nav>\n"
        "      \n"
        "    </div>\n"
        "    \n"
        "  </header>\n"
    )


def _frame_foot(context: dict) -> str:
    """base.html from the end of <main> to its end."""
    feeds = context.get("feeds") or ()
    subscribe = ""
    if feeds:
        links = " · ".join(
            f'<a href="{escape(feed.url)}">{escape(feed.label)}</a>' for feed in feeds
        )
        subscribe = (
            f'\n    <p class="subscribe">{escape(gettext("Subscribe:"))}\n'
            f"      {links}\n    </p>\n    "
        )
    footer = escape(gettext("AITOP: everything that happens in AI, reviewed by editors."))
    return (
        "\n  </main>\n"
        '  <footer class="site-footer">\n'
        f"    <p>{footer}</p>\n"
        f"    {subscribe}\n"
        "  </footer>\n</body>\n</html>\n"
    )


def frame_html(request, context: dict, *, title: str, head: str, content: str) -> str:
    """The page base.html renders with these blocks: `title`, `head` and `content`, already HTML."""
    return (
        _frame_head(request, context, title=title, head=head)
        + f'  <main id="main" tabindex="-1">\n    {content}'
        + _frame_foot(context)
    )
