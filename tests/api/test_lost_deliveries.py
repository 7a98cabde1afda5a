"""A worker killed (SIGKILL) mid-delivery: the delivery still completes, exactly once.

Real processes against a real database, as in tests/feed/test_fetch_workers.py:
on PostgreSQL the test database itself, on SQLite a migrated file of its own.
"""

import http.server
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from django.db import connection

PROJECT = Path(__file__).resolve().parents[2]
WAIT = 60  # seconds a subprocess may take before the test gives up


class HangingReceiver:
    """Never answers its first POST (the worker is killed waiting); answers 200 to the rest."""

    def __init__(self):
        self.deliveries: list[str] = []
        self.first_arrived = threading.Event()
        self.release = threading.Event()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.deliveries.append(self.headers["X-AITOP-Delivery"])
                if len(receiver.deliveries) == 1:
                    receiver.first_arrived.set()
                    receiver.release.wait(WAIT)
                    return
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hook"

    def stop(self):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def worker_database(transactional_db, tmp_path) -> str:
    """A DATABASE_URL that processes other than this one can use, migrated."""
    if connection.vendor == "postgresql":
        s = connection.settings_dict
        return (
            f"postgres://{s['USER']}:{s['PASSWORD'] or ''}@{s['HOST'] or '127.0.0.1'}:"
            f"{s['PORT'] or 5432}/{s['NAME']}"
        )
    url = f"sqlite:///{tmp_path / 'workers.sqlite3'}"
    _manage(url, "migrate", "--noinput", "-v0")
    return url


def _env(database_url: str) -> dict:
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "DATABASE_POOL": "0",
        "TASKS_BACKEND": "database",
        "DEBUG": "0",
        "STATIC_MANIFEST": "0",
        "LOG_LEVEL": "CRITICAL",
        "AITOP_WEBHOOK_ALLOW_HOSTS": "127.0.0.1",
        "AITOP_WEBHOOK_TIMEOUT": "30",
        # One worker at a time here: the claim's length is not what this is about.
        "AITOP_WEBHOOK_CLAIM_SECONDS": "0",
    }


def _manage(database_url: str, *args: str) -> str:
    done = subprocess.run(  # noqa: S603 (our own manage.py)
        [sys.executable, "manage.py", *args],
        cwd=PROJECT,
        env=_env(database_url),
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _django(database_url: str, code: str):
    out = _manage(database_url, "shell", "-c", textwrap.dedent(code))
    return json.loads(out.strip().splitlines()[-1])


def _worker(database_url: str, name: str, *, batch: bool) -> subprocess.Popen:
    args = ["--interval", "0.05", "--no-startup-delay", "--no-reload", "--worker-id", name]
    return subprocess.Popen(  # noqa: S603
        [sys.executable, "manage.py", "db_worker", *(["--batch"] if batch else []), *args],
        cwd=PROJECT,
        env=_env(database_url),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


STATE = """
import json
from django_tasks_db.models import DBTaskResult
from webhooks.models import Attempt, Delivery
delivery = Delivery.objects.get()
print(json.dumps({
    "uuid": str(delivery.uuid),
    "status": delivery.status,
    "tries": list(Attempt.objects.values_list("number", "response_status", "succeeded")),
    # the delivery's tasks (the item's own, such as story matching, are not this test's)
    "tasks": sorted(DBTaskResult.objects.filter(task_path__endswith="deliver_webhook")
                    .values_list("status", flat=True)),
}))
"""


@pytest.mark.django_db(transaction=True)
def test_a_delivery_whose_worker_is_killed_completes_exactly_once(worker_database):
    receiver = HangingReceiver()
    try:
        _django(
            worker_database,
            f"""
            import json
            from tests.factories import make_item
            from webhooks.models import Delivery, Webhook
            from webhooks.tasks import delivery_enqueue
            hook = Webhook.objects.create(
                name="bot", url={receiver.url!r}, secret="s", events=["item.published"])
            item = make_item()
            delivery = Delivery.objects.create(
                webhook=hook, event="item.published", item_id=item.pk, body="{{}}")
            delivery_enqueue(delivery=delivery)
            print(json.dumps(delivery.pk))
            """,
        )
        doomed = _worker(worker_database, "doomed", batch=False)
        assert receiver.first_arrived.wait(WAIT), "the worker never tried the delivery"
        os.kill(doomed.pid, signal.SIGKILL)
        doomed.wait(WAIT)
        receiver.release.set()

        killed = _django(worker_database, STATE)
        swept = _manage(worker_database, "desk_sweeper", "--once", "--lease", "0")
        _worker(worker_database, "rescuer", batch=True).wait(WAIT)
        after = _django(worker_database, STATE)
        _manage(worker_database, "desk_sweeper", "--once")
        _worker(worker_database, "idle", batch=True).wait(WAIT)
        again = _django(worker_database, STATE)
    finally:
        receiver.stop()

    # Killed mid-try: the task stuck RUNNING, no try logged, nothing delivered.
    assert (killed["status"], killed["tries"], killed["tasks"]) == ("pending", [], ["RUNNING"])
    assert swept == "1 tasks requeued, 0 given up, 1 webhook deliveries queued.\n"
    # Afterwards: delivered once, one successful try logged, every task finished.
    assert after["status"] == "delivered"
    assert after["tries"] == [[2, 200, True]]
    assert after["tasks"] == ["SUCCESSFUL", "SUCCESSFUL"]
    # The receiver saw the cut-off try and the completed one, with one delivery id
    # (its key for ignoring a repeat); sweeping again sends nothing more.
    assert receiver.deliveries == [after["uuid"], after["uuid"]]
    assert again["tries"] == after["tries"]
    assert again["tasks"] == ["SUCCESSFUL", "SUCCESSFUL"]
