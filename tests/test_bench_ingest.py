"""bench/ingest.py: what a run's CPU says about the most a second worker can gain."""

from bench.ingest import CPUUse, _cores_busy, scaling_ceiling


def _use(children: float, servers: float, database: float | None) -> CPUUse:
    use = CPUUse()
    use.children, use.servers, use.database = children, servers, database
    return use


def test_two_workers_can_gain_at_most_what_the_cores_leave_after_one_workers_cpu(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    one = "AITOP, 1 worker"
    walls = {one: [7.0, 6.0, 5.0]}
    # Workers and readers, the feed servers, PostgreSQL: 8 CPU seconds a run.
    cpu = {one: [_use(6.0, 1.0, 1.0)] * 3}

    line = scaling_ceiling(walls, cpu)

    # 8 CPU seconds on 2 cores take at least 4 s: 6 s / 4 s.
    assert line.strip() == (
        "1 worker needs 8.00 CPU s in 6.00 s: on 2 cores 2 workers take at least 4.00 s,"
        " at most 1.50× faster"
    )
    assert scaling_ceiling({}, {}) == ""


def test_cores_busy_counts_every_process_but_not_for_a_worker_started_before_its_run():
    # 1.0, 2.0 and 1.5 cores busy in three runs (SQLite's time is the workers' own).
    uses = [_use(2.0, 0.5, None), _use(3.0, 0.5, 0.5), _use(4.0, 1.0, 1.0)]
    walls = [2.5, 2.0, 4.0]

    assert _cores_busy("AITOP, 1 worker", uses, walls) == "1.50"
    assert _cores_busy("AITOP, 1 worker, running", uses, walls) == "–"
