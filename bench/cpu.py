"""The CPU time the server side spends, read from /proc: gunicorn, Redis and PostgreSQL.

Every row of bench/site.py also gives the CPU its request cost the server's
processes, split into the web workers, Redis and PostgreSQL, and its ratio
to the hello world's: it says where a request's time went (a warm API
answer's Redis time, a cold page's PostgreSQL time), which requests a
second alone do not. It moves with the machine too (the hello world's
720–920 µs within one state on a shared 2-core machine). Read on Linux
only (elsewhere those columns stay empty). Redis and PostgreSQL are
counted whole, by process name: on the benchmark's own machine they serve
nothing else (PostgreSQL's background workers are in it too).
"""

import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True)
class CpuSeconds:
    """User and system CPU seconds of the web server's processes, Redis's and PostgreSQL's."""

    web: float
    redis: float
    postgres: float

    def __sub__(self, other: "CpuSeconds") -> "CpuSeconds":
        return CpuSeconds(
            self.web - other.web, self.redis - other.redis, self.postgres - other.postgres
        )

    def per(self, count: int) -> "CpuSeconds":
        return CpuSeconds(self.web / count, self.redis / count, self.postgres / count)

    @property
    def total(self) -> float:
        return self.web + self.redis + self.postgres


def server_cpu(web_pid: int) -> CpuSeconds | None:
    """CPU seconds so far of `web_pid` and its children, every redis-server and every postgres."""
    if not PROC.is_dir():
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    web = redis = postgres = 0
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name, parent, used = _stat(entry)
        except (OSError, ValueError, IndexError):
            continue  # ended since the listing, or not ours to read
        if int(entry.name) == web_pid or parent == web_pid:
            web += used
        elif name == "redis-server":
            redis += used
        elif name == "postgres":
            postgres += used
    return CpuSeconds(web / ticks, redis / ticks, postgres / ticks)


def _stat(process: Path) -> tuple[str, int, int]:
    """A process's name, its parent's id and its user + system clock ticks (proc(5))."""
    text = (process / "stat").read_text()
    # The name is in parentheses and may hold spaces or parentheses itself.
    name = text[text.index("(") + 1 : text.rindex(")")]
    fields = text[text.rindex(")") + 2 :].split()
    # After the name: state, ppid, …; utime and stime are the 12th and 13th.
    return name, int(fields[1]), int(fields[11]) + int(fields[12])
