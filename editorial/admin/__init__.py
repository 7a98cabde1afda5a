"""The editors' side of the admin: the review queue and the item form."""

from editorial.admin.items import ItemAdmin, ItemHistoryInline

__all__ = ["ItemAdmin", "ItemHistoryInline"]
