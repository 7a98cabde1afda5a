"""Normalising entries: from what a feed says to what we store.

Pure functions, no ORM queries: canonical URLs, plain-text titles and
summaries, sanitised bodies, UTC times, and every value cleaned of the
characters a database refuses (PostgreSQL rejects NUL) and cut to the length
of its column (SQLite would store over-long text without a word).
"""

import dataclasses
import datetime
import functools
import hashlib
import html
import re
import unicodedata
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

import nh3
from django.utils.text import Truncator

from feed.html import clean_html
from feed.ingest.parse import RawEntry
from feed.models import Item

# Query parameters that say who sent the reader, not what they read.
TRACKING_PARAMETERS = frozenset(
    {
        "fbclid",
        "gclid",
        "dclid",
        "gbraid",
        "wbraid",
        "msclkid",
        "yclid",
        "igshid",
        "mc_cid",
        "mc_eid",
        "_hsenc",
        "_hsmi",
        "mkt_tok",
        "vero_id",
        "oly_anon_id",
        "oly_enc_id",
        "spm",
    }
)
SUMMARY_MAX = 500  # characters of plain text
BODY_MAX = 20_000  # characters of HTML
TITLE_FROM_TEXT_MAX = 120
EARLIEST = datetime.datetime(1990, 1, 1, tzinfo=datetime.UTC)

# C0 controls but tab and newlines, DEL, C1 controls, lone surrogates, non-characters.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_BLOCK_TAG = re.compile(
    r"<(/?)(p|div|br|li|ul|ol|h[1-6]|tr|td|th|blockquote|pre|section|article|figure|figcaption|table)\b",
    re.IGNORECASE,
)
_TAG = re.compile(r"<[^>]*>")
_SENTENCE_END = re.compile(r"[.!?…](?=\s)|[.!?…]$|[。！？]")
_WORD = re.compile(r"\w+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "and",
        "or",
        "in",
        "on",
        "at",
        "to",
        "for",
        "with",
        "from",
        "by",
        "is",
        "are",
        "was",
        "be",
        "as",
        "its",
        "it",
        "this",
        "that",
        "new",
    ]
)
_PATH_SAFE = "/%:@!$&'()*+,;=-._~"
_QUERY_SAFE = "/%:@!$'()*+,;=-._~?="


@dataclasses.dataclass
class Entry:
    """An entry ready to become (or update) an item."""

    guid: str
    url: str
    title: str
    authors: str
    published_at: datetime.datetime
    # False when the feed gave no usable date and the fetch time stands in.
    published_from_feed: bool
    summary: str
    body: str
    tags: list[str]
    cluster_key: str


@dataclasses.dataclass(frozen=True)
class Skip:
    """An entry we did not take, and the reason an editor can read."""

    reason: str
    ref: str = ""


@functools.cache
def max_length(field: str) -> int:
    """The column length of an Item field, from the model itself."""
    return Item._meta.get_field(field).max_length


def text_clean(value: str) -> str:
    """The text without NUL, other control characters and lone surrogates."""
    return _CONTROL.sub("", value or "")


def text_plain(value: str) -> str:
    """Plain text from HTML or text: tags removed, entities decoded, whitespace folded."""
    value = text_clean(value)
    if "<" in value:
        value = _BLOCK_TAG.sub(r" <\1\2", value)
        value = nh3.clean(value, tags=set(), clean_content_tags={"script", "style"})
    if "&" in value:
        value = text_clean(html.unescape(value))
    return " ".join(value.split())


def text_of_clean_html(value: str) -> str:
    """Plain text of HTML that clean_html has already sanitised (so a regex will do)."""
    value = _TAG.sub("", _BLOCK_TAG.sub(r" <\1\2", value))
    return " ".join(text_clean(html.unescape(value)).split())


