"""Which reviews the server checks off its event loop (issue 11: p99 under abuse).

A ConfigMap carrying a Kueue or Volcano configuration costs its YAML parse (about 2 ms
per KiB); checked on the event loop, a 15 KiB one stopped every other request for
30-60 ms. Such ConfigMaps, and any body over 16 KiB, go to the worker process
(``gpufleet.webhook.worker``), which answers as the loop would and lets the server count.
"""

from __future__ import annotations

import asyncio
import os
import signal

import orjson
import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.webhook import app
from gpufleet.webhook.state import State
from gpufleet.webhook.worker import Worker
from tests.mutate.builders import fleet_dict
from tests.webhook.abuse import gpu_job
from tests.webhook.conftest import start
from tests.webhook.harness import metric
from tests.webhook.reviews import response_of, review


def kueue_config_map(lines: int) -> dict:
    """A Kueue manager ConfigMap whose configuration has ``lines`` extra integration entries."""
    config = (
        "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nwaitForPodsReady:\n  timeout: 15m\n"
        "  requeuingStrategy:\n    backoffLimitCount: 5\n"
        "integrations:\n  frameworks:\n" + "".join(f"  - example.com/framework-{i}\n" for i in range(lines))
    )
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system"},
        "data": {"controller_manager_config.yaml": config},
    }


def big_job() -> dict:
    job = gpu_job("8")
    job["metadata"]["annotations"] = {f"note-{i}": "x" * 200 for i in range(100)}  # about 21 KB
    return job


@pytest.mark.parametrize(
    ("obj", "off_loop"),
    [
        (gpu_job("8"), False),
        (kueue_config_map(0), False),
        (kueue_config_map(500), True),
        (big_job(), True),
    ],
    ids=["ordinary-job", "tiny-config-map", "15k-config-map", "21k-job"],
)
def test_large_bodies_and_config_maps_that_carry_yaml_are_checked_off_the_event_loop(obj, off_loop):
    assert app.offloaded(orjson.dumps(review(obj)), State()) is off_loop


def test_a_large_config_map_is_answered_by_the_worker_process_and_an_ordinary_job_on_the_loop(tmp_path, monkeypatch):
    inline: list[int] = []
    real = app.serve

    def recording(registry, state, path, body):
        inline.append(len(body))
        return real(registry, state, path, body)

    started = []
    real_start = Worker.start
    monkeypatch.setattr(app, "serve", recording)
    monkeypatch.setattr(Worker, "start", lambda self: started.append(real_start(self)) or started[-1])
    running = start(tmp_path)
    try:
        started[0].result(60)  # until the worker is up, the loop checks every review
        config_map, job = orjson.dumps(review(kueue_config_map(500))), orjson.dumps(review(gpu_job("8")))
        for body in (config_map, job):
            status, _, data = running.client.request("POST", "/validate", body)
            assert status == 200 and response_of(orjson.loads(data))["allowed"] is True
        text = running.client.get("/metrics")[1]
        assert metric(text, "gpufleet_admission_requests_total", endpoint="/validate", result="allowed") == 2
        assert inline == [len(job)]
    finally:
        running.client.close()
        running.server.stop()


def test_the_worker_process_gets_each_new_fleet_context_and_answers_503_before_one_loads():
    worker = Worker(log_level="warning")
    body = orjson.dumps(review(kueue_config_map(500)))
    try:
        assert worker.start().result(60) != os.getpid()
        not_loaded = asyncio.run(worker.check(0, None, "/validate", body))
        state = State()
        state.use_fleet(FleetContext.from_dict(fleet_dict()))
        loaded = asyncio.run(worker.check(state.fleet_generation, state.fleet, "/validate", body))
    finally:
        worker.shutdown()
    assert (not_loaded.status, not_loaded.result) == (503, "unavailable")
    assert (loaded.status, loaded.result) == (200, "allowed")


def test_a_worker_that_dies_is_a_500_and_the_next_review_gets_a_new_one():
    worker = Worker(log_level="warning")
    body = orjson.dumps(review(kueue_config_map(500)))
    fleet = FleetContext.from_dict(fleet_dict())
    try:
        os.kill(worker.start().result(60), signal.SIGKILL)
        died = asyncio.run(worker.check(1, fleet, "/validate", body))
        again = asyncio.run(worker.check(1, fleet, "/validate", body))
    finally:
        worker.shutdown()
    assert (died.status, died.result) == (500, "error")
    assert (again.status, again.result) == (200, "allowed")
