"""The replay's watches: what the API server says about the replayed jobs, turned into a :class:`ReplayLog`.

One thread per kind streams the API server's watch (pods of replayed jobs, Kueue
Workloads, Volcano PodGroups and Jobs) and records, at the moment each event arrives, in
trace seconds: a pod bound (``spec.nodeName`` set), Running, ended (Succeeded, Failed or
deleted), preempted (its ``DisruptionTarget`` condition); a Workload admitted, evicted
(``Evicted`` with Kueue's reason: ``Preempted``, ``PodsReadyTimeout``), requeued and
finished; a Volcano PodGroup taken into its queue (``Inqueue``/``Running``) and a Volcano
Job completed. Called by :mod:`gpufleet.sandbox.replay`.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Callable

from kubernetes import watch as k8s_watch

from gpufleet.kubetypes.vocab import WHATIF_JOB_LABEL
from gpufleet.sandbox.kube import Kube
from gpufleet.whatif.observed import Eviction, JobLog, PodSpan

WORKLOAD = ("kueue.x-k8s.io/v1beta2", "Workload")
VC_PODGROUP = ("scheduling.volcano.sh/v1beta1", "PodGroup")
VC_JOB = ("batch.volcano.sh/v1alpha1", "Job")


def _conditions(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c.get("type"): c for c in (obj.get("status") or {}).get("conditions") or []}


def _owner(obj: dict[str, Any]) -> str | None:
    refs = (obj.get("metadata") or {}).get("ownerReferences") or []
    return refs[0].get("name") if refs else None


class Recorder:
    """The shared log of one replay, updated from the watch threads under one lock."""

    def __init__(self, jobs: dict[tuple[str, str], JobLog], pools: dict[str, str], clock: Callable[[], float]) -> None:
        self.jobs, self.pools, self.clock = jobs, pools, clock
        self.lock = threading.Lock()
        self._seen: set[tuple[str, ...]] = set()

    def _job(self, namespace: str, name: str | None) -> JobLog | None:
        return self.jobs.get((namespace, name or ""))

    def once(self, *key: str) -> bool:
        """True the first time ``key`` is seen (a condition transition is reported by many events)."""
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def pod(self, kind: str, pod: dict[str, Any]) -> None:
        meta, spec, status = pod["metadata"], pod.get("spec") or {}, pod.get("status") or {}
        job = self._job(meta["namespace"], (meta.get("labels") or {}).get(WHATIF_JOB_LABEL))
        if job is None:
            return
        now = self.clock()
        with self.lock:
            span = job.spans.setdefault(meta["uid"], PodSpan(meta["name"], job.gpus_per_pod))
            node = spec.get("nodeName")
            if node and span.bound is None:
                span.bound, span.pool = now, self.pools.get(node)
            if status.get("phase") == "Running" and span.running is None:
                span.running = now
            done = status.get("phase") in ("Succeeded", "Failed") or kind == "DELETED"
            if done and span.ended is None:
                span.ended = now
            target = _conditions(pod).get("DisruptionTarget")
            if (
                target
                and target.get("status") == "True"
                and "Preempt" in (target.get("reason") or "")
                and self.once("pod-preempted", meta["uid"])
                and not self._kueue_owned(job)
            ):
                if not job.evictions or now - job.evictions[-1].at > 1.0:
                    job.evictions.append(Eviction(now, "Preempted"))

    def _kueue_owned(self, job: JobLog) -> bool:
        return ("workload", job.namespace, job.name) in self._seen

    def workload(self, kind: str, wl: dict[str, Any]) -> None:
        meta = wl["metadata"]
        job = self._job(meta["namespace"], _owner(wl))
        if job is None:
            return
        now = self.clock()
        with self.lock:
            self._seen.add(("workload", job.namespace, job.name))
            for ctype, cond in _conditions(wl).items():
                if cond.get("status") != "True":
                    continue
                stamp = (meta["uid"], ctype, str(cond.get("lastTransitionTime")), str(cond.get("reason")))
                if not self.once(*stamp):
                    continue
                if ctype == "Admitted":
                    job.admitted.append(now)
                elif ctype == "Evicted":
                    job.evictions.append(Eviction(now, cond.get("reason") or "Evicted"))
                elif ctype == "Requeued" and job.evictions:
                    job.requeues.append(now)
                elif ctype == "Finished" and job.finished is None:
                    job.finished = now

    def podgroup(self, kind: str, pg: dict[str, Any]) -> None:
        meta = pg["metadata"]
        job = self._job(meta["namespace"], _owner(pg))
        phase = (pg.get("status") or {}).get("phase")
        if job is None or phase not in ("Inqueue", "Running"):
            return
        with self.lock:
            if not job.admitted or self.once("pg", meta["uid"], str(len(job.evictions))):
                if not job.admitted or len(job.admitted) <= len(job.evictions):
                    job.admitted.append(self.clock())

    def volcano_job(self, kind: str, vj: dict[str, Any]) -> None:
        meta = vj["metadata"]
        job = self._job(meta["namespace"], meta["name"])
        phase = ((vj.get("status") or {}).get("state") or {}).get("phase")
        if job is None:
            return
        with self.lock:
            if phase == "Completed" and job.finished is None:
                job.finished = self.clock()


def _stream(
    kubeconfig: Path,
    api_version: str,
    kind: str,
    handle: Callable[[str, dict], None],
    stop: threading.Event,
    selector: str | None = None,
) -> None:
    """Watch ``kind`` in every namespace until ``stop``, re-listing after each server timeout."""
    kube = Kube(kubeconfig, cache_dir=kubeconfig.parent)
    resource = kube.resource(api_version, kind)
    version = None
    while not stop.is_set():
        try:
            for event in kube.dyn.watch(
                resource, label_selector=selector, timeout=5, resource_version=version, watcher=k8s_watch.Watch()
            ):
                obj = event["raw_object"]
                if event["type"] == "ERROR":  # 410 Gone: the version is too old; list afresh
                    version = None
                    break
                version = (obj.get("metadata") or {}).get("resourceVersion") or version
                handle(event["type"], obj)
                if stop.is_set():
                    return
        except Exception:  # noqa: BLE001 - a watch dropped by the server: watch again from the last version
            time.sleep(0.2)


def start_watches(kubeconfig: Path, recorder: Recorder, volcano: bool, stop: threading.Event) -> list[threading.Thread]:
    """Start the watch threads (daemons; they end once ``stop`` is set)."""
    specs = [("v1", "Pod", recorder.pod, WHATIF_JOB_LABEL), (*WORKLOAD, recorder.workload, None)]
    if volcano:
        specs += [(*VC_PODGROUP, recorder.podgroup, None), (*VC_JOB, recorder.volcano_job, WHATIF_JOB_LABEL)]
    threads = []
    for api_version, kind, handle, selector in specs:
        t = threading.Thread(
            target=_stream,
            args=(kubeconfig, api_version, kind, handle, stop, selector),
            name=f"whatif-watch-{kind}",
            daemon=True,
        )
        t.start()
        threads.append(t)
    return threads
