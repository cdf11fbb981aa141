"""Admission as the API server sees it: no policy, the VAPs, gpufleet's webhook, both, a no-op webhook, the peer.

Issue 35 item 5. One sandbox (``gpufleet.sandbox.up``: the real kube-apiserver v1.37.2, real
Volcano with its own admission webhooks, gpufleet's controller with its ``--bench-echo`` no-op
endpoint), one team whose namespaces are all alike but for what judges them; each configuration
is a namespace:

- ``none``: nothing of gpufleet's (the floor);
- ``vap-gang001``: GANG001's ValidatingAdmissionPolicy only; ``vaps``: every rendered policy
  (:func:`gpufleet.rules.admission_policies.render_policies`; bindings narrowed with ``matchResources``);
- ``webhook``: gpufleet's validating webhook (the controller's own configuration, narrowed by name;
  its mutating one is removed, so the jobs are sent as it would have mutated them);
- ``noop``: a validating webhook with the same rules on the same server's ``/echo`` (the 1.3x goal's floor);
- ``both``: every policy and gpufleet's webhook;
- ``gatekeeper``: Gatekeeper v3.23.1's webhook enforcing GANG001 as a Rego ConstraintTemplate
  (``bench/gatekeeper_peer.py``; skipped, and said so, when that bench-only engine is not built).

Each batch is ``--requests`` server-side dry-run creates (``dryRun=All``: admitted in full, nothing
stored, nothing to clean up) of one allowed object, from an aiohttp client (TLS, the sandbox's admin
certificate, keep-alive) at ``--concurrency``: a 64-replica Volcano Job (``webhook_bench.mutated_job``)
and a plain batch/v1 Indexed Job of 64 pods. Configurations alternate in ``--rounds`` rounds (order
rotated each round) so that load from other work on shared cores hits them alike. Around each batch the
API server's ``/metrics`` is scraped and the admission histograms diffed (``bench/admission_metrics.py``):
per create: the request as the API server times it (``apiserver_request_duration_seconds``, POST of
``jobs`` with ``dryRun``), its admission (the admit and validate steps), the ValidatingAdmissionPolicy
plugin, the mean call of the configuration's own webhook, and the client's creates per second. The VAP
goal is judged on the admission steps (issue 35: "admission latency from apiserver_admission_* metrics"),
the webhook goals on the webhook calls.

Prints a line per configuration (medians over rounds, [lowest, highest]), the goals judged on the
per-round ratios' medians, and a last line of JSON. Needs the engines built (``bash
sandbox/engines/build.sh``) and, for the peer, ``bash sandbox/engines/build.sh bench/engines/gatekeeper``.

    .venv/bin/python bench/admission_bench.py [--rounds 5] [--requests 200] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import os
import ssl
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import admission_metrics as M  # noqa: E402
import gatekeeper_peer as peer  # noqa: E402
from sandbox_bench import write_model  # noqa: E402
from webhook_bench import drive, mutated_job, write_pki  # noqa: E402

from gpufleet.model import load_model  # noqa: E402
from gpufleet.rules.admission_policies import render_policies  # noqa: E402
from gpufleet.rules.registry import all_rules  # noqa: E402
from gpufleet.sandbox import controller  # noqa: E402
from gpufleet.sandbox.kube import Kube, wait_for  # noqa: E402
from gpufleet.sandbox.needs import EnginesMissing  # noqa: E402
from gpufleet.sandbox.pki import url_client  # noqa: E402
from gpufleet.sandbox.procs import free_ports, stop  # noqa: E402
from gpufleet.sandbox.state import down  # noqa: E402
from gpufleet.sandbox.up import Options, up  # noqa: E402

PODS, TEAM = 64, "research"
CONFIGS = ("none", "vap-gang001", "vaps", "webhook", "noop", "both", "gatekeeper")
NS = {c: f"adm-{c}" for c in CONFIGS}
GPUFLEET_HOOK, NOOP_HOOK, PEER_HOOK = (
    "workloads.validate.gpufleet.dev",
    "noop.bench.gpufleet.dev",
    "gang001.gatekeeper.bench",
)
OWN_HOOK = {"webhook": GPUFLEET_HOOK, "both": GPUFLEET_HOOK, "noop": NOOP_HOOK, "gatekeeper": PEER_HOOK}
VAP_GOAL, WEBHOOK_GOAL = 1.10, 1.30
KINDS = {
    "volcano": "/apis/batch.volcano.sh/v1alpha1/namespaces/{ns}/jobs",
    "batch": "/apis/batch/v1/namespaces/{ns}/jobs",
}


def bodies(namespace: str) -> dict[str, dict]:
    """The two allowed objects of a batch, in ``namespace``."""
    vc = mutated_job()
    vc["metadata"]["namespace"] = namespace
    pod = copy.deepcopy(vc["spec"]["tasks"][1]["template"])
    pod["spec"]["schedulerName"] = "volcano"
    plain = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": "llm-plain",
            "namespace": namespace,
            "labels": {"team": TEAM},
            "annotations": {"scheduling.k8s.io/group-name": "llm-plain"},
        },
        "spec": {
            "parallelism": PODS,
            "completions": PODS,
            "completionMode": "Indexed",
            "backoffLimit": 0,
            "template": pod,
        },
    }
    return {"volcano": vc, "batch": plain}


def narrow(selector: dict | None, names: list[str]) -> dict:
    """``selector`` further limited to the namespaces ``names``."""
    out = copy.deepcopy(selector or {})
    out.setdefault("matchExpressions", []).append(
        {"key": "kubernetes.io/metadata.name", "operator": "In", "values": names}
    )
    return out


def configure(kube: Kube, fleet, state, gatekeeper_port: int | None, gatekeeper_ca: bytes | None) -> list[str]:
    """Scope every judge to its configurations' namespaces; the configurations that can run."""
    ca = Path(state.dir, "pki", "ca.crt").read_bytes()
    own = controller.webhook_configurations(fleet, state.ports["controller"], ca)
    validating = next(c for c in own if c["kind"] == "ValidatingWebhookConfiguration")
    for c in own:
        if c["kind"] == "MutatingWebhookConfiguration":
            kube.delete("admissionregistration.k8s.io/v1", c["kind"], c["metadata"]["name"])
    template = next(h for h in validating["webhooks"] if h["name"] == GPUFLEET_HOOK)
    for hook in validating["webhooks"]:
        hook["namespaceSelector"] = narrow(hook.get("namespaceSelector"), [NS["webhook"], NS["both"]])
    kube.apply(validating)
    extra = [(NOOP_HOOK, url_client(state.ports["controller"], "/echo", ca), "noop")]
    if gatekeeper_port is not None:
        extra.append((PEER_HOOK, url_client(gatekeeper_port, "/v1/admit", gatekeeper_ca), "gatekeeper"))
    for name, client, config in extra:
        hook = {
            **copy.deepcopy(template),
            "name": name,
            "clientConfig": client,
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": NS[config]}},
        }
        kube.apply(
            {
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingWebhookConfiguration",
                "metadata": {"name": f"bench-{config}"},
                "webhooks": [hook],
            }
        )
    for manifest in render_policies(fleet, all_rules()).values():
        if manifest["kind"] == "ValidatingAdmissionPolicyBinding":
            gang001 = manifest["spec"]["policyName"] == "gpufleet-gang001"
            names = [NS["vaps"], NS["both"], *([NS["vap-gang001"]] if gang001 else [])]
            manifest["spec"]["matchResources"] = {"namespaceSelector": narrow(None, names)}
        kube.apply(manifest)
    return [c for c in CONFIGS if c != "gatekeeper" or gatekeeper_port is not None]


