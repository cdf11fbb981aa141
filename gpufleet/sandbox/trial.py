"""``try_manifests``: submit manifests to a running sandbox as a user would, watch, classify, clean up.

Called by ``gpufleet try`` (:mod:`gpufleet.cli.try_cmds`, through
:mod:`gpufleet.sandbox.trial_run`) and by tests that ask many questions of one running
sandbox. Each manifest is created through the API server, so every admission webhook
(Kueue's, Volcano's, the gang-admission controller's when it runs) and admission policy
is called as on a cluster; the first refusal ends the trial as ``refused``, naming who
refused. Otherwise the trial's objects are polled (:mod:`gpufleet.sandbox.trial_watch`)
until every rank runs, the engines have stopped acting for ``settle`` seconds, or the
timeout; :mod:`gpufleet.sandbox.outcome` says what that was. With ``fail_rank`` the
rank's pod is then marked Failed through the status subresource, as a kubelet reports a
container that exited 1 (KWOK runs no container), and the gang is watched again. Last,
unless ``clean`` is off, the submitted objects are deleted and their pods awaited, so the
next trial starts on free nodes.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Mapping

from gpufleet import workloads
from gpufleet.kubetypes import vocab
from gpufleet.kubetypes.quantity import json_number
from gpufleet.sandbox import outcome
from gpufleet.sandbox.kube import Kube, api_message, wait_for
from gpufleet.sandbox.outcome import Verdict
from gpufleet.sandbox.trial_watch import Ref, Watch
from gpufleet.workloads import outcomes as O


@dataclass(frozen=True)
class TrialOptions:
    timeout: float = 120.0
    """Seconds to wait for the gang to run whole (and again, after a failed rank, for the engines to react)."""
    settle: float = 10.0
    """Stop early once nothing the engines do has changed for this long (a gang that waits, waits on)."""
    failure_settle: float | None = None
    """``settle`` after the failed rank (default: ``settle``): at least the Job controller's first pod-failure
    backoff (10 s), or a replacement still to come is taken for none."""
    fail_rank: int | None = None
    """Once every rank runs, fail this rank's pod (ranks in :func:`gpufleet.sandbox.outcome.rank_order`)."""
    namespace: str = "default"
    """Where a manifest without ``metadata.namespace`` goes."""
    gpu_resources: tuple[str, ...] = (vocab.NVIDIA_GPU,)
    clean: bool = True
    interval: float = 0.5


@dataclass
class TrialResult:
    outcome: str
    expected_ranks: int
    objects: list[str]
    verdict: Verdict | None = None
    refused_by: str | None = None
    message: str | None = None
    seconds_to_whole: float | None = None
    failed_pod: str | None = None
    elapsed: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """The gang ran whole (and, when a rank was failed, restarted whole)."""
        return self.outcome == (O.RESTARTED_WHOLE if self.failed_pod else O.RAN_WHOLE)

    def as_dict(self) -> dict[str, Any]:
        v = self.verdict
        return {
            "outcome": self.outcome,
            "expectedRanks": self.expected_ranks,
            "objects": self.objects,
            "refusedBy": self.refused_by,
            "message": self.message,
            "secondsToAllRunning": None if self.seconds_to_whole is None else round(self.seconds_to_whole, 2),
            "running": v.running if v else 0,
            "bound": v.bound if v else 0,
            "pending": v.pending if v else 0,
            "gpusHeld": json_number(Decimal(v.gpus_held)) if v else 0,
            "reasons": list(v.reasons) if v else [],
            "failedPod": self.failed_pod,
            "elapsedSeconds": round(self.elapsed, 2),
            "notes": [*self.notes, *self.outcome_notes],
        }

    @property
    def outcome_notes(self) -> list[str]:
        """What the outcome leaves a user to do: after a failed rank stopped the gang, what would restart it."""
        return [O.NOTHING_RESTARTS] if self.failed_pod and self.outcome == O.STOPPED_WHOLE else []


