"""What the API says of an item's story and heat (read from rows joined in, no extra query)."""

from feed.models import Item
from stories.heat import heat_breakdown
from stories.models import HeatScore, StoryItem

# For `select_related()` on the API's item querysets.
RELATED = ("heat_score", "story_link__story")


def item_story(item: Item) -> dict | None:
    """The item's story: its id, its lead, how many sources carry it, whether this is the lead."""
    try:
        link = item.story_link
    except StoryItem.DoesNotExist:
        return None
    story = link.story
    return {
        "id": story.pk,
        "lead_id": story.lead_id,
        "is_lead": story.lead_id == item.pk,
        "sources": story.source_count,
    }


def item_heat_breakdown(item: Item) -> dict | None:
    """The stored parts of the item's heat (None until first computed)."""
    try:
        score = item.heat_score
    except HeatScore.DoesNotExist:
        return None
    return heat_breakdown(score)
