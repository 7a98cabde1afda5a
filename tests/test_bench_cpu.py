"""bench/cpu.py: the server side's CPU time, read from /proc."""

import os
import time

import pytest

from bench.cpu import PROC, _stat, server_cpu

pytestmark = pytest.mark.skipif(not PROC.is_dir(), reason="/proc is Linux's")


def test_the_cpu_a_process_spends_is_counted_as_the_web_servers():
    before = server_cpu(os.getpid())
    deadline = time.process_time() + 0.3
    while time.process_time() < deadline:
        pass
    spent = server_cpu(os.getpid()) - before

    # Clock ticks are 10 ms: 0.3 s of CPU reads as at least 0.25 s.
    assert spent.web >= 0.25
    assert spent.per(2).web == pytest.approx(spent.web / 2)


def test_a_process_name_with_spaces_and_parentheses_is_read_whole(tmp_path):
    process = tmp_path / "4242"
    process.mkdir()
    fields = ["S", "17"] + ["0"] * 9 + ["250", "30"] + ["0"] * 30
    (process / "stat").write_text("4242 (web (worker) 1) " + " ".join(fields) + "\n")

    assert _stat(process) == ("web (worker) 1", 17, 280)
