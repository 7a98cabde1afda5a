"""An item's identity: its URL in the one canonical spelling, unique across all sources.

One rule for every writer. Ingestion (feeds, JSON Lines and OPML imports)
spells each entry's URL with `url_canonical` and takes a URL it already has
as the same story, to refresh rather than refuse. The editors' writes
(`editorial.edits`, behind the admin form and the API) go through
`item_url_clean` and `item_url_check` here, and a URL that another item has
is refused with `DuplicateURL`, which the admin shows on the form's field
and the API as a 409 `duplicate_url`.
"""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from feed.ingest.normalise import url_canonical
from feed.models import Item

__all__ = ["DuplicateURL", "item_url_check", "item_url_clean", "url_canonical"]


class DuplicateURL(Exception):
    """Another item has this (canonical) URL already; nothing was written."""

    code = "duplicate_url"

    def __init__(self, *, url: str, existing_id: int):
        self.message = _("An item with this URL exists already.")
        super().__init__(self.message)
        self.url = url
        self.existing_id = existing_id


def item_url_clean(url: str) -> str:
    """`url` as items store it (tracking parameters gone); ValidationError if not http(s)."""
    canonical = url_canonical(url or "")
    if canonical is None:
        raise ValidationError({"url": [_("Enter a valid http(s) URL.")]}, code="invalid")
    return canonical


def item_url_check(url: str, *, exclude_pk: int | None = None) -> None:
    """Raise `DuplicateURL` if an item other than `exclude_pk` has the canonical `url`."""
    existing_id = (
        Item.objects.filter(url=url).exclude(pk=exclude_pk).values_list("pk", flat=True).first()
    )
    if existing_id is not None:
        raise DuplicateURL(url=url, existing_id=existing_id)
