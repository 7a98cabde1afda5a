"""What ingestion records about a fetch, worded once: stored in English, shown translated.

A fetch runs in a worker, where there is no reader and so no language. What
it records on the source and in the fetch history (the error, the warning,
why an entry was skipped) is stored as the English wording below with its
details filled in, never in whatever language happened to be active; it is
translated when someone reads it: `recorded_text` finds the wording a stored
text was made from, translates that wording into the active language and
fills the same details back in. So the rows stay in one language whatever
LANGUAGE_CODE was when they were written (old rows included), and the same
history reads in Chinese in the Chinese admin and in English under /en/.
Details that come from elsewhere (a server's reason phrase, httpx's or
feedparser's message) stay as they came; a text that no wording matches is
shown as stored.
"""

import functools
import re

from django.utils.translation import gettext
from django.utils.translation import gettext_noop as _

from aitop import netguard

# Refusals before any request.
URL_UNREADABLE = _("the URL cannot be read")
URL_SCHEME = _("only http and https URLs are fetched, not %(scheme)s")
URL_RELATIVE = _("only http and https URLs are fetched, not a relative URL")
URL_NO_HOST = _("the URL has no host")
NO_FEED_URL = _("the source has no feed URL")

# The fetch (feed.ingest.fetch).
PRIVATE_HOST = _(
    "%(refusal)s (a feed on this machine or its network is fetched only when its host "
    "is listed in AITOP_FETCH_ALLOW_HOSTS)"
)
TOO_SLOW = _("the server was too slow (connect %(connect)s s, read %(read)s s, total %(total)s s)")
TLS = _("the TLS certificate could not be verified: %(detail)s")
NETWORK = _("network error: %(detail)s")
REDIRECT_LOOP = _("redirect loop: back to %(url)s")
REDIRECTS = _("more than %(count)s redirects")
HTTP_STATUS = _("the server answered HTTP %(status)s")
HTTP_STATUS_REASON = _("the server answered HTTP %(status)s %(reason)s")
TOO_LARGE = _("the feed is larger than %(size)s MB (after decompression)")
COMPRESSION = _("the server used a compression we did not ask for: %(codings)s")
CORRUPT = _("the compressed body is corrupt")

# Reading the document (feed.ingest.parse, feed.ingest.xmlsafety).
EMPTY = _("the server sent an empty document")
REFUSED = _("refused: %(reason)s")
TOO_MANY_ENTRIES = _(
    "refused: the document has %(count)s entries, more than %(limit)s "
    "(AITOP_FETCH_MAX_DOCUMENT_ENTRIES)"
)
NOT_A_FEED = _("not a feed: %(detail)s")
NO_FEED_FOUND = _("not a feed: no RSS, Atom or JSON Feed found")
NOT_WELL_FORMED = _("the feed is not well-formed (%(detail)s); read what could be read")
JSON_NOT_UTF8 = _("the JSON Feed is not valid UTF-8; unreadable characters were replaced")
NOT_JSON_FEED = _("not a JSON Feed: %(detail)s")
JSON_NO_ITEMS = _("not a JSON Feed: no list of items")
JSON_NO_VERSION = _("the JSON Feed does not say which version it is")
READER_DIED = _("the process reading the feed ended before it was read")
ENTITIES_MANY = _("the document declares %(count)s entities")
ENTITY_PARAMETER = _("the document declares a parameter entity")
ENTITY_EXTERNAL = _("the document declares an external entity")
ENTITY_UNREADABLE = _("the document has an entity declaration we cannot read")
ENTITY_NESTED = _("the entity %(name)s refers to other entities or markup")
ENTITIES_TOO_LARGE = _("the document's entities would expand to too much text")

# Why an entry was skipped (feed.ingest.normalise, feed.ingest.upsert, feed.ingest.formats).
SKIP_NOT_OBJECT = _("the item is not a JSON object")
SKIP_LONG_LINK = _("link longer than %(count)s characters")
SKIP_NO_LINK = _("no link")
SKIP_NOTHING = _("nothing to know the entry by: no link, id, title or text")
SKIP_OVER_LIMIT = _("over the limit of %(limit)s entries per fetch")
SKIP_TWICE = _("the same entry appears twice in this feed")
SKIP_SAME_ID = _("another entry of this feed has the same id")
SKIP_DELETED = _("deleted by an editor")
SKIP_ARXIV = _("arXiv API error: %(detail)s")

# The pipeline (feed.ingest.pipeline, feed.ingest.batch).
HOST_DEFERRED = _("%(host)s was fetched a moment ago; trying again at %(time)s")
BUSY = _("another worker is fetching this source right now")
LEASE_LOST = _("another worker took this source over while it was fetched; nothing was written")
INTERNAL = _("internal error: %(detail)s")

#: Every wording a recorded text may be made from, netguard's included.
WORDINGS = (
    *(value for name, value in list(globals().items()) if name.isupper()),
    netguard.REFUSED_ADDRESS,
    netguard.UNRESOLVED,
    netguard.NO_ADDRESS,
    netguard.UNREACHABLE,
)

_DETAIL = re.compile(r"%\((\w+)\)s")


def recorded(wording: str, **details) -> str:
    """The text to store: `wording` (one of the above) in English, with its details."""
    return wording % details if details else wording


def recorded_text(text: str) -> str:
    """A stored text in the active language (unchanged if no wording matches it)."""
    if not text:
        return text
    for wording, pattern in _patterns():
        match = pattern.fullmatch(text)
        if match:
            details = {name: recorded_text(value) for name, value in match.groupdict().items()}
            return gettext(wording) % details if details else gettext(wording)
    return text


@functools.cache
def _patterns() -> list[tuple[str, re.Pattern]]:
    # The wording with the most fixed text first, so "HTTP 500 Internal Server
    # Error" is read as a status and a reason, not as one long status.
    patterns = []
    for wording in sorted(WORDINGS, key=lambda w: -len(_DETAIL.sub("", w))):
        parts = _DETAIL.split(wording)
        regex = "".join(
            re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts)
        )
        patterns.append((wording, re.compile(regex, re.DOTALL)))
    return patterns
