"""Benchmark gpufleet.crdschema: how fast CrdSet validates rendered Kueue/Volcano objects.

Usage: .venv/bin/python bench/crd_bench.py [CRDS_DIR] [N]   (default ../shared/crds, 2000)

Measures, in one run: loading the CRDs, the first validation of a kind (lazy
compilation), then `validate` + `pruned_fields` over N distinct ClusterQueues (every
object differs, so the CEL memo cannot help), the same N again (memo hits), and N/4
Volcano Jobs. The floor is plain `jsonschema.Draft4Validator` over the same
ClusterQueues with the raw CRD schema (no pruning, defaults, Kubernetes keywords or
CEL): the least any jsonschema-based validator can cost. Prints figures, then one
JSON object on the last line.
"""

from __future__ import annotations

import copy
import json
import sys
import time
from pathlib import Path

import jsonschema

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpufleet.crdschema import CrdSet  # noqa: E402


def cluster_queue(i: int) -> dict:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": f"team-{i}"},
        "spec": {
            "cohortName": f"org-{i % 7}",
            "namespaceSelector": {},
            "queueingStrategy": "BestEffortFIFO",
            "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                    "flavors": [
                        {
                            "name": flavor,
                            "resources": [
                                {"name": "cpu", "nominalQuota": str(96 + i)},
                                {"name": "memory", "nominalQuota": f"{1000 + i}Gi"},
                                {
                                    "name": "nvidia.com/gpu",
                                    "nominalQuota": float(8 * (i % 5 + 1)),
                                    "borrowingLimit": i % 9,
                                },
                            ],
                        }
                        for flavor in ("h100", "a100")
                    ],
                }
            ],
        },
    }


def volcano_job(i: int) -> dict:
    pod = {
        "spec": {
            "restartPolicy": "Never",
            "schedulerName": "volcano",
            "containers": [
                {
                    "name": "trainer",
                    "image": "train:1",
                    "resources": {"requests": {"nvidia.com/gpu": 8}, "limits": {"nvidia.com/gpu": 8}},
                }
            ],
        }
    }
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": f"job-{i}", "namespace": "ml"},
        "spec": {
            "schedulerName": "volcano",
            "queue": "team",
            "minAvailable": i % 8 + 1,
            "maxRetry": 3,
            "tasks": [{"name": "worker", "replicas": i % 8 + 1, "template": copy.deepcopy(pod)}],
        },
    }


def timed(fn, objs) -> float:
    start = time.perf_counter()
    for obj in objs:
        fn(obj)
    return (time.perf_counter() - start) / len(objs) * 1000


def main() -> None:
    crds_dir = (
        Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent.parent / "shared" / "crds"
    )
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    start = time.perf_counter()
    crds = CrdSet.load(crds_dir)
    load_s = time.perf_counter() - start
    queues, jobs = [cluster_queue(i) for i in range(n)], [volcano_job(i) for i in range(max(1, n // 4))]
    start = time.perf_counter()
    crds.validate(queues[0])
    first_ms = (time.perf_counter() - start) * 1000
    both = lambda o: (crds.validate(o), crds.pruned_fields(o))  # noqa: E731
    assert all(not any(both(o)) for o in queues[:50] + jobs[:50]), "bench objects must be valid"
    crds._memo.clear()
    distinct_ms = timed(both, queues)
    repeat_ms = timed(both, queues)
    job_ms = timed(both, jobs)
    schema = crds.versions[("kueue.x-k8s.io", "v1beta2", "ClusterQueue")].schema
    plain = jsonschema.Draft4Validator(schema)
    floor_ms = timed(lambda o: list(plain.iter_errors(o)), queues)
    print(
        f"load {load_s:.2f} s for {len(crds.versions)} served CRD versions; first ClusterQueue (compiles) {first_ms:.1f} ms"
    )
    print(f"ClusterQueue validate+pruned_fields: {distinct_ms:.3f} ms distinct, {repeat_ms:.3f} ms repeated (n={n})")
    print(f"Volcano Job validate+pruned_fields: {job_ms:.3f} ms (n={len(jobs)})")
    print(f"floor (plain jsonschema Draft4, raw schema): {floor_ms:.3f} ms; ratio {distinct_ms / floor_ms:.2f}x")
    print(
        json.dumps(
            {
                "bench": "crd",
                "n": n,
                "load_s": round(load_s, 3),
                "first_ms": round(first_ms, 2),
                "cluster_queue_ms": round(distinct_ms, 4),
                "cluster_queue_repeat_ms": round(repeat_ms, 4),
                "volcano_job_ms": round(job_ms, 4),
                "floor_ms": round(floor_ms, 4),
                "ratio": round(distinct_ms / floor_ms, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
