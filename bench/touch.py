"""A change a reader can see, made the way an editor makes it: through the workflow."""

from django.contrib.auth import get_user_model

from editorial.workflow import item_publish, item_reject, item_restore
from feed.models import Item

BENCH_USER = "bench-editor"


def bench_touch() -> Item:
    """Move one item a step round publish → reject → restore, so the site changes each time."""
    user, created = get_user_model().objects.get_or_create(
        username=BENCH_USER, defaults={"is_staff": True, "is_superuser": True}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    item = Item.objects.filter(reviewed_by=user).order_by("-pk").first()
    if item is None:
        item = Item.objects.drafts().order_by("-pk").first()
    if item is None:
        raise LookupError("no draft to publish: seed the database with bench_seed first")
    if item.status == Item.Status.DRAFT:
        return item_publish(item=item, by=user)
    if item.status == Item.Status.REJECTED:
        return item_restore(item=item, by=user)
    return item_reject(item=item, by=user, reason="benchmark: a change readers can see")
