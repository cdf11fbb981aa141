"""The CRD schemas that ship with gpufleet, and the CRD set a run checks against.

:func:`schemas` is what ``gpufleet.settings.load_crds`` (the one owner of which schemas are in
force for lint, the policy pack, the admission controller and ``diff``) calls: the bundled
schemas (``gpufleet/crdschema/bundled/``, written by ``scripts/bundle_crds.py`` from the
engines' and operators' Go modules at their pinned versions), read lazily, one CRD file on the
first object of its kind, then the CRDs of a user's folder added on top (same
group/version/kind: the folder's wins). :func:`provenance` is the record of where each bundled
file came from (tests check it against the model's chart versions; docs/crds.md lists it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpufleet.crdschema.crdset import CrdSet
from gpufleet.crdschema.loader import Key

BUNDLED = Path(__file__).resolve().parent / "bundled"


def index() -> dict[Key, Path]:
    """``(group, version, kind)`` -> the bundled file that serves it."""
    raw: dict[str, str] = json.loads((BUNDLED / "index.json").read_bytes())
    out: dict[Key, Path] = {}
    for key, file in raw.items():
        group, version, kind = key.split("/")
        out[(group, version, kind)] = BUNDLED / file
    return out


def provenance() -> dict[str, Any]:
    """Per project: ``module``, ``version``, ``license`` and ``files`` (path in the module, sha256, CRD, versions)."""
    data: dict[str, Any] = json.loads((BUNDLED / "PROVENANCE.json").read_bytes())
    return data


def schemas(folder: str | Path | None = None, *, bundled: bool = True) -> CrdSet:
    """The CRD set in force: the bundled schemas (unless ``bundled`` is False), overridden by ``folder``'s."""
    crds = CrdSet.load(folder) if folder is not None else CrdSet()
    if bundled:
        crds.defer(index())
    return crds
