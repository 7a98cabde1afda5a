"""HTML from feeds and integrations, cleaned to what we are willing to show."""

import re
import threading
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


# Built once: nh3.clean() turns these sets into the sanitiser's own on every
# call, nine tenths of the time it takes on a short summary.
_OPTIONS = {
    "tags": ALLOWED_TAGS,
    "attributes": ALLOWED_ATTRIBUTES,
    "url_schemes": ALLOWED_URL_SCHEMES,
    "link_rel": "noopener nofollow",
    "strip_comments": True,
}
_CLEANER = nh3.Cleaner(**_OPTIONS)
# The base URL a call resolves against, for the filter of the one cleaner that
# resolves: nh3 calls the filter in the calling thread, so each thread its own.
_resolving = threading.local()

# What nh3 does to text with no markup: removes NUL, turns CR and CRLF into LF,
# drops a leading BOM, escapes ">" and U+00A0 (tests/feed/test_html.py checks
# every character). Text without "<", "&", NUL, CR or surrogates (which nh3
# refuses) is answered here without a parse.
_NEEDS_PARSE = re.compile("[<&\x00\r\ud800-\udfff]")


def clean_html(html: str, *, base_url: str = "") -> str:
    """Sanitise untrusted HTML with an allow-list; links open safely.

    With `base_url`, relative links and images are made absolute against it
    (a feed's relative links mean nothing once shown on our pages).
    """
    if not _NEEDS_PARSE.search(html) and not html.startswith("\ufeff"):
        return html.replace(">", "&gt;").replace("\xa0", "&nbsp;")
    if not base_url:
        return _CLEANER.clean(html)
    _resolving.base_url = base_url
    try:
        return _RESOLVING_CLEANER.clean(html)
    finally:
        _resolving.base_url = ""


def _absolute_link(tag: str, attribute: str, value: str) -> str | None:
    if attribute not in {"href", "src"} or _plainly_absolute(value) or urlsplit(value).scheme:
        # nh3 checks absolute URLs against ALLOWED_URL_SCHEMES itself.
        return value
    joined = urljoin(_resolving.base_url, value)
    # What this filter returns is not checked again: only http(s) may pass.
    return joined if urlsplit(joined).scheme in {"http", "https"} else None


def _plainly_absolute(value: str) -> bool:
    """urlsplit(value).scheme for most links, without its cost.

    urlsplit raises (and the filter's link is dropped) only for brackets and
    non-ASCII host names: those still go to urlsplit.
    """
    return (
        value.startswith(("https://", "http://"))
        and value.isascii()
        and "[" not in value
        and "]" not in value
    )


_RESOLVING_CLEANER = nh3.Cleaner(**_OPTIONS, attribute_filter=_absolute_link)
