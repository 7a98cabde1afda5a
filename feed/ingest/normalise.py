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

from feed.html import clean_html
from feed.ingest import wording
from feed.ingest.parse import RawEntry
from feed.ingest.wording import recorded
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
    # The fragment of the feed's link (canonical URLs drop it), kept for entries
    # of one feed that differ only by it.
    link_fragment: str = ""


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


def text_start_of_clean_html(value: str, length: int) -> str:
    """`text_of_clean_html(value)`, or a start of it longer than `length` characters.

    A summary reads the first SUMMARY_MAX characters of the text, so a long
    body is read only that far. Cut just after a tag's ">", the HTML reads as
    the start of what the whole reads (a word split by a tag may end early),
    so the first `length` characters are the same.
    """
    cut = 4 * length
    while cut < len(value):
        end = value.rfind(">", 0, cut) + 1
        if end:
            text = text_of_clean_html(value[:end])
            if len(text) > length:
                return text
        cut *= 4
    return text_of_clean_html(value)


def body_cut(html: str, limit: int = BODY_MAX) -> str:
    """Sanitised HTML cut to about `limit` characters, before a tag, marked with "…".

    Sanitised again, which closes the elements left open (and drops a tag an
    odd attribute value cut). Django's Truncator counted the text instead, in
    an HTML parser written in Python: 2–3 % of a worker's time on the corpus.
    """
    end = html.rfind("<", 0, limit)
    if end <= 0:
        # Text alone: not inside an entity ("&amp;" cut to "&am" would show as such).
        end = limit
        entity = html.rfind("&", limit - 10, limit)
        if entity != -1 and ";" not in html[entity:limit]:
            end = entity
    return clean_html(html[:end] + "…")


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
        parts = urlsplit(url)
        if base and not _joins_to_itself(url, parts):
            url = urljoin(base, url)
            parts = urlsplit(url)
        elif base:
            urlsplit(base)  # urljoin refuses a base it cannot read: so does this
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


def _joins_to_itself(url: str, parts) -> bool:
    """True if urljoin(base, url), whatever the base, is url as urlsplit reads it (most links).

    urljoin hands back an absolute URL with a host unresolved, only re-spelt:
    the empty parameters of "…/page;" are dropped, so those still go to it.
    """
    return url.startswith(("https://", "http://")) and bool(parts.netloc) and ";" not in url


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


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()


def identity_synthesize(
    *, guid: str, title: str, text: str, published: str, feed_url: str
) -> tuple[str, str] | None:
    """A stable (guid, url) for an entry that has no usable link of its own, or None.

    RSS 0.9x items may have neither link nor guid, JSON Feed items an id and
    no url, Atom entries a tag: URI only: every one is still an entry of the
    feed. Its identity comes from what it has — its guid, else its title,
    text and date — so the next fetch finds it again; its URL is the feed's
    own, with that identity as the fragment (unique, and it leads a reader
    to where the entry is).
    """
    base = url_canonical(feed_url)
    if base is None:
        return None
    if guid:
        digest = _digest(f"guid:{guid}")
    elif title or text:
        digest = _digest(f"text:{title}\n{text}\n{published}")
        guid = f"content:{digest[:40]}"
    else:
        return None
    return guid, f"{base}#item-{digest[:16]}"


def entry_normalise(raw: RawEntry, *, base_url: str, now: datetime.datetime) -> Entry | Skip:
    """The entry as we store it, or the reason it cannot be used."""
    title = text_plain(raw.title)
    ref = text_fit(title or raw.guid or raw.link, 120)
    if raw.unusable:
        return Skip(raw.unusable, ref)
    url = url_canonical(raw.link, base=base_url) if raw.link.strip() else None
    if url is not None and len(url) > max_length("url"):
        return Skip(recorded(wording.SKIP_LONG_LINK, count=max_length("url")), ref)

    body = ""
    if raw.content or raw.summary:
        # A base that is not http(s) (javascript:, tag:…) resolves nothing: the feed's URL does.
        content_base = (
            raw.base if raw.base.lower().startswith(("http://", "https://")) else base_url
        )
        body = clean_html(text_clean(raw.content or raw.summary), base_url=content_base)
    summary_from_body = not (raw.summary and raw.content)
    if summary_from_body:
        # The summary and the body come from the same HTML: sanitise it once.
        summary_text = text_start_of_clean_html(body, SUMMARY_MAX)
    else:
        summary_text = text_plain(raw.summary)

    guid = text_clean(raw.guid).strip()
    if len(guid) > max_length("guid"):
        guid = "sha256:" + _digest(guid)
    published_at, from_feed = published_from(raw.published, now=now)
    if url is None:
        identity = identity_synthesize(
            guid=guid,
            title=title,
            # An entry that is only an image is known by its markup.
            text=(text_of_clean_html(body) if summary_from_body else summary_text) or body,
            published=published_at.isoformat() if from_feed else "",
            feed_url=base_url,
        )
        if identity is None:
            if url_canonical(base_url) is None:
                return Skip(recorded(wording.SKIP_NO_LINK), ref)
            return Skip(recorded(wording.SKIP_NOTHING), ref)
        guid, url = identity
    if not title:
        title = first_sentence(summary_text, TITLE_FROM_TEXT_MAX)
    if not title and guid and not guid.startswith("content:"):
        # An Atom entry with nothing but its id (tag:github.com,2008:…): the id names it.
        title = text_fit(guid, TITLE_FROM_TEXT_MAX)
    if not title:
        # Only markup we do not show (an image, scripts, empty tags): the link names it.
        title = text_fit(url.split("://", 1)[-1], TITLE_FROM_TEXT_MAX)
    authors = []
    for name in raw.authors:
        name = text_plain(name)
        if name and name not in authors:
            authors.append(name)
    if len(body) > BODY_MAX:
        body = body_cut(body)
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
        link_fragment=urlsplit(text_clean(raw.link).strip()).fragment if raw.link else "",
    )


def _distinct_url(entry: Entry, taken: set[str]) -> str:
    """A URL for `entry` that no earlier entry of its feed has (see entries_normalise)."""
    fragment = quote(entry.link_fragment, safe=_QUERY_SAFE + "#")
    candidate = f"{entry.url}#{fragment}" if fragment else ""
    if candidate and candidate not in taken and len(candidate) <= max_length("url"):
        return candidate
    return f"{entry.url}#item-{_digest(f'guid:{entry.guid}')[:16]}"


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
                    recorded(wording.SKIP_OVER_LIMIT, limit=limit),
                    text_fit(text_plain(r.title), 120),
                )
                for r in raws[limit:]
            )
            break
        result = entry_normalise(raw, base_url=base_url, now=now)
        if isinstance(result, Skip):
            skips.append(result)
            continue
        if result.guid and result.guid in seen_guids:
            reason = recorded(
                wording.SKIP_TWICE if result.url in seen_urls else wording.SKIP_SAME_ID
            )
            skips.append(Skip(reason, result.title))
            continue
        if result.url in seen_urls:
            if not result.guid:
                skips.append(Skip(recorded(wording.SKIP_TWICE), result.title))
                continue
            # Two entries (different ids) with one link: a changelog page, a
            # day's page with anchors. Each is an entry; the second is told
            # apart by its link's own fragment, else by one from its id.
            result.url = _distinct_url(result, seen_urls)
        seen_urls.add(result.url)
        if result.guid:
            seen_guids.add(result.guid)
        entries.append(result)
    return entries, skips
