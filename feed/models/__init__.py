"""Sources, items and their tags: the data every part of AITOP reads.

A package by concern: `sources`, `items` (with `ItemQuerySet`), `ingest`
(ingestion's bookkeeping: keyword rules, tombstones, fetch history, hosts),
`generation` and `revisions`. Import from `feed.models`, never a submodule.
"""

from feed.models.generation import Generation
from feed.models.ingest import FetchAttempt, FetchHost, KeywordRule, Tombstone, TombstoneManager
from feed.models.items import (
    PUBLIC_Q,
    PUBLIC_STATUSES,
    Item,
    ItemQuerySet,
    TaggedItem,
    visible_params,
    visible_sql,
)
from feed.models.revisions import ItemRevision, RevisionQuerySet
from feed.models.sources import Category, Kind, Source, TaggedSource

__all__ = [
    "PUBLIC_Q",
    "PUBLIC_STATUSES",
    "Category",
    "FetchAttempt",
    "FetchHost",
    "Generation",
    "Item",
    "ItemQuerySet",
    "ItemRevision",
    "KeywordRule",
    "Kind",
    "RevisionQuerySet",
    "Source",
    "TaggedItem",
    "TaggedSource",
    "Tombstone",
    "TombstoneManager",
    "visible_params",
    "visible_sql",
]