class Api:
    """The API server over TLS with the admin certificate: dry-run creates and ``/metrics``."""

    def __init__(self, state) -> None:
        pki = Path(state.dir, "pki")
        self.ssl = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        self.ssl.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
        self.base = f"https://127.0.0.1:{state.ports['apiserver']}"

    def metrics(self) -> M.Samples:
        with urllib.request.urlopen(self.base + "/metrics", context=self.ssl, timeout=60) as resp:  # noqa: S310 - loopback
            return M.scrape(resp.read().decode())

    async def batch(self, path: str, body: bytes, total: int, concurrency: int) -> tuple[list[float], float]:
        """``total`` dry-run creates of ``body`` at ``concurrency``: (latencies in s, wall time in s); each must be 201."""
        return await drive(
            f"{self.base}{path}?dryRun=All", body, total, concurrency, self.ssl, lambda _: True, status=201
        )


def measure(api: Api, config: str, kind: str, requests: int, concurrency: int) -> dict[str, float | None]:
    body = orjson.dumps(bodies(NS[config])[kind])
    before = api.metrics()
    latencies, wall = asyncio.run(api.batch(KINDS[kind].format(ns=NS[config]), body, requests, concurrency))
    d = M.diff(before, api.metrics())
    admit = M.histogram(d, M.STEP, operation="CREATE", type="admit")
    validate = M.histogram(d, M.STEP, operation="CREATE", type="validate")
    hook = M.histogram(d, M.WEBHOOK, name=OWN_HOOK[config]) if config in OWN_HOOK else None
    vap = M.histogram(d, M.PLUGIN, name="ValidatingAdmissionPolicy", operation="CREATE", type="validate")
    group = "batch.volcano.sh" if kind == "volcano" else "batch"
    request = M.histogram(d, M.REQUEST, verb="POST", group=group, resource="jobs", dry_run="All")
    return {
        "creates_per_s": requests / wall,
        "client_mean_ms": 1000 * sum(latencies) / len(latencies),
        "request_ms": request.mean_ms,
        "admit_ms": admit.per_ms(requests),
        "validate_ms": validate.per_ms(requests),
        "admission_ms": admit.per_ms(requests) + validate.per_ms(requests),
        "webhook_ms": hook.mean_ms if hook else None,
        "vap_plugin_ms": vap.per_ms(requests),
    }


