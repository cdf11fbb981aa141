"""The CLI analyzes resources in parallel: concurrent Analyze calls get the same answers as serial ones."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from tests.policies.builders import volcano_job
from tests.policies.harness import Resource


def test_parallel_analyze_calls_get_the_serial_answers(pack):
    resources = [
        Resource.of(volcano_job(f"job-{n}", replicas=n, min_available=max(1, n - n % 3))) for n in range(2, 18)
    ]
    serial = [[(d.policy, d.level, d.message) for d in pack.analyze(r)] for r in resources]
    with ThreadPoolExecutor(max_workers=8) as pool:
        parallel = list(pool.map(lambda r: [(d.policy, d.level, d.message) for d in pack.analyze(r)], resources))
    assert parallel == serial
    assert any(serial) and not all(serial)
