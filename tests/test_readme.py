"""README's commands work as written: on a fresh database, without DEBUG or SECRET_KEY set."""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from feed.demo_content import SOURCES

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def readme_commands(prefix: str) -> list[str]:
    """Every line of the README's sh blocks that starts with `prefix`, comments cut."""
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", README, flags=re.S):
        for line in block.splitlines():
            command = line.split(" #", 1)[0].strip()
            if command.startswith(prefix):
                lines.append(command)
    return lines


def test_the_feeds_commands_are_in_the_readme():
    commands = readme_commands(".venv/bin/python manage.py ")
    names = {command.split()[2] for command in commands}
    assert {"fetch_sources", "import_opml", "export_opml", "import_items"} <= names


def test_each_manage_command_of_the_readme_runs_as_written(tmp_path):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE"}
    }
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    python = sys.executable

    def run(args: list[str]) -> subprocess.CompletedProcess:
        # The README's own commands, run with this interpreter.
        return subprocess.run(  # noqa: S603
            [python, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
        )

    assert run(["manage.py", "migrate", "--noinput"]).returncode == 0
    assert run(["manage.py", "load_demo"]).returncode == 0
    # The integration user the README's token example names.
    make_user = (
        "from django.contrib.auth.models import User; User.objects.create(username='newsbot')"
    )
    assert run(["manage.py", "shell", "-c", make_user]).returncode == 0
    failures = []
    commands = readme_commands(".venv/bin/python manage.py ")
    # The OPML export writes the file that the import then reads.
    commands.sort(key=lambda command: "import_opml" in command)
    for command in commands:
        words = shlex.split(command)[1:]
        if "…" in words or "SLUG" in words:
            words = [w for w in words if w not in {"…", "SLUG", "--source"}] + [
                "--source",
                SOURCES[0]["slug"],
            ]
        if words[1] in {"db_worker", "fetch_scheduler", "desk_sweeper", "runserver"}:
            continue  # servers that run until stopped
        if words[1:3] == ["api_token", "revoke"]:
            continue  # its prefix stands for one that `create` printed
        words = [w for w in words if not (w.startswith("[") and w.endswith("]"))]  # optional
        if words[1] in {"export_opml", "import_opml"}:
            words = [*words[:2], str(tmp_path / "feeds.opml")]
        result = run(words)
        if result.returncode != 0:
            failures.append((command, result.stderr[-500:]))
    assert failures == []


def test_the_api_example_posts_to_a_demo_source_and_a_path_that_exists():
    block = re.search(r"curl -X POST (\S+) \\\n.*?-d '(.*?)'", README, flags=re.S)
    url, body = block.group(1), json.loads(block.group(2))
    assert url == "http://127.0.0.1:8000/api/v1/items/"
    assert body["source"] in {source["slug"] for source in SOURCES}
    publish = re.search(r"curl -X POST (\S+/publish\S*)", README).group(1)
    assert publish.endswith("/publish/")


def test_make_run_takes_a_port():
    # make from PATH, as the README runs it.
    result = subprocess.run(
        ["make", "-n", "run", "PORT=8001"],  # noqa: S607
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert "runserver 127.0.0.1:8001" in result.stdout
