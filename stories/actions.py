"""Editors' story actions: make the lead, merge into a story, split out, reject duplicates.

Each checks the permission, changes the stories in one transaction and writes
an entry in the item's history (editorial's audit trail); rejections go
through `editorial.workflow`, so they carry its permissions and history too.
"""

import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from editorial import workflow
from editorial.errors import NotPermitted, WorkflowError
from editorial.models import ItemLogEntry, LogAction
from feed.models import Item
from stories.membership import story_rerank
from stories.models import Story, StoryItem

CHANGE_PERMISSION = "feed.change_item"


class StoryActionError(WorkflowError):
    """A story action that cannot be done (the item has no story, or is there already)."""


def _require(by, permission: str = CHANGE_PERMISSION) -> None:
    if not (by is not None and by.is_active and by.has_perm(permission)):
        raise NotPermitted(_("You are not allowed to change stories."))


def _log(*, item: Item, by, note: str, now: datetime.datetime) -> None:
    ItemLogEntry.objects.create(
        item=item,
        action=LogAction.EDIT,
        from_status=item.status,
        to_status=item.status,
        version=item.version,
        by=by,
        by_name=by.get_username(),
        at=now,
        note=note,
    )


def _link_of(item: Item) -> StoryItem:
    link = StoryItem.objects.select_for_update().filter(item=item).first()
    if link is None:
        raise StoryActionError(_("“%(title)s” is in no story.") % {"title": item.title})
    return link


def story_make_lead(*, item: Item, by, now: datetime.datetime | None = None) -> Story:
    """Make `item` the lead of its story (the editors' choice stays until changed)."""
    _require(by)
    now = now or timezone.now()
    with transaction.atomic():
        link = _link_of(item)
        story = Story.objects.select_for_update().get(pk=link.story_id)
        story.lead_id, story.lead_pinned = item.pk, True
        story.save(update_fields=["lead", "lead_pinned", "updated_at"])
        story_rerank(story=story)
        _log(
            item=item,
            by=by,
            note=_("Made the lead of story %(story)s.") % {"story": story},
            now=now,
        )
    return story


def story_merge(*, item: Item, into: Item, by, now: datetime.datetime | None = None) -> Story:
    """Put `item` (with the rest of its story) into the story of `into`."""
    _require(by)
    now = now or timezone.now()
    if item.pk == into.pk:
        raise StoryActionError(_("An item cannot be merged into itself."))
    with transaction.atomic():
        target = StoryItem.objects.select_for_update().filter(item=into).first()
        if target is None:
            story = Story.objects.create(lead=into)
            target = StoryItem.objects.create(item=into, story=story, matched_by="editor")
        story = target.story
        link = StoryItem.objects.select_for_update().filter(item=item).first()
        if link is not None and link.story_id == story.pk:
            raise StoryActionError(
                _("“%(title)s” is in that story already.") % {"title": item.title}
            )
        if link is None:
            StoryItem.objects.create(item=item, story=story, matched_by="editor", rank=10**6)
            moved = [item.pk]
        else:
            old = link.story
            moved = list(old.members.values_list("item_id", flat=True))
            old.members.update(story=story, matched_by="editor", kept_apart=False)
            old.delete()
        story_rerank(story=story)
        note = _("Merged into story %(story)s (lead: “%(lead)s”).") % {
            "story": story,
            "lead": Item.objects.get(pk=story.lead_id).title,
        }
        for member in Item.objects.filter(pk__in=moved):
            _log(item=member, by=by, note=note, now=now)
    return story


def story_split(*, item: Item, by, now: datetime.datetime | None = None) -> Story:
    """Take `item` out of its story into one of its own; the matcher leaves it there."""
    _require(by)
    now = now or timezone.now()
    with transaction.atomic():
        link = _link_of(item)
        old = link.story
        if old.members.count() == 1:
            raise StoryActionError(_("“%(title)s” is alone in its story.") % {"title": item.title})
        story = Story.objects.create(lead=item)
        link.story, link.kept_apart, link.matched_by, link.rank = story, True, "editor", 0
        link.save(update_fields=["story", "kept_apart", "matched_by", "rank"])
        if old.lead_id == item.pk:
            old.lead_pinned = False
            old.save(update_fields=["lead_pinned"])
        story_rerank(story=old)
        story_rerank(story=story)
        _log(item=item, by=by, note=_("Split out of story %(story)s.") % {"story": old}, now=now)
    return story


def story_reject_duplicates(*, item: Item, by, now: datetime.datetime | None = None) -> list[Item]:
    """Reject every draft of `item`'s story but its lead, as duplicates of the lead.

    All or nothing: without the right to reject, nothing changes. Each
    rejected draft stays in the story, so it keeps its link to the lead.
    """
    if not workflow.user_may(by, LogAction.REJECT):
        raise NotPermitted(str(workflow.TRANSITIONS[LogAction.REJECT].refused))
    now = now or timezone.now()
    with transaction.atomic():
        link = _link_of(item)
        lead = Item.objects.get(pk=link.story.lead_id)
        drafts = Item.objects.drafts().filter(story_link__story=link.story).exclude(pk=lead.pk)
        with translation.override(settings.LANGUAGE_CODE):  # history is in the desk's language
            reason = _("Duplicate of “%(title)s” (#%(id)s).") % {
                "title": lead.title,
                "id": lead.pk,
            }
        return [
            workflow.item_reject(item=draft, by=by, reason=reason, now=now)
            for draft in drafts.order_by("pk")
        ]
