"""Keyword rules: a pattern in the title or summary gives an item a tag.

New entries are tagged by the active rules as they arrive; existing items
only when an editor applies a rule, after a preview of what it would do.
"""

import dataclasses
import re
from collections.abc import Iterable

from django.db.models import Q

from feed.freshness import generation_bump
from feed.ingest.tagging import items_tag
from feed.models import Item, KeywordRule

_LATIN_EDGE = re.compile(r"[0-9A-Za-z]")
PREVIEW_SAMPLE = 10


def keyword_regex(pattern: str) -> re.Pattern:
    """The regex for a rule's pattern: case-insensitive, whole words at Latin edges.

    "RAG" must not tag "storage", so a pattern that starts or ends with a
    Latin letter or digit needs a word boundary there; Chinese has no spaces
    between words, so a pattern edge in Chinese matches anywhere.
    """
    words = pattern.split()
    body = r"\s+".join(re.escape(word) for word in words)
    if not body:
        raise ValueError("a keyword pattern cannot be empty")
    start = r"(?<!\w)" if _LATIN_EDGE.match(words[0][0]) else ""
    end = r"(?!\w)" if _LATIN_EDGE.match(words[-1][-1]) else ""
    return re.compile(start + body + end, re.IGNORECASE)


class KeywordTagger:
    """The active rules, compiled once per fetch."""

    def __init__(self, rules: Iterable[tuple[str, str]]):
        self.rules = [(keyword_regex(pattern), tag) for pattern, tag in rules if pattern.split()]
        # One pass over the text tells whether any rule can match at all: most
        # entries match none, and are done with after that one search.
        self.any = re.compile("|".join(f"(?:{r.pattern})" for r, _ in self.rules), re.IGNORECASE)

    def tags_for(self, *texts: str) -> list[str]:
        """The tags the rules give to an entry with these texts."""
        if not self.rules:
            return []
        text = "\n".join(texts)
        if not self.any.search(text):
            return []
        tags: list[str] = []
        for regex, tag in self.rules:
            if tag not in tags and regex.search(text):
                tags.append(tag)
        return tags


def keyword_tagger_active() -> KeywordTagger:
    """A tagger with every active rule."""
    return KeywordTagger(KeywordRule.objects.filter(is_active=True).values_list("pattern", "tag"))


def _matching_items(*, pattern: str, tag: str):
    """Items that the pattern matches and that do not have the tag yet, newest first."""
    regex = keyword_regex(pattern)
    # The database narrows the candidates; the regex decides (word edges, spaces).
    first_word = pattern.split()[0]
    candidates = (
        Item.objects.filter(Q(title__icontains=first_word) | Q(summary__icontains=first_word))
        .exclude(tagged_items__tag__name__iexact=tag.strip())
        .order_by("-created_at", "-id")
        .only("id", "title", "summary", "status", "source_id")
    )
    for item in candidates.iterator(chunk_size=2000):
        if regex.search(f"{item.title}\n{item.summary}"):
            yield item


@dataclasses.dataclass(frozen=True)
class KeywordPreview:
    """What applying a rule would do: how many items it would tag, and some of them."""

    count: int
    sample: list[Item]


def keyword_rule_preview(*, pattern: str, tag: str) -> KeywordPreview:
    """How many existing items the rule would tag (those without the tag), with a sample."""
    count = 0
    sample: list[Item] = []
    for item in _matching_items(pattern=pattern, tag=tag):
        count += 1
        if len(sample) < PREVIEW_SAMPLE:
            sample.append(item)
    return KeywordPreview(count=count, sample=sample)


def keyword_rule_apply(*, rule: KeywordRule) -> int:
    """Give the rule's tag to every existing item it matches; returns how many got it."""
    ids = [item.id for item in _matching_items(pattern=rule.pattern, tag=rule.tag)]
    generation_bump()  # on commit: the new tag shows on cards and in the facets
    return items_tag((item_id, rule.tag.strip()) for item_id in ids)