def expected_ranks(docs: list[Mapping[str, Any]]) -> int:
    """The gang's ranks: the pods the manifests' workloads stamp out (replicas or parallelism, over every task)."""
    views = [workloads.view(d) for d in docs]
    return sum(v.total_pods for v in views if v is not None and v.kind != "PodGroup")


def _placed(kube: Kube, doc: Mapping[str, Any], namespace: str) -> dict[str, Any]:
    body = copy.deepcopy(dict(doc))
    meta = body.setdefault("metadata", {})
    if not meta.get("namespace") and kube.resource(body["apiVersion"], body["kind"]).namespaced:
        meta["namespace"] = namespace
    return body


def unserved(kube: Kube, docs: list[Mapping[str, Any]]) -> str | None:
    """The first kind in ``docs`` the sandbox serves no API for, as ``Kind (apiVersion)``; None when it serves all."""
    for doc in docs:
        api_version, kind = str(doc.get("apiVersion", "")), str(doc.get("kind", ""))
        try:
            kube.resource(api_version, kind)
        except Exception:  # noqa: BLE001 - ResourceNotFoundError: no CRD (no operator) for it here
            return f"{kind} ({api_version})"
    return None


def _submit(kube: Kube, docs: list[Mapping[str, Any]], namespace: str) -> tuple[list[Ref], str | None]:
    """Create each manifest; the refs created and, at the first refusal, the API server's message."""
    refs: list[Ref] = []
    for doc in docs:
        try:
            created = kube.create(_placed(kube, doc, namespace))
        except Exception as exc:  # noqa: BLE001 - ApiException, DynamicApiError, ResourceNotFoundError
            meta = doc.get("metadata") or {}
            return refs, f"{doc.get('kind')} {meta.get('name')}: {api_message(exc)}"
        meta = created["metadata"]
        refs.append(Ref(created["apiVersion"], created["kind"], meta["name"], meta.get("namespace"), meta["uid"]))
    return refs, None


def _watch(watch: Watch, options: TrialOptions, decide) -> outcome.Verdict:
    """Poll until ``decide(seen, final)`` answers; final at the deadline or once nothing changed for ``settle``."""
    deadline = time.monotonic() + options.timeout
    last, since = None, time.monotonic()
    while True:
        seen = watch.observe()
        mark = outcome.fingerprint(seen)
        if mark != last:
            last, since = mark, time.monotonic()
        now = time.monotonic()
        verdict = decide(seen, now >= deadline or now - since >= options.settle)
        if verdict is not None:
            return verdict
        time.sleep(options.interval)


def finish_pod(kube: Kube, pod: Mapping[str, Any], exit_code: int = 1) -> None:
    """Mark ``pod`` Failed (or Succeeded, for ``exit_code`` 0), its containers terminated with ``exit_code``, as a
    kubelet reports it (:func:`clean` ends a deleted pod Kueue keeps this way, exit 0)."""
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    reason = "Error" if exit_code else "Completed"
    status = pod.get("status") or {}
    containers = [
        {
            **c,
            "ready": False,
            "started": False,
            "state": {
                "terminated": {
                    "exitCode": exit_code,
                    "reason": reason,
                    "finishedAt": now,
                    "startedAt": ((c.get("state") or {}).get("running") or {}).get("startedAt", now),
                }
            },
        }
        for c in status.get("containerStatuses") or []
    ]
    conditions = [
        {**c, "status": "False", "lastTransitionTime": now} if c.get("type") in ("Ready", "ContainersReady") else c
        for c in status.get("conditions") or []
    ]
    meta = pod["metadata"]
    kube.core().patch_namespaced_pod_status(
        meta["name"],
        meta["namespace"],
        {
            "status": {
                "phase": "Failed" if exit_code else "Succeeded",
                "reason": reason,
                "containerStatuses": containers,
                "conditions": conditions,
            }
        },
        _content_type="application/merge-patch+json",
    )  # whole lists: the client's default is a JSON Patch


