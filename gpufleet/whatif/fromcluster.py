"""``gpufleet whatif trace from-cluster``: a trace from a cluster's history, exported without gpufleet there.

The input is what ``kubectl get ... -A -o json`` prints (a ``List``, or one object), any
mix of files: Kueue Workloads (``workloads.kueue.x-k8s.io``) and Volcano Jobs
(``jobs.batch.volcano.sh``). Each finished one becomes a trace line:

- submit: the object's ``creationTimestamp``, from the earliest one;
- pods and GPUs per pod: the pod sets (Workload ``spec.podSets[*].count``) or tasks
  (Volcano ``spec.tasks[*].replicas``) and their containers' requests; a Volcano Job's
  ``minAvailable`` below its replicas becomes ``minPods`` (an elastic job);
- run time: admission to finish (the Workload's ``Admitted`` and ``Finished`` conditions); a Workload whose ``PodsReady`` condition
  turned True between the two splits it: admission to ``PodsReady`` is the pods' start
  (``startSeconds``: image pull, init), ``PodsReady`` to finish the run time. A Volcano Job's
  run time is from its first ``Running`` condition to its ``Completed`` one; its
  ``status.runningDuration`` counts from the Job's creation, queue wait and start included
  (Volcano v1.14.1 in the sandbox, 4 Dec 2026: ``27s`` for a job created at :16, Running at :38,
  Completed at :43), so it is used only when the conditions are missing;
- kind: the Workload's owner (``Job``, ``JobSet``, ``PyTorchJob``; others are replayed as
  ``Job``), ``VolcanoJob`` for Volcano Jobs.
Unfinished ones are left out and counted. Timestamps have one-second resolution; with
``time_scale`` (an export of a replay at ``k``) every time is multiplied by ``k``.
Called by the CLI; docs/whatif.md shows the commands.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from gpufleet.kubetypes import durations, quantity
from gpufleet.kubetypes.vocab import KUEUE_PRIORITY_CLASS
from gpufleet.util.boundedread import TooLarge, read_bounded_text
from gpufleet.whatif.trace import MAX_SECONDS, TraceJob

MAX_EXPORT_BYTES = 1024 * 2**20
"""The largest export file read (a cluster's Workloads for months: hundreds of MiB)."""

GPU_SUFFIX = "gpu"  # a resource name ending in it counts as GPUs (nvidia.com/gpu, amd.com/gpu)
OWNER_KINDS = {"Job": "Job", "JobSet": "JobSet", "PyTorchJob": "PyTorchJob"}


@dataclass
class Imported:
    jobs: list[TraceJob] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    """Why objects were left out (``unfinished``, ``not a workload``), with their count."""

    def skip(self, why: str) -> None:
        self.skipped[why] = self.skipped.get(why, 0) + 1


def _time(stamp: str | None) -> float | None:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() if stamp else None


def _requests(template: dict[str, Any]) -> tuple[int, str | None, str | None]:
    gpus, cpu, memory = 0, None, None
    for c in (template.get("spec") or {}).get("containers") or []:
        res = c.get("resources") or {}
        req = {**(res.get("limits") or {}), **(res.get("requests") or {})}
        gpus += sum(int(quantity.parse(v)) for k, v in req.items() if k.endswith(GPU_SUFFIX))
        cpu, memory = req.get("cpu", cpu), req.get("memory", memory)
    return gpus, (str(cpu) if cpu is not None else None), (str(memory) if memory is not None else None)


def _conditions(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c.get("type"): c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("status") == "True"}


def _workload(obj: dict[str, Any]) -> dict[str, Any] | None:
    conds = _conditions(obj)
    admitted, finished = (
        _time((conds.get("Admitted") or {}).get("lastTransitionTime")),
        _time((conds.get("Finished") or {}).get("lastTransitionTime")),
    )
    if admitted is None or finished is None:
        return None
    ready = _time((conds.get("PodsReady") or {}).get("lastTransitionTime"))
    started = ready if ready is not None and admitted <= ready <= finished else admitted
    sets = (obj.get("spec") or {}).get("podSets") or []
    pods = sum(int(s.get("count", 1)) for s in sets)
    gpus, cpu, memory = max((_requests(s.get("template") or {}) for s in sets), default=(0, None, None))
    meta = obj["metadata"]
    owner = (meta.get("ownerReferences") or [{}])[0]
    return {
        "submit": _time(meta.get("creationTimestamp")),
        "namespace": meta["namespace"],
        "kind": OWNER_KINDS.get(owner.get("kind"), "Job"),
        "pods": pods,
        "gpus": gpus,
        "cpu": cpu,
        "memory": memory,
        "run": finished - started,
        "start": started - admitted,
        "name": owner.get("name") or meta["name"],
        "priority": (obj.get("spec") or {}).get("priorityClassName")
        or (meta.get("labels") or {}).get(KUEUE_PRIORITY_CLASS),
    }


def _phase_time(status: dict[str, Any], phase: str, first: bool) -> float | None:
    """When a Volcano Job's conditions (one per phase change) first or last entered ``phase``."""
    times = [_time(c.get("lastTransitionTime")) for c in status.get("conditions") or [] if c.get("status") == phase]
    found = [t for t in times if t is not None]
    return (min if first else max)(found) if found else None


def _volcano_run(status: dict[str, Any]) -> float | None:
    """First Running to Completed, else ``runningDuration`` (creation to now or to the end), else None."""
    running, completed = _phase_time(status, "Running", True), _phase_time(status, "Completed", False)
    if running is not None and completed is not None and completed >= running:
        return completed - running
    duration = status.get("runningDuration")
    return float(durations.parse_seconds(duration)) if duration else None


def _volcano_job(obj: dict[str, Any]) -> dict[str, Any] | None:
    status = obj.get("status") or {}
    phase = (status.get("state") or {}).get("phase")
    run = _volcano_run(status)
    if phase != "Completed" or run is None:
        return None
    tasks = (obj.get("spec") or {}).get("tasks") or []
    gpus, cpu, memory = max((_requests(t.get("template") or {}) for t in tasks), default=(0, None, None))
    meta = obj["metadata"]
    pods = sum(int(t.get("replicas", 1)) for t in tasks)
    least = (obj.get("spec") or {}).get("minAvailable")
    return {
        "submit": _time(meta.get("creationTimestamp")),
        "namespace": meta["namespace"],
        "kind": "VolcanoJob",
        "pods": pods,
        "gpus": gpus,
        "cpu": cpu,
        "memory": memory,
        "run": run,
        "name": meta["name"],
        "priority": (obj.get("spec") or {}).get("priorityClassName"),
        "min": least if isinstance(least, int) and 1 <= least < pods else None,
    }


def _items(doc: Any) -> Iterable[dict[str, Any]]:
    if isinstance(doc, dict) and isinstance(doc.get("items"), list):
        return doc["items"]
    return [doc] if isinstance(doc, dict) else []


def import_objects(docs: Iterable[Any], time_scale: float = 1.0) -> Imported:
    """The trace of the exported objects ``docs`` (parsed JSON documents), earliest submit at 0."""
    out, rows = Imported(), []
    for doc in docs:
        for obj in _items(doc):
            kind = obj.get("kind")
            if kind == "Workload":
                row = _workload(obj)
            elif kind == "Job" and str(obj.get("apiVersion", "")).startswith("batch.volcano.sh/"):
                row = _volcano_job(obj)
            else:
                out.skip(f"not a Kueue Workload or Volcano Job ({kind})")
                continue
            if row is None:
                out.skip("unfinished")
            else:
                rows.append(row)
    start = min((r["submit"] for r in rows), default=0.0)
    for r in sorted(rows, key=lambda r: (r["submit"], r["namespace"], r["name"])):
        if max(r["submit"] - start, r["run"], r.get("start") or 0.0) * time_scale > MAX_SECONDS:
            out.skip("more than a year after the first submission, or running longer")
            continue
        out.jobs.append(
            TraceJob(
                submit_seconds=round((r["submit"] - start) * time_scale, 1),
                namespace=r["namespace"],
                kind=r["kind"],
                pods=r["pods"],
                gpus_per_pod=r["gpus"],
                run_seconds=max(1.0, round(r["run"] * time_scale, 1)),
                cpu_per_pod=r["cpu"],
                memory_per_pod=r["memory"],
                priority_class=r["priority"],
                name=r["name"],
                min_pods=r.get("min"),
                start_seconds=_start(r.get("start"), time_scale),
            )
        )
    return out


def _start(seconds: float | None, time_scale: float) -> float | None:
    """A start time of at least a trace second, else None (a start the timestamps' resolution cannot tell)."""
    scaled = round((seconds or 0.0) * time_scale, 1)
    return scaled if scaled >= 1.0 else None


def load_exports(paths: list[Path], time_scale: float = 1.0) -> Imported:
    """Read ``kubectl ... -o json`` files (``ValueError`` naming the file when one is not JSON)."""
    docs = []
    for path in paths:
        try:
            text = read_bounded_text(path, MAX_EXPORT_BYTES, "cluster export")
        except TooLarge as exc:
            raise ValueError(f"{exc} (fix: export fewer namespaces or kinds per file)") from None
        try:
            docs.append(json.loads(text))
        except ValueError as exc:
            raise ValueError(f"{path}: not JSON ({exc}) (fix: export with `kubectl get ... -A -o json`)") from None
    return import_objects(docs, time_scale)
