"""The desk's side of `feed` in the admin: sources, and ingestion's records and rules.

A package by concern, like `editorial/admin/`; items are `editorial`'s (the queue).
Importing the modules registers their ModelAdmins.
"""

from feed.admin.ingest import FetchAttemptAdmin, KeywordRuleAdmin, TombstoneAdmin
from feed.admin.sources import SourceAdmin

__all__ = ["FetchAttemptAdmin", "KeywordRuleAdmin", "SourceAdmin", "TombstoneAdmin"]
