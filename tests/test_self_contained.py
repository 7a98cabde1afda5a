"""The suite needs nothing outside the repository: a bare clone collects every test."""

import os
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent


def _collect(folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_a_clone_with_nothing_beside_it_collects_the_whole_suite(tmp_path):
    """What a user gets from `git clone`: no ../shared, no corpus variable."""
    alone = tmp_path / "empty-parent"
    alone.mkdir()
    clone = alone / "aitop"
    subprocess.run(  # noqa: S603
        ["git", "clone", "--quiet", "--no-hardlinks", str(PROJECT), str(clone)],  # noqa: S607
        check=True,
        timeout=120,
    )
    env = {k: v for k, v in os.environ.items() if k != "AITOP_FEED_CORPUS"}

    result = _collect(clone, env)

    assert sorted(p.name for p in alone.iterdir()) == ["aitop"]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    collected = [line for line in result.stdout.splitlines() if "::" in line]
    assert len(collected) > 500
    assert any(line.startswith("tests/feed/test_ingest_corpus.py::") for line in collected)
    assert (clone / "tests" / "data" / "feeds" / "manifest.json").is_file()
