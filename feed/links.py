"""The stream's filters as they live in the query string, and the links that change them.

Every view of the stream is a shareable URL: a `StreamQuery` is the validated
filter state, and its methods give the query string of the page one click
away (another tab, a tag added or removed), keeping every other filter.
"""

import dataclasses
import functools
from urllib.parse import quote, urlencode

# The order parameters appear in, so one filter state has one URL.
_BEFORE_TAGS = ("kind", "category")
_AFTER_TAGS = ("source", "featured", "q", "since", "until")


@dataclasses.dataclass(frozen=True)
class StreamQuery:
    """The active reader filters, each as the string it has in the query string."""

    kind: str = ""
    category: str = ""
    tags: tuple[str, ...] = ()
    source: str = ""
    featured: str = ""
    q: str = ""
    since: str = ""
    until: str = ""

    @classmethod
    def from_cleaned(cls, cleaned: dict, raw) -> "StreamQuery":
        """Build from an `ItemFilter` form's cleaned data (and the raw data for dates)."""
        return cls(
            kind=cleaned.get("kind") or "",
            category=cleaned.get("category") or "",
            tags=tuple(cleaned.get("tag") or ()),
            source=cleaned.get("source") or "",
            featured=cleaned.get("featured") or "",
            q=cleaned.get("q") or "",
            # Dates keep the caller's spelling (a day or a moment), already validated.
            since=(raw.get("since") or "").strip() if cleaned.get("since") else "",
            until=(raw.get("until") or "").strip() if cleaned.get("until") else "",
        )

    @property
    def is_filtered(self) -> bool:
        return self != StreamQuery()

    def params(self) -> list[tuple[str, str]]:
        """The query-string pairs of this state, always in the same order."""
        pairs = [(name, getattr(self, name)) for name in _BEFORE_TAGS]
        pairs += [("tag", slug) for slug in self.tags]
        pairs += [(name, getattr(self, name)) for name in _AFTER_TAGS]
        return [(name, value) for name, value in pairs if value]

    def querystring(self, **extra: str) -> str:
        """`?…` for this state plus `extra` (e.g. before=…), or "" when empty."""
        pairs = self._pairs(extra)
        return f"?{urlencode(pairs)}" if pairs else ""

    def iri_querystring(self, **extra: str) -> str:
        """`querystring()` with non-ASCII letters kept as they are: 3 bytes a letter, not 9.

        For links on a page, which browsers send percent-encoded; redirects and
        feeds keep `querystring()`.
        """
        pairs = self._pairs(extra)
        if not pairs:
            return ""
        return "?" + "&".join(f"{name}={iri_quote(value)}" for name, value in pairs)

    def _pairs(self, extra: dict[str, str]) -> list[tuple[str, str]]:
        return self.params() + [(key, value) for key, value in extra.items() if value]

    def replace(self, **changes) -> "StreamQuery":
        return dataclasses.replace(self, **changes)

    def with_tag(self, slug: str) -> "StreamQuery":
        if slug in self.tags:
            return self
        return self.replace(tags=(*self.tags, slug))

    def without_tag(self, slug: str) -> "StreamQuery":
        return self.replace(tags=tuple(tag for tag in self.tags if tag != slug))


#: The stream with no filter: the starting point of every link that adds one.
NO_FILTERS = StreamQuery()


@functools.lru_cache(maxsize=4096)
def iri_quote(value: str) -> str:
    """A query-string value with letters and digits of any script as they are.

    Everything else (ASCII punctuation, spaces, controls) is percent-encoded as
    in any query string. Remembered: the same tag and source slugs come back on
    card after card.
    """
    return "".join(
        char if not char.isascii() and char.isalnum() else quote(char, safe="-._~")
        for char in value
    )
