"""Measure the sandbox's real engines: gang binding time, the controller's admission latency, start-up.

Starts ``gpufleet.sandbox.up`` for a model with one 64-node Volcano pool of 8-GPU nodes
(the controller with its ``--bench-echo`` no-op endpoint), then, in ``--rounds``
alternating rounds, in one run so that the machine's load hits both sides alike:

- ``bind``: time from submit to all 64 pods bound for a 64-rank x 8-GPU job under the
  default kube-scheduler (a batch/v1 Job) and under Volcano (a Volcano Job, gang of 64);
  ratio = Volcano / default (the floor);
- ``admission``: the API server's own ``apiserver_admission_webhook_admission_duration_seconds``
  (sum/count per webhook) for ``--requests`` dry-run creates of a Volcano Job through
  gpufleet's validating webhook vs the same number through a no-op webhook (``/echo`` of
  the same server, registered for another namespace); ratio = gpufleet / echo;
- ``startup``: wall time of ``up`` and the resident memory of every sandbox process.

Prints a line per measure and a last line of JSON. Needs the engines built
(``bash sandbox/engines/build.sh``).

    .venv/bin/python bench/sandbox_bench.py [--rounds 3] [--requests 200]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import ssl
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpufleet.model import load_model  # noqa: E402
from gpufleet.sandbox.kube import wait_for  # noqa: E402
from gpufleet.sandbox.pki import url_client  # noqa: E402
from gpufleet.sandbox.state import down  # noqa: E402
from gpufleet.sandbox.up import Options, up  # noqa: E402
from tests.e2e.sandbox_env import Sandbox, job, vcjob  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from procmem import rss_mb  # noqa: E402

RANKS = 64
VC_NS, SCRATCH, ECHO_NS = "research-vc", "scratch", "bench-echo"
ECHO_HOOK = "echo.bench.gpufleet.dev"


def write_model(path: Path, namespaces: tuple[str, ...] = (VC_NS,)) -> None:
    """The bench fleet: one 64-node Volcano pool of 8-GPU nodes, team research owning ``namespaces`` (also
    ``bench/admission_bench.py``'s)."""
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "gpufleet.dev/v1alpha1",
                "kind": "Fleet",
                "name": "bench",
                "pools": [
                    {
                        "name": "h100",
                        "system": "volcano",
                        "nodeCount": RANKS,
                        "allocatable": {"nvidia.com/gpu": 8, "cpu": 192, "memory": "1920Gi"},
                        "nodeLabels": {"gpufleet.dev/pool": "h100", "volcano.sh/nodegroup-name": "h100"},
                    }
                ],
                "cohorts": [{"name": "ml"}],
                "teams": [
                    {
                        "name": "research",
                        "namespaces": list(namespaces),
                        "volcanoNamespaces": list(namespaces),
                        "cohort": "ml",
                        "quota": {"h100": {"nominal": RANKS * 8}},
                    }
                ],
            }
        )
    )


def _bind_seconds(sb: Sandbox, manifest: dict, namespace: str, api_version: str) -> float:
    start = time.monotonic()
    sb.create(manifest)
    name = manifest["metadata"]["name"]
    wait_for(
        f"{name}: {RANKS} pods bound", lambda: len(sb.bound(namespace, app=name)) == RANKS, timeout=300, interval=0.2
    )
    took = time.monotonic() - start
    sb.kube.delete(api_version, "Job", name, namespace)
    wait_for(f"{name}'s pods gone", lambda: not sb.pods(namespace, app=name), timeout=300)
    return took


def _echo_webhook(sb: Sandbox) -> None:
    port = sb.state.ports["controller"]
    ca = Path(sb.state.dir, "pki", "ca.crt").read_bytes()
    sb.apply(
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "gpufleet-bench-echo"},
            "webhooks": [
                {
                    "name": ECHO_HOOK,
                    "clientConfig": url_client(port, "/echo", ca),
                    "rules": [
                        {
                            "apiGroups": ["batch.volcano.sh"],
                            "apiVersions": ["v1alpha1"],
                            "operations": ["CREATE"],
                            "resources": ["jobs"],
                            "scope": "Namespaced",
                        }
                    ],
                    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ECHO_NS}},
                    "failurePolicy": "Fail",
                    "sideEffects": "None",
                    "admissionReviewVersions": ["v1"],
                    "timeoutSeconds": 3,
                }
            ],
        }
    )


