"""GPUs are counted in whole units: ``8Gi``, ``500m`` or ``15.5`` GPUs are errors.

Called by :func:`gpufleet.model.loader.parse_model` on the *raw* document, before
pydantic: the model's ``Quantity`` fields parse ``8Gi`` to 8,589,934,592 and ``500m`` to
0.5, after which the way the number was written is lost (and ``plan`` printed
34,359,738,368 GPUs for a pool of four ``8Gi`` nodes). Checked, each at its exact path:

- ``pools[i].allocatable[<gpu>]`` for the pool's ``gpuResource`` and every GPU-named
  resource (``nvidia.com/gpu``, ``amd.com/gpu``, ``nvidia.com/mig-*``);
- ``nominal``, ``borrowingLimit`` and ``lendingLimit`` of every ``teams[i].quota.<pool>``
  and ``cohorts[i].quota.<pool>`` (quota is written in units of the pool's GPUs), and
  their ``resources.<gpu>`` entries.

A whole number is a YAML integer or a string of digits (``8``, ``"8"``). Anything
else is reported with the value it found and the fix; the other resources (cpu,
memory) keep Kubernetes quantity syntax.
"""

from __future__ import annotations

import re
from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.vocab import KNOWN_GPUS, MIG_PREFIX, NVIDIA_GPU
from gpufleet.yamlin.errors import Issue

LIMITS = ("nominal", "borrowingLimit", "lendingLimit")
_WHOLE = re.compile(r"\s*-?\d+\s*")  # a sign is the limits check's to judge ("negative")


def is_whole(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, str) and bool(_WHOLE.fullmatch(value))


def _is_gpu(name: Any, gpus: set[str]) -> bool:
    return isinstance(name, str) and (name in gpus or name.startswith(MIG_PREFIX))


def _issue(path: FieldPath, value: Any) -> Issue:
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    return Issue(
        path,
        f"GPUs are counted in whole units, not {shown}",
        "write a whole number of GPUs (8), without a suffix (Gi, m, k) or a fraction",
    )


def _pools(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    pools = data.get("pools")
    return [p if isinstance(p, Mapping) else {} for p in pools] if isinstance(pools, list) else []


def _allocatable_issues(data: Mapping[str, Any]) -> Iterator[Issue]:
    for i, pool in enumerate(_pools(data)):
        gpus = {*KNOWN_GPUS, str(pool.get("gpuResource") or NVIDIA_GPU)}
        allocatable = pool.get("allocatable")
        if not isinstance(allocatable, Mapping):
            continue
        for name, value in allocatable.items():
            if _is_gpu(name, gpus) and not is_whole(value):
                yield _issue(FieldPath.of("pools", i, "allocatable", str(name)), value)


def _quota_issues(owner: str, index: int, quota: Any, gpus: set[str]) -> Iterator[Issue]:
    if not isinstance(quota, Mapping):
        return
    for pool_name, entry in quota.items():
        if not isinstance(entry, Mapping):
            continue
        base = (owner, index, "quota", str(pool_name))
        for key in LIMITS:
            if key in entry and entry[key] is not None and not is_whole(entry[key]):
                yield _issue(FieldPath.of(*base, key), entry[key])
        resources = entry.get("resources")
        for name, limits in resources.items() if isinstance(resources, Mapping) else ():
            if not _is_gpu(name, gpus) or not isinstance(limits, Mapping):
                continue
            for key in LIMITS:
                if key in limits and limits[key] is not None and not is_whole(limits[key]):
                    yield _issue(FieldPath.of(*base, "resources", str(name), key), limits[key])


def check_raw(data: Any) -> list[Issue]:
    """Every GPU quantity of the raw model document that is not a whole number."""
    if not isinstance(data, Mapping):
        return []
    gpus = {*KNOWN_GPUS, *(str(p.get("gpuResource")) for p in _pools(data) if p.get("gpuResource"))}
    found = list(_allocatable_issues(data))
    for owner in ("teams", "cohorts"):
        entries = data.get(owner)
        for i, entry in enumerate(entries if isinstance(entries, list) else ()):
            if isinstance(entry, Mapping):
                found.extend(_quota_issues(owner, i, entry.get("quota"), gpus))
    return found
