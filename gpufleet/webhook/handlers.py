"""The admission handlers: ``/validate`` (the rule engine), ``/mutate`` (the mutator), ``/echo``.

Registered into a :class:`~gpufleet.webhook.registry.Registry` by
:func:`build_registry`, which the server calls once. Both real handlers:

- allow DELETE (no object), subresources, and objects being deleted
  (``metadata.deletionTimestamp``: denying the finalizer-removal UPDATE would
  block deletion forever);
- read the request namespace into the object when the client left it out;
- on UPDATE, deny only for blocking findings the old object did not have (the
  others warn), so controllers can still update objects that predate a rule;
- never raise: an internal error denies (validate, ``status.code`` 500) or allows
  without a patch plus a warning (mutate; the validator still runs after it).

``/mutate`` patches CREATE only: Volcano forbids most spec changes on UPDATE and
Kueue forbids changing the queue of a running workload, so defaulting an UPDATE
would turn into a denial by them.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Callable

from gpufleet.kubetypes.objects import reported_name
from gpufleet.kubetypes.vocab import WAIVER_PREFIX
from gpufleet.mutate import mutate
from gpufleet.rules import engine
from gpufleet.rules.api import Finding
from gpufleet.util.maps import as_map, is_map
from gpufleet.webhook.registry import Handler, Registry
from gpufleet.webhook.review import AdmissionRequest, Verdict, short_warning
from gpufleet.webhook.state import State

log = logging.getLogger("gpufleet.webhook")
MAX_MESSAGE = 8000  # characters of the denial message; the rest is summarised


def build_registry(echo: bool = False) -> Registry:
    """The registry the server serves: /validate and /mutate, plus /echo for the benchmark floor."""
    registry = Registry()
    registry.admission("/validate")(guarded(validate, _internal_deny))
    registry.admission("/mutate")(guarded(mutate_handler, _internal_allow))
    if echo:
        registry.admission("/echo")(lambda request, state: Verdict())
    return registry


class RuleCrash(Exception):
    """One or more rules raised while checking the object (the engine turned each into a finding)."""

    def __init__(self, findings: list[Finding]) -> None:
        super().__init__(", ".join(f"{f.code}: {f.message}" for f in findings))
        self.findings = findings


def guarded(handler: Handler, fallback: Callable[[Exception], Verdict]) -> Handler:
    def run(request: AdmissionRequest, state: State) -> Verdict:
        try:
            return handler(request, state)
        except RuleCrash as exc:
            for f in exc.findings:
                log.error(
                    "internal error in rule %s answering %s uid=%s:\n%s",
                    f.code,
                    handler.__name__,
                    request.uid,
                    (f.internal or "").rstrip(),
                )
            return fallback(exc)
        except Exception as exc:  # noqa: BLE001 - one bad object must not take the server down
            log.exception("internal error answering %s uid=%s", handler.__name__, request.uid)
            return fallback(exc)

    run.__name__ = handler.__name__
    return run


def _internal_deny(exc: Exception) -> Verdict:
    what = ", ".join(dict.fromkeys(f.code for f in exc.findings)) if isinstance(exc, RuleCrash) else type(exc).__name__
    return Verdict(
        allowed=False,
        code=500,
        reason="InternalError",
        message=f"gpufleet could not check this object (internal error in {what}); "
        "the admission controller logged the traceback; report it as a gpufleet bug",
    )


def _internal_allow(exc: Exception) -> Verdict:
    return Verdict(warnings=[short_warning(f"gpufleet could not add gang-safety defaults ({type(exc).__name__})")])


def _skipped(request: AdmissionRequest) -> bool:
    obj = request.obj
    if obj is None or request.operation in ("DELETE", "CONNECT") or request.sub_resource:
        return True
    meta = obj.get("metadata")
    return is_map(meta) and bool(meta.get("deletionTimestamp"))


def with_namespace(obj: Mapping[str, Any], namespace: str | None) -> Mapping[str, Any]:
    """``obj`` with ``metadata.namespace`` from the request when absent (shallow copies only)."""
    meta = obj.get("metadata")
    if not namespace or (is_map(meta) and meta.get("namespace")):
        return obj
    meta = dict(meta) if is_map(meta) else {}
    meta["namespace"] = namespace
    return {**obj, "metadata": meta}


def validate(request: AdmissionRequest, state: State) -> Verdict:
    if _skipped(request):
        return Verdict()
    obj = with_namespace(request.obj, request.namespace)  # type: ignore[arg-type]  # the request's object is a parsed JSON object; its type says Any-valued Mapping
    findings = engine.check_object(obj, state.check, ignore=state.ignore_rules)
    crashed = [f for f in findings if f.internal is not None]
    if crashed:  # a rule raised: a gpufleet bug, answered as one (500, counted as error), never as a denial
        raise RuleCrash(crashed)
    blocking = [f for f in findings if f.blocking]
    verdict = Verdict(
        warnings=[short_warning(f"{f.code} {f.path}: {f.message}") for f in findings if not f.blocking and not f.waived]
    )
    if blocking and request.operation == "UPDATE" and request.old is not None:
        blocking = _new_on_update(blocking, with_namespace(request.old, request.namespace), state, verdict)
    waived = [f for f in findings if f.waived]
    if waived:
        verdict.audit["waived"] = "; ".join(f"{f.code} {f.path} ({f.waiver_reason})" for f in waived)[:1000]
    if blocking:
        verdict.allowed, verdict.code, verdict.reason = False, 403, "Forbidden"
        verdict.message = denial_message(obj, blocking)
        verdict.denied_codes = tuple(f.code for f in blocking)
    return verdict


def _new_on_update(blocking: list[Finding], old: Mapping[str, Any], state: State, verdict: Verdict) -> list[Finding]:
    """The blocking findings an UPDATE introduces; those the old object already had only warn.

    Controllers update objects they did not write (Kueue suspends and resumes Jobs, the
    Volcano scheduler writes PodGroup status with a full UPDATE): denying them for a
    violation that predates the webhook, or a rule, would wedge the workload.
    """
    before = {(f.code, f.path) for f in engine.check_object(old, state.check) if f.blocking}
    for f in blocking:
        if (f.code, f.path) in before:
            verdict.warnings.append(
                short_warning(f"{f.code} {f.path}: already there, not blocking this update: {f.message}")
            )
    return [f for f in blocking if (f.code, f.path) not in before]


def denial_message(obj: Mapping[str, Any], blocking: list[Finding]) -> str:
    meta = as_map(obj.get("metadata"))
    name = reported_name(meta) or "(unnamed)"
    where = f"{meta.get('namespace')}/{name}" if meta.get("namespace") else name
    lines = [f"gpufleet denied {obj.get('kind', 'object')} {where}: {len(blocking)} gang-safety violation(s)"]
    lines += [f"{f.code} {f.name} at {f.path or '(object)'}: {f.message} Fix: {f.fix}" for f in blocking]
    lines.append(f"Waive a rule with the annotation {WAIVER_PREFIX}<CODE>: \"<reason>\".")
    message = "\n".join(lines)
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 40] + "\n... (more violations cut)"


def mutate_handler(request: AdmissionRequest, state: State) -> Verdict:
    if _skipped(request) or request.operation != "CREATE" or state.fleet is None:
        return Verdict()
    return Verdict(patch=mutate(request.obj, state.fleet, request.namespace))  # type: ignore[arg-type]  # as above: request.obj is a parsed JSON object
