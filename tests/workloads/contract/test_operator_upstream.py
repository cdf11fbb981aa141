"""Every upstream example of an operator kind (../shared/examples/upstream) is read, never crashes, and is known.

Read alone (as ``gpufleet predict FILE`` reads it) and with every operator's gang scheduling on, so both the
upstream defaults and the PodGroup paths of each reader run on real manifests.
"""

from __future__ import annotations

import pytest

from gpufleet.workloads.contract.registry import Run, read
from gpufleet.workloads.types import group_of
from gpufleet.yamlin import yamlio
from tests.conftest import SHARED, shared_cases
from tests.workloads.contract.probes import profile

OPERATOR_GROUPS = frozenset(
    {"jobset.x-k8s.io", "leaderworkerset.x-k8s.io", "kubeflow.org", "trainer.kubeflow.org", "ray.io"}
)
UPSTREAM = SHARED / "examples" / "upstream"
GANGS = profile(
    **{key: {"gangScheduler": "volcano"} for key in ("mpiOperator", "trainingOperator", "leaderworkerset", "kuberay")}
)


def _files() -> list:
    if not UPSTREAM.exists():
        return []
    out = []
    for path in sorted(UPSTREAM.rglob("*.yaml")):
        docs = [d.value for d in yamlio.load_documents(path.read_text()) if isinstance(d.value, dict)]
        if any(group_of(d) in OPERATOR_GROUPS for d in docs):
            out.append(pytest.param(docs, id=path.relative_to(UPSTREAM).as_posix()))
    return out


@pytest.mark.shared
@pytest.mark.parametrize("docs", shared_cases(_files(), 1, "examples", "upstream"))
def test_every_upstream_operator_example_has_a_known_contract(docs: list) -> None:
    for operators in (profile(), GANGS):
        for obj in docs:
            if group_of(obj) not in OPERATOR_GROUPS:
                continue
            contract = read(obj, Run(objects=tuple(docs), operators=operators))
            assert contract.known, contract.notes
            assert contract.pod_sets, f"{obj['kind']} {contract.name}: no pod sets"
            assert all(p.count >= 0 for p in contract.pod_sets)
            assert {f.pod_set for f in contract.rank_failures} <= {p.name for p in contract.pod_sets}


@pytest.mark.shared
def test_the_upstream_examples_cover_every_operator_reader_with_examples() -> None:
    if not UPSTREAM.exists():
        pytest.skip(f"{UPSTREAM} is absent: ../shared exists only on the developers' machines and CI")
    kinds = {d.get("kind") for p in _files() for d in p.values[0] if group_of(d) in OPERATOR_GROUPS}
    assert {"JobSet", "MPIJob", "PyTorchJob", "TrainJob"} <= kinds
