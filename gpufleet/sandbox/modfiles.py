"""The engines' own manifests (CRDs, webhook configurations, install files) read from the Go module cache.

Each file is parsed once per process with libyaml (PyYAML's C loader where built, as
``gpufleet.yamlin.yamllimits`` uses it), keyed by its path, size and modification time;
every caller gets a deep copy it may change. Volcano's ``installer/volcano-development.yaml``
is 1 MB: the pure-Python loader took about 12 s a read and ``up`` read it four times, so
this halves a sandbox's start. These files come from the module cache (read-only, checked
against go.sum), not from a user: no input limits apply. Called by
``gpufleet.sandbox.volcano``, ``gpufleet.sandbox.kueue`` and ``gpufleet.sandbox.coscheduling``.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _parse(text: str) -> tuple[Any, ...]:
    return tuple(d for d in yaml.load_all(text, Loader=_Loader) if d)


@lru_cache(maxsize=64)
def _cached(path: str, size: int, mtime_ns: int) -> tuple[Any, ...]:
    return _parse(Path(path).read_text())


def documents(path: Path) -> list[Any]:
    """The non-empty YAML documents of ``path``, the caller's own copy."""
    st = path.stat()
    return copy.deepcopy(list(_cached(str(path), st.st_size, st.st_mtime_ns)))