def check_allowed(api: Api, configs: list[str]) -> None:
    """Every configuration admits both objects (a refusal would measure the wrong path), once its judges are live."""
    for config in configs:
        for kind in KINDS:
            wait_for(f"{config}: a {kind} job admitted", lambda: _admitted(api, config, kind), timeout=120, interval=1)


def _admitted(api: Api, config: str, kind: str) -> bool:
    try:
        asyncio.run(api.batch(KINDS[kind].format(ns=NS[config]), orjson.dumps(bodies(NS[config])[kind]), 1, 1))
        return True
    except RuntimeError as err:
        print(f"  not yet: {err}", file=sys.stderr)
        return False


def wait_judging(api: Api, configs: list[str]) -> None:
    """Policies and webhooks take effect asynchronously: wait until each configuration refuses a GANG001 job."""
    bad = bodies("x")["volcano"]
    bad["spec"]["minAvailable"] = 1
    for config in configs:
        if config in ("none", "noop"):
            continue
        bad["metadata"]["namespace"] = NS[config]
        path = KINDS["volcano"].format(ns=NS[config])
        wait_for(
            f"{config} refuses a GANG001 job", lambda: _refused(api, path, orjson.dumps(bad)), timeout=180, interval=1
        )


def _refused(api: Api, path: str, body: bytes) -> bool:
    try:
        asyncio.run(api.batch(path, body, 1, 1))
    except RuntimeError as err:
        return "GANG001" in str(err)  # the refusal names the code (the URL of vap-gang001 has it in lower case)
    return False


