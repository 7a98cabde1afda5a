"""The default backend: no network, no model, nothing to pay.

It writes only what can be taken from the item itself: the leading sentences
of its summary (or body) in the item's own language, the category and tags
its source gives and the editors' keyword rules find. The "why" line, and a
headline in another language, are left for an editor.
"""

import datetime

from enrichment.backends.base import Answer
from enrichment.prompts import LIMITS
from enrichment.text import extractive_summary, plain_text, text_language
from enrichment.validate import Draft
from feed.ingest.keywords import keyword_tagger_active
from feed.models import Category, Item, Kind


class OfflineBackend:
    name = "offline"

    def answer(self, *, item: Item, language: str, now: datetime.datetime) -> Answer:
        """An extractive draft of `item`; fields it cannot write are listed in `needs_editor`."""
        title = plain_text(item.title)
        source_text = item.summary or item.body
        summary = extractive_summary(source_text, limit=LIMITS.summary_max)
        item_language = text_language(f"{title} {plain_text(source_text)}")
        needs_editor = ["recommendation"]
        headline = ""
        if item_language == language:
            headline = extractive_summary(title, limit=LIMITS.headline_max)
        else:
            needs_editor.append("headline")
        if not summary or item_language != language:
            needs_editor.append("summary")
        category = item.category or item.source.default_category
        if not category and item.kind == Kind.PAPER:
            category = Category.PAPER
        if not category:
            needs_editor.append("category")
        tagger = keyword_tagger_active()
        names = [
            *item.source.default_tags.values_list("name", flat=True),
            *tagger.tags_for(title, plain_text(item.summary), plain_text(item.body)),
        ]
        tags = [name for name in dict.fromkeys(names) if len(name) <= LIMITS.tag_max]
        return Answer(
            backend=self.name,
            model="",
            prompt_version="",
            draft=Draft(
                headline=headline,
                summary=summary,
                why="",
                category=category,
                tags=tags[: LIMITS.tags_max],
            ),
            needs_editor=sorted(needs_editor),
        )