def text_fit(value: str, limit: int) -> str:
    """`value` cut to `limit` characters, at a word where possible, marked with "…"."""
    if len(value) <= limit:
        return value
    cut = value[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def summary_cut(text: str, limit: int = SUMMARY_MAX) -> str:
    """`text` cut at the last sentence end within `limit`, else at a word."""
    if len(text) <= limit:
        return text
    window = text[:limit]
    ends = [m.end() for m in _SENTENCE_END.finditer(window)]
    if ends and ends[-1] >= limit * 0.4:
        return window[: ends[-1]].strip()
    return text_fit(text, limit)


def first_sentence(text: str, limit: int) -> str:
    """The first sentence of `text`, if it ends within `limit`; else `text` cut there."""
    match = _SENTENCE_END.search(text)
    if match and match.end() <= limit:
        return text[: match.end()]
    return text_fit(text, limit)


def url_canonical(url: str, *, base: str = "") -> str | None:
    """The one spelling of a URL we store, or None if it is not an http(s) URL.

    Resolved against `base`; scheme and host lower-cased, default port, user
    name and fragment dropped, tracking parameters (utm_*, fbclid, gclid…)
    removed, unsafe characters percent-encoded. Everything else is kept as
    the publisher wrote it: servers may treat case and order as meaningful.
    """
    url = text_clean(url).strip()
    if not url:
        return None
    try:
        if base:
            url = urljoin(base, url)
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if scheme not in {"http", "https"} or not host:
        return None
    try:
        host = host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError:
        return None
    if ":" in host:
        host = f"[{host}]"
    if port and port != {"http": 80, "https": 443}[scheme]:
        host = f"{host}:{port}"
    path = quote(parts.path or "/", safe=_PATH_SAFE)
    query = "&".join(
        quote(pair, safe=_QUERY_SAFE)
        for pair in parts.query.split("&")
        if pair and not _is_tracking(pair.split("=", 1)[0])
    )
    return urlunsplit((scheme, host, path, query, ""))


def _is_tracking(name: str) -> bool:
    name = name.lower()
    return name.startswith("utm_") or name in TRACKING_PARAMETERS


def published_from(
    value: datetime.datetime | None, *, now: datetime.datetime
) -> tuple[datetime.datetime, bool]:
    """An aware UTC time and whether the feed gave it; missing or absurd → `now`."""
    if value is None or value.tzinfo is None:
        return now, False
    value = value.astimezone(datetime.UTC)
    if value < EARLIEST or value > now + datetime.timedelta(days=1):
        return now, False
    return value, True


def cluster_key_for(*, title: str, arxiv_id: str = "") -> str:
    """A cheap fingerprint of the story, shared by the same story from other sources.

    arXiv papers are keyed by their id. Other stories by the significant words
    of their title (Chinese and Japanese by character), in order: "OpenAI
    releases GPT-5" from two sites gives one key. Titles with fewer than three
    such words ("0.2.0", "Weekly notes") get no key, as they say nothing of
    the story.
    """
    if arxiv_id:
        basis = f"arxiv:{arxiv_id.lower()}"
    else:
        tokens: list[str] = []
        for word in _WORD.findall(unicodedata.normalize("NFKC", title).casefold()):
            if _CJK.search(word):
                tokens.extend(ch for ch in word if not ch.isspace())
            elif word not in _STOPWORDS and not word.isdigit():
                tokens.append(word)
        if len(tokens) < 3:
            return ""
        basis = " ".join(tokens[:16])
    return hashlib.blake2b(basis.encode(), digest_size=16).hexdigest()


def entry_normalise(raw: RawEntry, *, base_url: str, now: datetime.datetime) -> Entry | Skip:
    """The entry as we store it, or the reason it cannot be used."""
    title = text_plain(raw.title)
    ref = text_fit(title or raw.guid or raw.link, 120)
    if raw.unusable:
        return Skip(raw.unusable, ref)
    if not raw.link.strip():
        return Skip("no link", ref)
    url = url_canonical(raw.link, base=base_url)
    if url is None:
        return Skip("no usable link (not an http or https URL)", ref)
    if len(url) > max_length("url"):
        return Skip(f"link longer than {max_length('url')} characters", ref)

    body = ""
    if raw.content or raw.summary:
        body = clean_html(text_clean(raw.content or raw.summary), base_url=raw.base or base_url)
    if raw.summary and raw.content:
        summary_text = text_plain(raw.summary)
    else:
        # The summary and the body come from the same HTML: sanitise it once.
        summary_text = text_of_clean_html(body)
    if not title:
        title = first_sentence(summary_text, TITLE_FROM_TEXT_MAX)
    if not title:
        return Skip("no title and no text", ref)

    guid = text_clean(raw.guid).strip()
    if len(guid) > max_length("guid"):
        guid = "sha256:" + hashlib.sha256(guid.encode("utf-8", "replace")).hexdigest()
    published_at, from_feed = published_from(raw.published, now=now)
    authors = []
    for name in raw.authors:
        name = text_plain(name)
        if name and name not in authors:
            authors.append(name)
    if len(body) > BODY_MAX:
        body = clean_html(Truncator(body).chars(BODY_MAX, html=True))
    return Entry(
        guid=guid,
        url=url,
        title=text_fit(title, max_length("title")),
        authors=text_fit(", ".join(authors), max_length("authors")),
        published_at=published_at,
        published_from_feed=from_feed,
        summary=summary_cut(summary_text),
        body=body,
        tags=[text_fit(text_plain(t), 100) for t in raw.tags if text_plain(t)],
        cluster_key=cluster_key_for(title=title, arxiv_id=raw.arxiv_id),
    )


def entries_normalise(
    raws: list[RawEntry], *, base_url: str, now: datetime.datetime, limit: int
) -> tuple[list[Entry], list[Skip]]:
    """Normalise up to `limit` entries; the rest, and duplicates, are skipped with a reason."""
    entries: list[Entry] = []
    skips: list[Skip] = []
    seen_urls: set[str] = set()
    seen_guids: set[str] = set()
    for position, raw in enumerate(raws):
        if position >= limit:
            skips.extend(
                Skip(
                    f"over the limit of {limit} entries per fetch",
                    text_fit(text_plain(r.title), 120),
                )
                for r in raws[limit:]
            )
            break
        result = entry_normalise(raw, base_url=base_url, now=now)
        if isinstance(result, Skip):
            skips.append(result)
            continue
        if result.url in seen_urls or (result.guid and result.guid in seen_guids):
            skips.append(Skip("the same entry appears twice in this feed", result.title))
            continue
        seen_urls.add(result.url)
        if result.guid:
            seen_guids.add(result.guid)
        entries.append(result)
    return entries, skips
