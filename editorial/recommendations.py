"""An editor's "ready for a chief": a draft recommended with a note, shown first to chiefs."""

import datetime

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.translation import gettext as _

from editorial.errors import NotPermitted, TransitionNotAllowed
from editorial.models import ItemLogEntry, ItemRecommendation, LogAction
from editorial.workflow import Actor, status_label
from feed.models import Item, ItemQuerySet


def item_recommend(
    *, item: Item, by: Actor, note: str = "", now: datetime.datetime | None = None
) -> ItemRecommendation:
    """Mark a draft "ready for a chief", with a note; a later recommendation replaces it."""
    if not (by is not None and by.is_authenticated and by.has_perm("feed.change_item")):
        raise NotPermitted(_("You are not allowed to recommend items."))
    now = now or timezone.now()
    with transaction.atomic():
        current = Item.objects.select_for_update().get(pk=item.pk)
        if current.status != Item.Status.DRAFT:
            raise TransitionNotAllowed(
                _("“%(title)s” is %(status)s: only drafts wait for a chief's decision.")
                % {"title": current.title, "status": status_label(current.status)}
            )
        mark, _created = ItemRecommendation.objects.update_or_create(
            item=current,
            defaults={"by": by, "by_name": by.get_username(), "at": now, "note": note.strip()},
        )
        ItemLogEntry.objects.create(
            item=current,
            action=LogAction.RECOMMEND,
            from_status=current.status,
            to_status=current.status,
            version=current.version,
            by=by,
            by_name=by.get_username(),
            at=now,
            note=note.strip(),
        )
    return mark


def with_recommended_first(queryset: ItemQuerySet) -> ItemQuerySet:
    """Annotate `is_recommended` so a queue can put recommended drafts on top."""
    return queryset.annotate(
        is_recommended=Exists(ItemRecommendation.objects.filter(item=OuterRef("pk")))
    )
