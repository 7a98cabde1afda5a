"""Putting items into stories: automatic matching on arrival, and the lead order."""

import logging

from django.db import transaction
from django.db.models import Count

from feed.freshness import generation_bump
from feed.models import PUBLIC_STATUSES, Item
from stories.index import (
    candidate_ids,
    item_index,
    item_signature,
    item_time,
    items_index,
    signatures_of,
)
from stories.matching.verdict import Verdict, verdict
from stories.models import Story, StoryItem

logger = logging.getLogger(__name__)


def item_match(
    *, item: Item, signatures: dict | None = None, keys: list[int] | None = None
) -> StoryItem | None:
    """Index a new item and put it into the story it reports, if the matcher finds one.

    An item already in a story stays there (editors move items, not the
    matcher); the best-scoring candidate's story wins, so one loose match
    never chains two stories together. `signatures` (item id → signature)
    carries the signatures computed so far from one item to the next;
    `keys` are given when the item is already in the index (`items_index`).
    """
    signatures = {} if signatures is None else signatures
    signature = signatures.get(item.pk) or item_signature(item)
    signatures[item.pk] = signature
    if keys is None:
        keys = item_index(item=item, signature=signature)
    link = StoryItem.objects.filter(item=item).first()
    if link is not None:
        return link
    best: tuple[int, Verdict] | None = None
    ids = candidate_ids(item=item, keys=keys, at=signature.at)
    for candidate, theirs in signatures_of(ids, known=signatures).items():
        found = verdict(signature, theirs)
        if found.same and (best is None or found.score > best[1].score):
            best = (candidate, found)
    if best is None:
        return None
    candidate, found = best
    with transaction.atomic():
        other = StoryItem.objects.select_for_update().filter(item_id=candidate).first()
        if other is None:
            story = Story.objects.create(lead_id=candidate)
            StoryItem.objects.create(
                item_id=candidate, story=story, matched_by=found.reason, score=found.score
            )
        else:
            story = other.story
        link = StoryItem.objects.create(
            item=item, story=story, matched_by=found.reason, score=found.score
        )
        story_rerank(story=story)
    return link


def items_match(*, item_ids: list[int]) -> int:
    """Match each of these items (oldest first); returns how many joined a story.

    All of them are indexed first, in a few statements: the items of one
    fetch are each other's candidates.
    """
    joined = 0
    items = Item.objects.select_related("source").filter(pk__in=item_ids)
    items = sorted(items, key=lambda i: (item_time(i), i.pk))
    signatures = {item.pk: item_signature(item) for item in items}
    keys = items_index(items=items, signatures=signatures)
    for item in items:
        try:
            if item_match(item=item, signatures=signatures, keys=keys[item.pk]) is not None:
                joined += 1
        except Exception:
            # One item the matcher chokes on must not keep the rest of a fetch out.
            logger.exception("matching item %s failed", item.pk)
    return joined


def _lead_order(link: StoryItem, *, pinned_lead: int | None):
    item = link.item
    return (item.pk != pinned_lead, -item.source.weight, item_time(item), item.pk)


def story_rerank(*, story: Story) -> Story | None:
    """Order a story's members (the lead first), and count its sources; None if it is empty.

    The lead is the editors' choice, else the earliest item of the source with
    the highest weight. Drafts keep their rank: the site skips them itself.
    """
    links = list(
        StoryItem.objects.filter(story=story).select_related("item__source").order_by("rank")
    )
    # Stories decide which cards the public pages show: readers' caches move on
    # commit when a reader can see one of its items (or it is emptied, whatever it held).
    if not links or any(link.item.status in PUBLIC_STATUSES for link in links):
        generation_bump()
    if not links:
        story.delete()
        return None
    pinned = story.lead_id if story.lead_pinned else None
    links.sort(key=lambda link: _lead_order(link, pinned_lead=pinned))
    for rank, link in enumerate(links):
        link.rank = rank
    StoryItem.objects.bulk_update(links, ["rank"])
    story.lead_id = links[0].item_id
    story.lead_pinned = story.lead_pinned and pinned == links[0].item_id
    story.source_count = len({link.item.source_id for link in links})
    story.save(update_fields=["lead", "lead_pinned", "source_count", "updated_at"])
    from stories.signals import story_changed

    transaction.on_commit(
        lambda: story_changed.send(
            sender=Story, story_id=story.pk, item_ids=[link.item_id for link in links]
        ),
        robust=True,
    )
    return story


def story_sizes(*, story_ids: list[int]) -> dict[int, int]:
    """Distinct sources per story, counted (for checks; the site reads `source_count`)."""
    return dict(
        StoryItem.objects.filter(story_id__in=story_ids)
        .values("story_id")
        .annotate(n=Count("item__source", distinct=True))
        .values_list("story_id", "n")
    )