def kept_by_kueue(pod: Mapping[str, Any]) -> bool:
    """A deleted pod still Running that Kueue's pod finalizer keeps: it goes only once its containers end."""
    meta = pod.get("metadata") or {}
    return (
        bool(meta.get("deletionTimestamp"))
        and vocab.KUEUE_POD_FINALIZER in (meta.get("finalizers") or [])
        and (pod.get("status") or {}).get("phase") == "Running"
    )


def clean(watch: Watch) -> None:
    """Delete the trial's objects and wait for them and their pods to go.

    A deleted pod that Kueue's finalizer keeps (a plain pod or pod group Kueue admitted) is
    ended as a kubelet ends a deleted pod's containers, exit 0 (KWOK never does): Kueue then
    drops the finalizer. Before, such a trial's clean-up waited out its 180 s and failed."""
    for ref in reversed(watch.refs):
        watch.kube.delete(ref.api_version, ref.kind, ref.name, ref.namespace)

    def gone() -> bool:
        for pod in filter(kept_by_kueue, watch.observe().pods):
            finish_pod(watch.kube, pod, exit_code=0)
        return watch.gone()

    wait_for("the trial's objects and pods to go", gone, timeout=180, interval=1)


def try_manifests(kube: Kube, docs: list[Mapping[str, Any]], options: TrialOptions = TrialOptions()) -> TrialResult:
    """Submit ``docs`` to the sandbox ``kube`` talks to and report what its engines did with them."""
    start = time.monotonic()
    result = TrialResult(O.NEVER_ADMITTED, expected_ranks(docs), [])
    missing = unserved(kube, docs)
    if missing is not None:
        result.outcome = O.NOT_RUNNABLE
        result.message = (
            f"this sandbox does not run {missing}: no controller serves that API here, so nothing was submitted "
            f"(fix: run its operator in the sandbox, where the model's workloadOperators can say so)"
        )
        result.elapsed = time.monotonic() - start
        return result
    refs, refusal = _submit(kube, docs, options.namespace)
    result.objects = [str(r) for r in refs]
    watch = Watch(kube, refs)
    try:
        if refusal is not None:
            result.outcome, result.refused_by, result.message = O.REFUSED, outcome.refused_by(refusal), refusal
            return result
        result.verdict = _run(watch, options, result, start)
        result.outcome = result.verdict.outcome
        return result
    finally:
        result.elapsed = time.monotonic() - start
        if options.clean:
            clean(watch)


def _run(watch: Watch, options: TrialOptions, result: TrialResult, start: float) -> outcome.Verdict:
    expected, resources = result.expected_ranks, options.gpu_resources

    def first(seen: outcome.Observed, final: bool) -> outcome.Verdict | None:
        if outcome.is_whole(seen, expected):
            result.seconds_to_whole = time.monotonic() - start
        return outcome.classify(seen, expected, resources) if final or result.seconds_to_whole else None

    verdict = _watch(watch, options, first)
    if options.fail_rank is None or verdict.outcome != O.RAN_WHOLE:
        if options.fail_rank is not None:
            result.notes.append(f"rank {options.fail_rank} was not failed: the gang never ran whole")
        return verdict
    ranks = outcome.rank_order(p for p in watch.observe().pods if outcome.running(p))
    if options.fail_rank >= len(ranks):
        result.notes.append(
            f"rank {options.fail_rank} was not failed: the gang has {len(ranks)} ranks (0-{len(ranks) - 1})"
        )
        return verdict
    before = frozenset(outcome.uid(p) for p in ranks)
    victim = ranks[options.fail_rank]
    finish_pod(watch.kube, victim)
    result.failed_pod = f"{victim['metadata']['namespace']}/{victim['metadata']['name']}"
    failed = outcome.uid(victim)
    return _watch(
        watch,
        replace(options, settle=options.failure_settle or options.settle),
        lambda seen, final: outcome.after_failure(before, failed, seen, expected, final, resources),
    )
