"""The reaper: tasks RUNNING past their lease go back in the queue; one that keeps dying fails."""

import datetime
import io

import pytest
from django.core.management import call_command
from django.tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult, get_date_max

from aitop.tasklease import tasks_requeue_expired

pytestmark = pytest.mark.django_db


def _running(*, started_at, workers=("worker-a",)) -> DBTaskResult:
    return DBTaskResult.objects.create(
        status=TaskResultStatus.RUNNING,
        started_at=started_at,
        worker_ids=list(workers),
        args_kwargs={"args": [1], "kwargs": {}},
        task_path="webhooks.tasks.deliver_webhook",
        backend_name="default",
        run_after=get_date_max(),
    )


def test_a_task_running_past_its_lease_is_requeued_and_a_fresh_one_is_left(clock, settings):
    settings.AITOP_TASK_LEASE_SECONDS = 900
    lost = _running(started_at=clock.now - datetime.timedelta(seconds=901))
    busy = _running(started_at=clock.now - datetime.timedelta(seconds=899))

    result = tasks_requeue_expired(now=clock.now)

    assert result.requeued == [str(lost.pk)]
    assert result.failed == []
    lost.refresh_from_db()
    busy.refresh_from_db()
    assert (lost.status, lost.started_at) == (TaskResultStatus.READY, None)
    assert lost.worker_ids == ["worker-a"]  # who tried it stays on record
    assert busy.status == TaskResultStatus.RUNNING
    assert DBTaskResult.objects.ready().get() == lost


def test_a_task_claimed_by_three_workers_that_all_died_is_failed_not_requeued(clock):
    doomed = _running(started_at=clock.now - datetime.timedelta(hours=1), workers=("a", "b", "c"))

    result = tasks_requeue_expired(now=clock.now)

    assert result.failed == [str(doomed.pk)]
    doomed.refresh_from_db()
    assert doomed.status == TaskResultStatus.FAILED
    assert doomed.exception_class_path == "aitop.tasklease.LeaseExpired"
    assert doomed.traceback.startswith("Claimed 3 times by workers that never finished it")


def test_finished_and_waiting_tasks_are_never_touched(clock):
    waiting = _running(started_at=None)
    DBTaskResult.objects.filter(pk=waiting.pk).update(status=TaskResultStatus.READY)
    done = _running(started_at=clock.now - datetime.timedelta(days=1))
    DBTaskResult.objects.filter(pk=done.pk).update(status=TaskResultStatus.SUCCESSFUL)

    result = tasks_requeue_expired(now=clock.now)

    assert result.requeued == result.failed == []
    assert sorted(DBTaskResult.objects.values_list("status", flat=True)) == [
        TaskResultStatus.READY,
        TaskResultStatus.SUCCESSFUL,
    ]


def test_the_sweeper_command_reports_one_round(clock):
    _running(started_at=clock.now - datetime.timedelta(hours=1))
    out = io.StringIO()

    call_command("desk_sweeper", "--once", stdout=out)

    assert out.getvalue() == "1 tasks requeued, 0 given up, 0 webhook deliveries queued.\n"
