"""A real Prometheus server on loopback for end-to-end alert tests: start it with rule files and scrape jobs, query it, stop it.

Importable by any test (``from tests.e2e.prom import Prometheus``), e.g. one that points
the same rendered rules at a real kube-state-metrics::

    with Prometheus(tmp_path, {"rules.yaml": rule_file_text(model)}, [scrape_job("ksm", ["127.0.0.1:8080"],
                    honor_labels=True)]) as prom:
        prom.wait_for(lambda: prom.alert_states("GangNoFirstStep").get(("alpha", "stuck")) == "firing", timeout=60)

The binary is Debian's ``prometheus`` package (``scripts/test.sh`` installs it);
:func:`prometheus_binary` skips the test with the reason when it is absent. The server
listens on 127.0.0.1 only, on a free port, with its TSDB in the test's directory; it is
stopped by its PID (terminate, then kill after 20 s) and every wait is bounded.
"""

from __future__ import annotations

import json
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TypeVar

import yaml

from gpufleet.sandbox.procs import free_port
from tests.render.promtool import installed

T = TypeVar("T")
SKIP_REASON = (
    "the prometheus server is not installed: `bash scripts/test.sh` installs Debian's prometheus package "
    "(apt-get install -y prometheus) when run as root with apt-get"
)


def prometheus_binary() -> str:
    return installed("prometheus", SKIP_REASON)


def scrape_job(
    name: str,
    targets: Sequence[str],
    labels: Mapping[str, str] | None = None,
    honor_labels: bool = False,
    per_target: Sequence[Mapping[str, str]] | None = None,
) -> dict[str, Any]:
    """A static scrape job; ``per_target`` gives each target its own labels (as service discovery would)."""
    if per_target is None:
        configs = [{"targets": list(targets), "labels": dict(labels or {})}]
    else:
        configs = [{"targets": [t], "labels": {**(labels or {}), **extra}} for t, extra in zip(targets, per_target)]
    return {"job_name": name, "honor_labels": honor_labels, "static_configs": configs}


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)


class Prometheus:
    """One Prometheus process: ``start()``/``stop()`` or a ``with`` block; 1 s scrape and evaluation by default."""

    def __init__(
        self,
        workdir: Path,
        rule_files: Mapping[str, str],
        scrape_configs: Sequence[Mapping[str, Any]],
        interval: str = "1s",
        binary: str | None = None,
    ) -> None:
        self.workdir = Path(workdir)
        self.rule_files = dict(rule_files)
        self.scrape_configs = list(scrape_configs)
        self.interval = interval
        self.binary = binary or prometheus_binary()
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = self.workdir / "prometheus.log"
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self, ready_timeout: float = 30.0) -> Prometheus:
        for name, text in self.rule_files.items():
            (self.workdir / name).write_text(text, encoding="utf-8")
        config = {
            "global": {"scrape_interval": self.interval, "evaluation_interval": self.interval},
            "rule_files": list(self.rule_files),
            "scrape_configs": self.scrape_configs,
        }
        (self.workdir / "prometheus.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        with self.log.open("w") as log:
            self._proc = subprocess.Popen(
                [
                    self.binary,
                    f"--config.file={self.workdir / 'prometheus.yml'}",
                    f"--storage.tsdb.path={self.workdir / 'data'}",
                    f"--web.listen-address=127.0.0.1:{self.port}",
                ],
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        self.wait_for(self._ready, ready_timeout, what="Prometheus to be ready")
        return self

    def _ready(self) -> bool:
        if self._proc is not None and self._proc.poll() is not None:
            raise AssertionError(f"prometheus exited with {self._proc.returncode}:\n{self.log_tail()}")
        try:
            with urllib.request.urlopen(f"{self.base}/-/ready", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    def stop(self) -> None:
        if self._proc is None:
            return
        self._proc.terminate()
        try:
            self._proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait(timeout=10)
        self._proc = None

    def __enter__(self) -> Prometheus:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def query(self, expr: str) -> list[dict[str, Any]]:
        """The instant vector of ``expr`` now (``/api/v1/query``)."""
        return _get(f"{self.base}/api/v1/query?query={urllib.parse.quote(expr)}")["data"]["result"]

    def alerts(self, name: str | None = None) -> list[dict[str, Any]]:
        """Pending and firing alerts (``/api/v1/alerts``), only ``name``'s when given."""
        data = _get(f"{self.base}/api/v1/alerts")["data"]["alerts"]
        return [a for a in data if name is None or a["labels"].get("alertname") == name]

    def alert_states(self, name: str) -> dict[tuple[str, str], str]:
        """{(namespace, gang): "pending" | "firing"} of alert ``name``."""
        return {(a["labels"].get("namespace", ""), a["labels"].get("gang", "")): a["state"] for a in self.alerts(name)}

    def rule_errors(self) -> list[str]:
        """``name: lastError`` of every rule whose last evaluation failed (``/api/v1/rules``)."""
        groups = _get(f"{self.base}/api/v1/rules")["data"]["groups"]
        return [
            f"{r['name']}: {r.get('lastError', '')}" for g in groups for r in g["rules"] if r.get("health") == "err"
        ]

    def wait_for(self, check: Callable[[], T], timeout: float, interval: float = 0.5, what: str = "the condition") -> T:
        """Call ``check`` until it returns something truthy (returned) or ``timeout`` seconds pass (AssertionError)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = check()
            except OSError:
                value = None  # not listening yet, or a scrape in flight
            if value:
                return value
            if time.monotonic() >= deadline:
                raise AssertionError(
                    f"timed out after {timeout:g}s waiting for {what}; prometheus log tail:\n{self.log_tail()}"
                )
            time.sleep(interval)

    def log_tail(self, chars: int = 2000) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-chars:] if self.log.exists() else ""
