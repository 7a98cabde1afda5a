"""Accepting and declining proposed revisions of live items (see feed/revisions.py).

A chief editor (`feed.change_live_item`) decides; accepting writes the
proposed values with a conditional UPDATE and leaves a history entry naming
who proposed and who accepted, in one transaction. Nothing else changes a
live item's text.
"""

import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from editorial.errors import NotPermitted, TransitionNotAllowed
from editorial.models import ItemLogEntry, LogAction
from editorial.workflow import Actor
from feed.freshness import generation_bump
from feed.html import clean_html
from feed.models import Item
from feed.revisions import ItemRevision, field_value

LIVE_EDIT_PERMISSION = "feed.change_live_item"


def user_may_change_live(user: Actor) -> bool:
    """Whether `user` may change a live item's text and decide on revisions."""
    return bool(
        user is not None
        and user.is_authenticated
        and user.is_active
        and user.has_perm(LIVE_EDIT_PERMISSION)
    )


def revision_accept(
    *, revision: ItemRevision, by: Actor, now: datetime.datetime | None = None
) -> Item:
    """Write a pending revision's values into its item; the history names proposer and chief."""
    _require(by)
    now = now or timezone.now()
    with transaction.atomic():
        claimed = (
            ItemRevision.objects.pending()
            .filter(pk=revision.pk)
            .update(
                status=ItemRevision.Status.ACCEPTED,
                decided_by=by,
                decided_by_name=by.get_username(),
                decided_at=now,
            )
        )
        if not claimed:
            raise TransitionNotAllowed(_not_pending(revision))
        item = Item.objects.select_for_update().get(pk=revision.item_id)
        values = {name: field_value(name, value) for name, value in revision.changes.items()}
        if "body" in values:
            values["body"] = clean_html(values["body"])
        for name, value in values.items():
            setattr(item, name, value)
        others = [f.name for f in Item._meta.fields if f.name not in values]
        item.full_clean(exclude=[*others, "tags"])
        extra = {}
        if revision.origin in (ItemRevision.Origin.EDITOR, ItemRevision.Origin.API):
            # A person's text: from now on the feed leaves these fields alone.
            extra["edited_fields"] = sorted(set(item.edited_fields) | set(values))
        Item.objects.filter(pk=item.pk).update(
            **values, **extra, version=F("version") + 1, updated_at=now
        )
        item.refresh_from_db()
        generation_bump()  # on commit: readers see the accepted text
        _log(item, revision=revision, by=by, action=LogAction.ACCEPT, at=now)
    return item


def revision_decline(
    *, revision: ItemRevision, by: Actor, note: str = "", now: datetime.datetime | None = None
) -> ItemRevision:
    """Close a pending revision without applying it; the item is unchanged."""
    _require(by)
    now = now or timezone.now()
    with transaction.atomic():
        declined = (
            ItemRevision.objects.pending()
            .filter(pk=revision.pk)
            .update(
                status=ItemRevision.Status.DECLINED,
                decided_by=by,
                decided_by_name=by.get_username(),
                decided_at=now,
                note=note.strip(),
            )
        )
        if not declined:
            raise TransitionNotAllowed(_not_pending(revision))
        item = Item.objects.get(pk=revision.item_id)
        _log(item, revision=revision, by=by, action=LogAction.DECLINE, at=now, note=note)
    revision.refresh_from_db()
    return revision


def _log(item: Item, *, revision, by: Actor, action: LogAction, at, note: str = "") -> None:
    proposer = _("proposed by %(who)s (%(origin)s)") % {
        "who": revision.proposed_by_name,
        "origin": revision.get_origin_display(),
    }
    ItemLogEntry.objects.create(
        item=item,
        action=action,
        from_status=item.status,
        to_status=item.status,
        version=item.version,
        by=by,
        by_name=by.get_username(),
        at=at,
        note=f"{proposer}. {note.strip()}".strip() if note.strip() else proposer,
        changed_fields=sorted(revision.changes),
    )


def _require(user: Actor) -> None:
    if not user_may_change_live(user):
        raise NotPermitted(_("Only a chief editor may accept or decline a revision."))


def _not_pending(revision: ItemRevision) -> str:
    current = ItemRevision.objects.filter(pk=revision.pk).first()
    state = current.get_status_display() if current else _("deleted")
    return _("This revision was decided already: %(state)s.") % {"state": state}
