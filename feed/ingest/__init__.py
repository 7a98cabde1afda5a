"""Ingestion: fetch → parse → normalise → upsert, and the schedule around it.

`ingest_source(source, now=None)` is the one entry point; see pipeline.py.
"""

from feed.ingest.pipeline import IngestResult, Outcome, feed_test, ingest_source

__all__ = ["IngestResult", "Outcome", "feed_test", "ingest_source"]
