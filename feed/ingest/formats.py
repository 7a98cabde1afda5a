"""What particular publishers put in their feeds, and how we read it.

arXiv: its Atom API (export.arxiv.org/api/query) and its RSS listings
(rss.arxiv.org/rss/cs.LG, and the older export.arxiv.org/rss layout) name a
paper by its arXiv id, which becomes the guid (without the version, so v2
updates the item of v1); the abstract page is the URL, authors come as a
list, arXiv categories become tags, and the listing's boilerplate around the
abstract and title is removed. An arXiv API error answer is one entry under
/api/errors; it is skipped with the error as the reason.

FeedBurner: the item's link is a redirector; `feedburner:origLink` is the
article itself.

GitHub's Atom feeds (releases, commits, tags) are plain Atom with a stable
tag: URI as id, so they need nothing beyond the generic path.
"""

import re

from feed.ingest import wording
from feed.ingest.wording import recorded

_ARXIV_ABS = re.compile(
    r"^https?://(?:www\.|export\.)?arxiv\.org/abs/(?P<id>[\w.\-/]+?)(?:v\d+)?/?$", re.IGNORECASE
)
_ARXIV_OAI = re.compile(r"^oai:arXiv\.org:(?P<id>[\w.\-/]+?)(?:v\d+)?$", re.IGNORECASE)
_ARXIV_ERROR = re.compile(r"^https?://(?:www\.|export\.)?arxiv\.org/api/errors", re.IGNORECASE)
_ARXIV_CATEGORY = re.compile(r"^[a-z][a-z\-]*(?:\.[A-Za-z][A-Za-z\-]*)?$")
# New listings: "arXiv:2406.01234v1 Announce Type: new \nAbstract: The text…"
_ARXIV_ANNOUNCE = re.compile(
    r"^\s*(?:<p>\s*)?arXiv:\S+\s+Announce Type:\s*\S+\s*(?:Abstract:\s*)?", re.IGNORECASE
)
# Old listings: "A title. (arXiv:1234.5678v1 [cs.LG])"
_ARXIV_TITLE_SUFFIX = re.compile(r"\s*\(arXiv:[^)]*\)\s*$", re.IGNORECASE)
_AUTHOR_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")


def arxiv_id_of(*candidates: str) -> str:
    """The arXiv id (without version) named by an abstract URL or an OAI guid, or ""."""
    for value in candidates:
        value = (value or "").strip()
        match = _ARXIV_ABS.match(value) or _ARXIV_OAI.match(value)
        if match:
            return match.group("id")
    return ""


def adapt_entry(raw, entry) -> None:
    """Apply publisher rules to an entry feedparser read (mutates `raw`)."""
    # FeedBurner links go through its redirector; the original is given beside.
    original = entry.get("feedburner_origlink")
    # (An origLink with attributes is a dict of them in feedparser's reading.)
    if isinstance(original, str) and original:
        raw.link = original
    if _ARXIV_ERROR.match(raw.guid) or _ARXIV_ERROR.match(raw.link):
        detail = re.sub(r"\s+", " ", raw.summary).strip() or raw.title
        raw.unusable = recorded(wording.SKIP_ARXIV, detail=detail)[:200]
        return
    arxiv_id = arxiv_id_of(raw.link, raw.guid)
    if not arxiv_id:
        return
    raw.arxiv_id = arxiv_id
    raw.guid = arxiv_id
    raw.link = f"https://arxiv.org/abs/{arxiv_id}"
    raw.title = _ARXIV_TITLE_SUFFIX.sub("", raw.title)
    raw.summary = _ARXIV_ANNOUNCE.sub("", raw.summary)
    if len(raw.authors) == 1:
        # RSS listings give all authors in one dc:creator, separated by commas.
        raw.authors = [name for name in _AUTHOR_SPLIT.split(raw.authors[0]) if name.strip()]
    tags = []
    for tag in entry.get("tags", []) or []:
        term = (tag.get("term") or "").strip()
        if _ARXIV_CATEGORY.match(term) and term not in tags:
            tags.append(term)
    raw.tags = tags


def adapt_json_entry(raw) -> None:
    """Apply publisher rules to a JSON Feed item (arXiv ids only, so far)."""
    arxiv_id = arxiv_id_of(raw.link, raw.guid)
    if arxiv_id:
        raw.arxiv_id = arxiv_id
        raw.guid = arxiv_id
        raw.link = f"https://arxiv.org/abs/{arxiv_id}"