def _webhook_seconds(sb: Sandbox) -> dict[str, tuple[float, float]]:
    pki = Path(sb.state.dir, "pki")
    ctx = ssl.create_default_context(cafile=str(pki / "ca.crt"))
    ctx.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
    url = f"https://127.0.0.1:{sb.state.ports['apiserver']}/metrics"
    with urllib.request.urlopen(url, context=ctx, timeout=30) as resp:  # noqa: S310 - loopback
        text = resp.read().decode()
    out: dict[str, list[float]] = {}
    for kind in ("sum", "count"):
        pattern = rf'^apiserver_admission_webhook_admission_duration_seconds_{kind}\{{([^}}]*)\}} (\S+)$'
        for labels, value in re.findall(pattern, text, re.M):
            name = re.search(r'name="([^"]+)"', labels).group(1)
            out.setdefault(name, [0.0, 0.0])[kind == "count"] += float(value)
    return {k: (v[0], v[1]) for k, v in out.items()}


def _admission_ms(sb: Sandbox, requests: int) -> dict[str, float]:
    before = _webhook_seconds(sb)
    res = sb.kube.resource("batch.volcano.sh/v1alpha1", "Job")
    for i in range(requests):
        for ns in (VC_NS, ECHO_NS):
            body = vcjob(f"dry-{i}", ns, pods=RANKS, queue="research")
            res.create(body=body, namespace=ns, dry_run="All")
    after = _webhook_seconds(sb)
    out = {}
    for name in ("workloads.validate.gpufleet.dev", ECHO_HOOK):
        s0, c0 = before.get(name, (0.0, 0.0))
        s1, c1 = after[name]
        out[name] = 1000 * (s1 - s0) / (c1 - c0)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--requests", type=int, default=200)
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gpufleet-sandbox-bench-"))
    model = work / "bench.fleet.yaml"
    write_model(model)
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    fleet = load_model(model)
    state = up(fleet, str(model), work / "sandbox", Options(bench_echo=True))
    startup = time.monotonic() - t0
    try:
        sb = Sandbox(state, fleet)
        rss = {p.name: rss_mb(p.pid) for p in state.processes}
        print(f"startup: {startup:.1f} s, resident memory {sum(rss.values()):.0f} MB over {len(rss)} processes")
        for ns in (SCRATCH, ECHO_NS):
            sb.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        _echo_webhook(sb)
        binds = []
        for r in range(args.rounds):
            default = _bind_seconds(sb, job(f"d{r}", SCRATCH, RANKS), SCRATCH, "batch/v1")
            gang = _bind_seconds(sb, vcjob(f"v{r}", VC_NS, RANKS, queue="research"), VC_NS, "batch.volcano.sh/v1alpha1")
            binds.append((default, gang))
            print(
                f"bind round {r + 1}: default scheduler {default:.2f} s, Volcano gang {gang:.2f} s, ratio {gang / default:.2f}"
            )
        adm = [_admission_ms(sb, args.requests) for _ in range(args.rounds)]
        for r, a in enumerate(adm, 1):
            g, e = a["workloads.validate.gpufleet.dev"], a[ECHO_HOOK]
            print(f"admission round {r}: gpufleet /validate {g:.2f} ms, no-op /echo {e:.2f} ms, ratio {g / e:.2f}")
        ratios = [g / d for d, g in binds]
        adm_ratios = [a["workloads.validate.gpufleet.dev"] / a[ECHO_HOOK] for a in adm]
        print(
            json.dumps(
                {
                    "name": "sandbox",
                    "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                    "load_start": round(load0, 2),
                    "load_end": round(os.getloadavg()[0], 2),
                    "startup_s": round(startup, 1),
                    "rss_mb": round(sum(rss.values())),
                    "rss_mb_by_process": {k: round(v) for k, v in rss.items()},
                    "bind_default_s": [round(d, 2) for d, _ in binds],
                    "bind_volcano_s": [round(g, 2) for _, g in binds],
                    "bind_ratio_median": round(statistics.median(ratios), 2),
                    "bind_ratio_range": [round(min(ratios), 2), round(max(ratios), 2)],
                    "admission_ms": [{k: round(v, 2) for k, v in a.items()} for a in adm],
                    "admission_ratio_median": round(statistics.median(adm_ratios), 2),
                    "admission_ratio_range": [round(min(adm_ratios), 2), round(max(adm_ratios), 2)],
                }
            )
        )
    finally:
        down(state)
    return 0


if __name__ == "__main__":
    sys.exit(main())
