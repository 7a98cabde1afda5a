"""HTML from feeds and integrations, cleaned to what we are willing to show."""

from urllib.parse import urljoin, urlsplit

import nh3

# Text structure, links and images; nothing that runs, styles or embeds.
ALLOWED_TAGS = {
    "a",
    "abbr",
    "b",
    "blockquote",
    "br",
    "code",
    "dd",
    "del",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "img",
    "li",
    "ol",
    "p",
    "pre",
    "q",
    "s",
    "small",
    "strong",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "u",
    "ul",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "img": {"src", "alt", "title", "width", "height"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan", "scope"},
}
# No javascript:, data: or vbscript: links or images.
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}


def clean_html(html: str, *, base_url: str = "") -> str:
    """Sanitise untrusted HTML with an allow-list; links open safely.

    With `base_url`, relative links and images are made absolute against it
    (a feed's relative links mean nothing once shown on our pages).
    """
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="noopener nofollow",
        strip_comments=True,
        attribute_filter=_absolute_links(base_url) if base_url else None,
    )


def _absolute_links(base_url: str):
    def absolute(tag: str, attribute: str, value: str) -> str | None:
        if attribute not in {"href", "src"} or urlsplit(value).scheme:
            # nh3 checks absolute URLs against ALLOWED_URL_SCHEMES itself.
            return value
        joined = urljoin(base_url, value)
        # What this filter returns is not checked again: only http(s) may pass.
        return joined if urlsplit(joined).scheme in {"http", "https"} else None

    return absolute
