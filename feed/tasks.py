"""Background work for ingestion, run by `manage.py db_worker` (django-tasks-db).

`fetch_source` fetches one source; `enqueue_due_sources` queues a
`fetch_source` for every source that is due. The scheduler command
(`manage.py fetch_scheduler`) calls the latter in a loop; a deployment with
its own periodic runner (cron, systemd timers) may enqueue
`enqueue_due_sources` instead.

Tasks are named for what a runner asks for, verb first (`fetch_source`,
`enqueue_due_sources`, like `webhooks.tasks.send_due_webhooks`); functions
for their entity (`sources_enqueue_due`), as everywhere else. A task's name
is stored with every queued run and written into runners' configuration, so
it is not renamed to match.
"""

import datetime
import functools

from django.db import transaction
from django.tasks import task
from django.utils import timezone

from feed.ingest import feed_test, ingest_source
from feed.ingest.due import sources_claim_due
from feed.models import Source


@task()
def fetch_source(source_id: int) -> dict:
    """Fetch one source now (what "fetch now" and the scheduler enqueue)."""
    source = Source.objects.filter(pk=source_id).first()
    if source is None:
        return {"source_id": source_id, "status": "gone"}
    return ingest_source(source).as_dict()


def sources_enqueue_due(*, now: datetime.datetime | None = None, limit: int = 500) -> list[int]:
    """Queue a fetch for every due source (at most `limit`); returns their ids."""
    now = now or timezone.now()
    with transaction.atomic():
        ids = sources_claim_due(now=now, limit=limit)
        for source_id in ids:
            # After commit, so a worker never picks up a task for a source
            # whose "queued" mark it cannot see yet.
            transaction.on_commit(functools.partial(fetch_source.enqueue, source_id))
    return ids


@task()
def enqueue_due_sources() -> int:
    """Queue a fetch for every due source; for a periodic runner of your own."""
    return len(sources_enqueue_due())


@task()
def check_feed(url: str) -> dict:
    """Fetch and read `url` as ingestion would, writing nothing (the admin's "test this feed").

    A task, so that a slow or hostile feed holds a worker, not a web process;
    the result, with the entries an editor looks at, is its return value.
    """
    result = feed_test(url=url)
    return {
        **result.as_dict(),
        "entries": [
            {
                "title": entry.title,
                "url": entry.url,
                "published_at": entry.published_at.isoformat(),
                "published_from_feed": entry.published_from_feed,
                "authors": entry.authors[:200],
                "summary": entry.summary[:300],
            }
            for entry in result.entries
        ],
    }