def start_peer(kube: Kube, state, work: Path):
    """Gatekeeper running with its template and a constraint on the peer's namespace: (process, port, CA), or None."""
    try:
        peer.binary()
    except EnginesMissing as err:
        print(
            f"gatekeeper: not built, the peer is left out ({err}); build: bash sandbox/engines/build.sh "
            f"bench/engines/gatekeeper",
            file=sys.stderr,
        )
        return None
    kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": peer.NAMESPACE}})
    for crd in peer.crds():
        kube.apply(crd)
    kube.refresh()
    certs = work / "gatekeeper-certs"
    certs.mkdir()
    ca, _, _ = write_pki(certs)
    ports = free_ports(3)
    proc = peer.run(state.kubeconfig, certs, ports, work / "gatekeeper.log")
    try:
        wait_for("gatekeeper ready", lambda: _http_ok(f"http://127.0.0.1:{ports[1]}/readyz"), timeout=180, interval=1)
        kube.apply(peer.template())
        wait_for(
            "the constraint's CRD",
            lambda: _refreshed(kube, "constraints.gatekeeper.sh/v1beta1", peer.KIND),
            timeout=120,
            interval=1,
        )
        kube.apply(peer.constraint(NS["gatekeeper"]))
    except BaseException:
        stop(proc)
        raise
    return proc, ports[0], ca.read_bytes()


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:  # noqa: S310 - loopback
            return resp.status == 200
    except OSError:
        return False


def _refreshed(kube: Kube, api_version: str, kind: str) -> bool:
    kube.refresh()
    try:
        kube.resource(api_version, kind)
        return True
    except Exception:  # noqa: BLE001 - not served yet
        return False


def summarize(rounds: list[dict], configs: list[str]) -> dict:
    out: dict = {}
    for kind in KINDS:
        per = [{c: r[c][kind] for c in configs} for r in rounds]
        figures = {
            c: {
                k: [p[c][k] for p in per if p[c][k] is not None]
                for k in (
                    "creates_per_s",
                    "client_mean_ms",
                    "request_ms",
                    "admission_ms",
                    "validate_ms",
                    "webhook_ms",
                    "vap_plugin_ms",
                )
            }
            for c in configs
        }

        def ratio(name: str, floor: str, key: str) -> list[float]:
            return M.ratios([{c: p[c][key] for c in (name, floor) if c in p} for p in per], name, floor)

        out[kind] = {
            "figures": {c: {k: [round(v, 3) for v in vs] for k, vs in f.items() if vs} for c, f in figures.items()},
            "admission_vs_none": {
                c: [round(x, 3) for x in ratio(c, "none", "admission_ms")] for c in configs if c != "none"
            },
            "request_vs_none": {
                c: [round(x, 3) for x in ratio(c, "none", "request_ms")] for c in configs if c != "none"
            },
            "creates_vs_none": {
                c: [round(x, 3) for x in ratio(c, "none", "creates_per_s")] for c in configs if c != "none"
            },
            "webhook_vs_noop": {
                c: [round(x, 3) for x in ratio(c, "noop", "webhook_ms")]
                for c in ("webhook", "both", "gatekeeper")
                if c in configs
            },
            "admission_vs_noop": {
                c: [round(x, 3) for x in ratio(c, "noop", "admission_ms")]
                for c in ("webhook", "gatekeeper")
                if c in configs
            },
            "gpufleet_vs_gatekeeper_webhook": [round(x, 3) for x in ratio("webhook", "gatekeeper", "webhook_ms")]
            if "gatekeeper" in configs
            else [],
        }
    return out


def _med(values: list[float]) -> str:
    if not values:
        return "-"
    mid, low, high = M.spread(values)
    return f"{mid:.2f} [{low:.2f}, {high:.2f}]"


