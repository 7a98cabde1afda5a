"""A lease on running tasks: django-tasks-db leaves a killed worker's task RUNNING for ever.

`tasks_requeue_expired` puts every task that has been RUNNING for longer than
the lease back to READY, so another worker runs it; a task that has already
been claimed `max_claims` times (it kills its worker, or outlives every lease)
is marked FAILED instead of looping. The tasks themselves must bear a second
run: ours do (a fetch holds a lease on its source, a webhook try claims its
delivery), so a task that was in fact still running past the lease does no
harm beyond a wasted claim. `manage.py desk_sweeper` runs this every minute.
"""

import datetime
import logging
from dataclasses import dataclass

from django.conf import settings
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Requeued:
    """What one pass of the reaper did: ids of tasks put back in the queue, and given up on."""

    requeued: list[str]
    failed: list[str]


def tasks_requeue_expired(
    *,
    now: datetime.datetime | None = None,
    lease_seconds: float | None = None,
    max_claims: int | None = None,
) -> Requeued:
    """Requeue tasks RUNNING since before `now - lease_seconds`; fail those claimed too often."""
    now = now or timezone.now()
    lease = settings.AITOP_TASK_LEASE_SECONDS if lease_seconds is None else lease_seconds
    max_claims = max_claims or settings.AITOP_TASK_MAX_CLAIMS
    cutoff = now - datetime.timedelta(seconds=lease)
    expired = DBTaskResult.objects.filter(
        status=TaskResultStatus.RUNNING, started_at__lt=cutoff
    ).values_list("pk", "started_at", "worker_ids", "task_path")
    requeued, failed = [], []
    for pk, started_at, worker_ids, task_path in expired:
        # Conditional on the row as read: a worker that finishes it meanwhile wins.
        still = DBTaskResult.objects.filter(
            pk=pk, status=TaskResultStatus.RUNNING, started_at=started_at
        )
        if len(worker_ids or []) >= max_claims:
            changed = still.update(
                status=TaskResultStatus.FAILED,
                finished_at=now,
                exception_class_path="aitop.tasklease.LeaseExpired",
                traceback=(
                    f"Claimed {len(worker_ids)} times by workers that never finished it "
                    f"({', '.join(worker_ids)}); not requeued again."
                ),
            )
            if changed:
                failed.append(str(pk))
                logger.error(
                    "task %s (%s) failed: lease expired %d times", pk, task_path, max_claims
                )
        elif still.update(status=TaskResultStatus.READY, started_at=None):
            requeued.append(str(pk))
            logger.warning(
                "task %s (%s) requeued: RUNNING since %s on %s, past its lease",
                pk,
                task_path,
                started_at.isoformat(),
                (worker_ids or ["?"])[-1],
            )
    return Requeued(requeued=requeued, failed=failed)
