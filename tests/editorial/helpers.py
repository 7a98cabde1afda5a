"""Who acts in the editorial tests, and how to tell that nothing changed."""

from django.contrib.auth.models import AnonymousUser
from django.forms.models import model_to_dict

from editorial.models import ItemLogEntry
from feed.models import Item
from tests.factories import make_chief_editor, make_editor, make_superuser

ROLES = ["anonymous", "editor", "chief editor", "superuser"]
#: Who may make the workflow's moves (all of them, for these two).
MAY_MOVE = {"chief editor", "superuser"}


def make_actor(role: str):
    """The user for a role (None for anonymous)."""
    return {
        "anonymous": lambda: None,
        "editor": make_editor,
        "chief editor": make_chief_editor,
        "superuser": make_superuser,
    }[role]()


def item_state(item: Item) -> dict:
    """Everything stored about an item and its history, read fresh from the database."""
    fresh = Item.objects.get(pk=item.pk)
    return {
        **model_to_dict(fresh, exclude=["tags"]),
        "updated_at": fresh.updated_at,
        "tags": sorted(fresh.tags.names()),
        "history": list(
            ItemLogEntry.objects.filter(item=item).order_by("id").values_list("id", flat=True)
        ),
    }


def anonymous_or(user):
    return user if user is not None else AnonymousUser()
