"""The engines' shared library versions (gpufleet.sandbox.gomod): which modules move, and that the committed ones are aligned."""

from __future__ import annotations

import pytest

from gpufleet.sandbox import gomod
from gpufleet.sandbox.needs import ENGINES_DIR


def a_gomod(engine: str, requires: dict[str, str], replaces: str = "") -> gomod.GoMod:
    lines = "\n".join(f"\t{path} {version} // indirect" for path, version in requires.items())
    return gomod.parse(engine, f"module gpufleet.dev/{engine}\n\ngo 1.26.0\n\nrequire (\n{lines}\n)\n{replaces}")


@pytest.mark.parametrize(
    ("newer", "older"),
    [
        ("v0.36.3", "v0.36.2"),
        ("v1.10.0", "v1.9.9"),
        ("v1.36.12", "v1.36.12-0.20260120151049-f2248ac996af"),  # a release after its pseudo-version
        ("v0.0.0-20260618221249-bc653b64f974", "v0.0.0-20250318190949-c8a335a9a2ff"),
        ("v1.0.0-rc.10", "v1.0.0-rc.9"),  # numeric identifiers compare as numbers
        ("v1.0.0-rc.1", "v1.0.0-beta"),
        ("v2.0.0+incompatible", "v1.9.0"),
    ],
)
def test_versions_compare_by_semantic_version_precedence(newer: str, older: str) -> None:
    assert gomod.newer(newer, older)
    assert not gomod.newer(older, newer)


def test_a_replacement_by_the_module_itself_sets_its_version_and_is_marked_same() -> None:
    mod = a_gomod(
        "volcano",
        {"k8s.io/api": "v0.34.1", "google.golang.org/grpc": "v1.72.1", "github.com/atotto/clipboard": "v0.1.4"},
        "replace (\n\tk8s.io/api => k8s.io/api v0.34.4\n\tgoogle.golang.org/grpc => google.golang.org/grpc v1.64.0\n)\n"
        "replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e\n",
    )
    assert mod.versions["k8s.io/api"] == "v0.34.4"
    assert mod.versions["google.golang.org/grpc"] == "v1.64.0"
    assert mod.replaced == {"k8s.io/api", "google.golang.org/grpc", "github.com/atotto/clipboard"}
    assert mod.same == {"k8s.io/api", "google.golang.org/grpc"}
    assert mod.kube_minor == "v0.34"


def test_a_library_outside_kubernetes_moves_to_the_newest_any_engine_requires() -> None:
    mods = [a_gomod("kwok", {"golang.org/x/sys": "v0.38.0"}), a_gomod("etcd", {"golang.org/x/sys": "v0.49.0"})]
    assert gomod.targets(mods) == {"kwok": {"golang.org/x/sys": "v0.49.0"}}


def test_a_kubernetes_library_moves_only_among_engines_on_the_same_minor() -> None:
    mods = [
        a_gomod("kwok", {"k8s.io/api": "v0.36.1"}),
        a_gomod("kueue", {"k8s.io/api": "v0.36.3"}),
        a_gomod("kube", {"k8s.io/api": "v0.37.2"}),
    ]
    assert gomod.targets(mods) == {"kwok": {"k8s.io/api": "v0.36.3"}}


@pytest.mark.parametrize(
    "pin", ["sigs.k8s.io/kueue", "volcano.sh/apis", "github.com/pulumi/pulumi/sdk/v3", "go.etcd.io/etcd/client/v3"]
)
def test_an_engines_own_pin_never_moves(pin: str) -> None:
    mods = [a_gomod("one", {pin: "v1.0.0"}), a_gomod("two", {pin: "v1.2.0"})]
    assert gomod.targets(mods) == {}


def test_a_deliberate_replace_stays_but_a_kubernetes_patch_replace_moves_by_its_replace_line() -> None:
    volcano = a_gomod(
        "volcano",
        {"k8s.io/api": "v0.34.1", "google.golang.org/grpc": "v1.72.1"},
        "replace (\n\tk8s.io/api => k8s.io/api v0.34.1\n\tgoogle.golang.org/grpc => google.golang.org/grpc v1.64.0\n)\n",
    )
    cosched = a_gomod(
        "coscheduling",
        {"k8s.io/api": "v0.34.7", "google.golang.org/grpc": "v1.85.0"},
        "replace k8s.io/api => k8s.io/api v0.34.4\n",
    )
    assert gomod.targets([volcano, cosched]) == {"volcano": {"k8s.io/api": "v0.34.4"}}
    assert gomod.movable(volcano, "k8s.io/api") and not gomod.movable(volcano, "google.golang.org/grpc")


def test_the_committed_engines_compile_each_shared_library_at_one_version() -> None:
    mods = gomod.read(ENGINES_DIR)
    assert {m.engine for m in mods} >= {"kube", "kueue", "volcano", "coscheduling", "kwok", "ksm", "etcd", "pulumi"}
    assert gomod.targets(mods) == {}, (
        "run: python scripts/align_engines.py (docs/sandbox.md, 'Shared library versions')"
    )