def report(summary: dict, configs: list[str]) -> dict[str, bool | None]:
    for kind, s in summary.items():
        print(f"== {kind} job, medians over rounds [lowest, highest]")
        for c in configs:
            f = s["figures"][c]
            print(
                f"{c:12} creates/s {_med(f.get('creates_per_s', []))}  request ms {_med(f.get('request_ms', []))}"
                f"  admission ms {_med(f.get('admission_ms', []))}"
                f"  (validate step {_med(f.get('validate_ms', []))})  own webhook ms {_med(f.get('webhook_ms', []))}"
                f"  VAP plugin ms {_med(f.get('vap_plugin_ms', []))}"
                + (
                    f"  admission x none {_med(s['admission_vs_none'][c])}  request x none {_med(s['request_vs_none'][c])}"
                    f"  creates/s x none {_med(s['creates_vs_none'][c])}"
                    if c != "none"
                    else ""
                )
            )
        for c, r in s["webhook_vs_noop"].items():
            print(f"{c} webhook call / no-op webhook call: {_med(r)} (goal <= {WEBHOOK_GOAL} for gpufleet's)")
        if s["gpufleet_vs_gatekeeper_webhook"]:
            print(
                f"gpufleet webhook call / Gatekeeper webhook call: {_med(s['gpufleet_vs_gatekeeper_webhook'])} (goal < 1)"
            )

    def median(values: list[float]) -> float | None:
        return M.spread(values)[0] if values else None

    vc = summary["volcano"]
    goals: dict[str, bool | None] = {}
    for c in ("vap-gang001", "vaps"):
        m = [median(summary[k]["admission_vs_none"][c]) for k in KINDS]
        goals[f"{c}_within_10pct_of_none"] = None if None in m else all(x <= VAP_GOAL for x in m)
    m = median(vc["webhook_vs_noop"].get("webhook", []))
    goals["webhook_within_1.3x_noop"] = None if m is None else m <= WEBHOOK_GOAL
    m = median(vc["gpufleet_vs_gatekeeper_webhook"])
    goals["webhook_beats_gatekeeper"] = None if m is None else m < 1
    print(
        "goals:",
        ", ".join(f"{k} {'met' if v else 'NOT met' if v is False else 'not measured'}" for k, v in goals.items()),
    )
    return goals


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--requests", type=int, default=200, help="dry-run creates per configuration, object kind and round")
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--no-peer", action="store_true", help="leave Gatekeeper out even when it is built")
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gpufleet-admission-bench-"))
    model = work / "bench.fleet.yaml"
    write_model(model, tuple(NS.values()))
    load0, began = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    fleet = load_model(model)
    state = up(fleet, str(model), work / "sandbox", Options(bench_echo=True, node_cap=2))
    gatekeeper = None
    try:
        kube = Kube(Path(state.kubeconfig))
        wait_for(
            "Volcano queue Open",
            lambda: (
                (kube.get("scheduling.volcano.sh/v1beta1", "Queue", TEAM) or {}).get("status", {}).get("state")
                == "Open"
            ),
            timeout=120,
        )
        gatekeeper = None if args.no_peer else start_peer(kube, state, work)
        configs = configure(kube, fleet, state, *(gatekeeper[1:] if gatekeeper else (None, None)))
        api = Api(state)
        wait_judging(api, configs)
        check_allowed(api, configs)
        for c in configs:  # warm-up: connections, caches, the webhooks' first calls
            for kind in KINDS:
                measure(api, c, kind, max(args.requests // 4, args.concurrency), args.concurrency)
        rounds = []
        for r in range(args.rounds):
            order = configs[r % len(configs) :] + configs[: r % len(configs)]
            rounds.append(
                {c: {kind: measure(api, c, kind, args.requests, args.concurrency) for kind in KINDS} for c in order}
            )
            print(f"round {r + 1}/{args.rounds} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
        summary = summarize(rounds, configs)
        goals = report(summary, configs)
        print(
            f"{args.rounds} rounds x {args.requests} dry-run creates per configuration and kind at concurrency "
            f"{args.concurrency}; load average {load0[0]:.2f} at start, {os.getloadavg()[0]:.2f} at end; "
            f"{os.cpu_count()} CPUs shared with other work"
        )
        print(
            json.dumps(
                {
                    "name": "admission",
                    "date": began,
                    "rounds": args.rounds,
                    "requests": args.requests,
                    "concurrency": args.concurrency,
                    "load_start": round(load0[0], 2),
                    "load_end": round(os.getloadavg()[0], 2),
                    "configs": configs,
                    "goals": goals,
                    "summary": summary,
                }
            )
        )
    finally:
        if gatekeeper:
            stop(gatekeeper[0])
        down(state)
    return 0


if __name__ == "__main__":
    sys.exit(main())
