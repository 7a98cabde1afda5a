"""`make test` names every missing system package in one message before any test runs."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def system_check(**env) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "--no-print-directory", "system-check"],  # noqa: S607 - the project's own Makefile
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_missing_browser_is_named_with_the_command_that_installs_it():
    result = system_check(AITOP_CHROMIUM="/nowhere/chromium")

    assert result.returncode != 0
    assert "make test needs these system packages: chromium" in result.stdout
    assert "apt-get install -y chromium" in result.stdout


def test_with_everything_installed_it_says_nothing():
    result = system_check()

    assert (result.returncode, result.stdout) == (0, "")
