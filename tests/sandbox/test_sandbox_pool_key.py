"""The e2e tier's shared sandboxes (tests/e2e/sandbox_pool.py): which modules may share one, in which order they run,
and what a module must have deleted before its sandbox is lent again."""

from __future__ import annotations

import pytest

from gpufleet.sandbox.up import Options
from tests.e2e.sandbox_pool import grouped, leftovers, pool_key

MODEL = {"name": "e2e", "pools": [{"name": "p", "nodeCount": 2}], "teams": []}


def test_the_same_model_in_another_key_order_and_the_same_options_share_a_sandbox():
    reordered = {"teams": [], "pools": [{"nodeCount": 2, "name": "p"}], "name": "e2e"}
    assert pool_key(MODEL, Options(controller=False)) == pool_key(reordered, Options(controller=False))


@pytest.mark.parametrize(
    "options",
    [
        Options(),
        Options(controller=False, node_cap=2),
        Options(controller=False, native_gang=True),
        Options(controller=False, feature_gates={"GenericWorkload": True}),
        Options(controller=False, volcano_without=("/queues/validate",)),
    ],
    ids=["controller", "node cap", "native gang", "feature gate", "volcano without"],
)
def test_any_other_option_gets_its_own_sandbox(options):
    assert pool_key(MODEL, options) != pool_key(MODEL, Options(controller=False))


def test_another_model_gets_its_own_sandbox():
    assert pool_key({**MODEL, "name": "other"}) != pool_key(MODEL)


def test_a_model_file_is_keyed_by_its_text(tmp_path):
    a, b = tmp_path / "a.fleet.yaml", tmp_path / "b.fleet.yaml"
    a.write_text("name: dev\n")
    b.write_text("name: dev\n")
    assert pool_key(a) != pool_key(a, Options(controller=False))
    assert pool_key(a).split("-", 1)[1] == pool_key(b).split("-", 1)[1]
    b.write_text("name: prod\n")
    assert pool_key(a).split("-", 1)[1] != pool_key(b).split("-", 1)[1]


def test_modules_of_one_key_run_one_after_another_where_the_first_of_them_would_have_run():
    modules = [("a", None), ("b", "dev"), ("c", None), ("d", "engines"), ("e", "dev"), ("f", "engines"), ("g", None)]
    assert grouped(modules) == ["a", "b", "e", "c", "d", "f", "g"]


def test_modules_without_a_key_keep_their_order():
    assert grouped([("z", None), ("a", None), ("m", None)]) == ["z", "a", "m"]


def test_every_workload_outside_the_system_and_engine_namespaces_is_a_leftover():
    objects = {
        ("v1", "Pod"): [
            {"metadata": {"name": "p", "namespace": "alpha"}},
            {"metadata": {"name": "kueue-x", "namespace": "kueue-system"}},
            {"metadata": {"name": "dns", "namespace": "kube-system"}},
        ],
        ("batch.volcano.sh/v1alpha1", "Job"): [{"metadata": {"name": "gang", "namespace": "alpha-vc"}}],
    }
    left = leftovers(lambda v, k: objects.get((v, k), []), {"kueue-system"})
    assert left == ["Pod alpha/p", "Job alpha-vc/gang"]
