"""The import contracts of pyproject.toml hold on the real tree, and each one breaks when a module breaks it.

``lint-imports`` (what scripts/test.sh runs) is run on a scratch copy of ``gpufleet/`` (with the
Pulumi components, ``gpufleet.pulumi``, and the policy pack's code, ``gpufleet.policypack``) with one offending module
added, checking only the contract that module offends. Also here: every package of
``gpufleet`` is named by the core contract or is an adapter, and no module imports a
private module or name of another package (issue 12, points 5 and 6).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
CONTRACTS = {contract["id"]: contract for contract in CONFIG["contracts"]}
ADAPTERS = ("gpufleet.cli", "gpufleet.webhook", "gpufleet.sandbox", "gpufleet.pulumi", "gpufleet.policypack")
# Not core, not an adapter: the step reporter (its own contract) and the package's entry point.
OUTSIDE_THE_CORE = {"gpufleet.steps", "gpufleet.__main__"}
# pulumi_policy has no public way to read a resource's inputs without raising on unknown
# values or unwrapping secrets: the pack unwraps its proxies (props.py) to report both.
PRIVATE_IMPORTS_ALLOWED = {
    ("gpufleet/policypack/props.py", "pulumi_policy.proxy._DictProxy"),
    ("gpufleet/policypack/props.py", "pulumi_policy.proxy._ListProxy"),
    ("gpufleet/policypack/props.py", "pulumi_policy.secret._DictSecretsProxy"),
    ("gpufleet/policypack/props.py", "pulumi_policy.secret._ListSecretsProxy"),
}


def lint_imports(root: Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    args = [str(LINT_IMPORTS), "--no-cache", "--no-logo", *(f"--contract={c}" for c in contracts)]
    return subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("layers")
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(REPO / "gpufleet", root / "gpufleet", ignore=ignore)
    shutil.copy(REPO / "pyproject.toml", root)
    return root


def test_every_contract_is_kept_on_the_real_tree():
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in result.stdout


@pytest.mark.parametrize(
    "contract, module, imports",
    [
        ("adapters-independent", "gpufleet/pulumi/bad.py", "gpufleet.cli.lint_run"),
        ("adapters-independent", "gpufleet/policypack/bad.py", "gpufleet.pulumi.fleet"),
        ("adapters-independent", "gpufleet/webhook/bad.py", "gpufleet.policypack.report"),
        ("adapters-independent", "gpufleet/cli/bad.py", "gpufleet.webhook.review"),
        ("adapters-public-rule-api", "gpufleet/policypack/bad.py", "gpufleet.rules.platform._kueue_config"),
        (
            "adapters-public-rule-api",
            "gpufleet/cli/bad.py",
            "gpufleet.rules.probes.gang301_liveness_or_readiness_probe",
        ),
        ("adapters-public-rule-api", "gpufleet/webhook/bad.py", "gpufleet.workloads.kinds"),
        ("adapters-public-rule-api", "gpufleet/pulumi/bad.py", "gpufleet.workloads"),
        ("core-no-adapter-stacks", "gpufleet/render/bad.py", "pulumi"),
        ("core-no-adapter-stacks", "gpufleet/rules/bad.py", "aiohttp"),
        ("steps-stdlib-only", "gpufleet/steps/bad.py", "yaml"),
        ("layers", "gpufleet/model/bad.py", "gpufleet.render"),
        ("layers", "gpufleet/fleetctx/bad.py", "gpufleet.rules.api"),
        ("layers", "gpufleet/fleetctx/bad.py", "gpufleet.render.context"),
        ("layers", "gpufleet/rules/bad.py", "gpufleet.settings"),
        ("layers", "gpufleet/model/bad.py", "gpufleet.fleetctx.context"),
        ("components-own-stack", "gpufleet/pulumi/bad.py", "pulumi_policy"),
        ("pack-own-stack", "gpufleet/policypack/bad.py", "pulumi_kubernetes"),
        ("cli-webhook-no-pulumi", "gpufleet/cli/bad.py", "pulumi"),
        ("cli-webhook-no-pulumi", "gpufleet/webhook/bad.py", "pulumi_kubernetes"),
        ("core-no-adapter-stacks", "gpufleet/model/bad.py", "gpufleet.sandbox.up"),
        ("core-no-adapter-stacks", "gpufleet/render/bad.py", "gpufleet.pulumi.fleet"),
        ("core-no-adapter-stacks", "gpufleet/lint/bad.py", "gpufleet.policypack.report"),
        ("steps-stdlib-only", "gpufleet/steps/bad.py", "gpufleet.pulumi"),
        ("sandbox-cli-only", "gpufleet/webhook/bad.py", "gpufleet.sandbox.kube"),
        ("sandbox-cli-only", "gpufleet/pulumi/bad.py", "gpufleet.sandbox"),
        ("sandbox-own-stack", "gpufleet/sandbox/bad.py", "gpufleet.webhook.server"),
        ("sandbox-own-stack", "gpufleet/sandbox/bad.py", "typer"),
    ],
)
def test_a_module_that_imports_what_a_contract_forbids_breaks_that_contract(scratch, contract, module, imports):
    bad = scratch / module
    bad.write_text(f'"""Breaks {contract}."""\n\nimport {imports}\n')
    try:
        result = lint_imports(scratch, contract)
    finally:
        bad.unlink()
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Contracts: 0 kept, 1 broken." in result.stdout
    assert imports in result.stdout


def test_the_scratch_copy_itself_keeps_every_contract(scratch):
    assert lint_imports(scratch).returncode == 0


def _named_modules(contract: dict) -> set[str]:
    """Every ``gpufleet`` module a contract names (its layers, sources, forbidden and independent modules)."""
    names: set[str] = set()
    for key in ("layers", "source_modules", "forbidden_modules", "modules"):
        for entry in contract.get(key, ()):
            names.update(part.strip() for part in str(entry).split("|"))
    return {n for n in names if n.startswith("gpufleet.")}


@pytest.mark.parametrize("contract_id", sorted(CONTRACTS))
def test_every_contract_names_packages_only_and_ignores_no_import(contract_id):
    # Issue 36, item 1: a contract naming single modules hid arrows that ran back up (settings, contextschema).
    contract = CONTRACTS[contract_id]
    modules = {n for n in _named_modules(contract) if not n.endswith(".*")}
    not_packages = {n for n in modules if not (REPO / n.replace(".", "/") / "__init__.py").is_file()}
    assert not_packages == set() and "ignore_imports" not in contract


def test_every_package_of_gpufleet_is_in_the_core_contract_or_is_an_adapter():
    core = set(CONTRACTS["core-no-adapter-stacks"]["source_modules"])
    packages = {
        f"gpufleet.{p.stem}"
        for p in (REPO / "gpufleet").iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").is_file()) and p.name != "__init__.py"
    }
    assert packages - core - set(ADAPTERS) - OUTSIDE_THE_CORE == set()


def private_imports(path: Path) -> set[str]:
    """``package.module._name`` for each import of a private module or name of a package other than ours."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] in ("gpufleet", "tests"):
                continue
            if any(part.startswith("_") and not part.startswith("__") for part in name.split(".")):
                out.add(name)
    return out


def test_no_module_imports_a_private_module_or_name_of_another_package():
    found = {
        (str(path.relative_to(REPO)), name)
        for top in ("gpufleet", "policies", "bench", "scripts", "steps")
        for path in sorted((REPO / top).rglob("*.py"))
        for name in private_imports(path)
    }
    assert found == PRIVATE_IMPORTS_ALLOWED


def test_the_top_of_gpufleet_holds_packages_only():
    # Issue 21, point 9: the value types, YAML input, fleet context and helpers live in their packages.
    loose = sorted(p.name for p in (REPO / "gpufleet").glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert loose == []


def _imports(path: Path) -> set[str]:
    return {
        node.module
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
    }


def test_no_module_the_fleet_model_imports_imports_it_back():
    # Issue 21, point 9: model/observability.py imported model/fleet.py (under TYPE_CHECKING) for startup_budget.
    imported = {m for m in _imports(REPO / "gpufleet" / "model" / "fleet.py") if m.startswith("gpufleet.model.")}
    back = {m for m in imported if "gpufleet.model.fleet" in _imports(REPO / (m.replace(".", "/") + ".py"))}
    assert imported and back == set()


def _family_private_imports(path: Path) -> set[str]:
    """``gpufleet.rules.<family>._<module>`` for each import of a family's underscore module."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gpufleet.rules.")):
            continue
        for name in (node.module, *(f"{node.module}.{alias.name}" for alias in node.names)):
            parts = name.split(".")
            if len(parts) >= 4 and (REPO / "gpufleet" / "rules" / parts[2]).is_dir() and parts[3].startswith("_"):
                out.add(".".join(parts[:4]))
    return out


def test_no_rule_family_imports_another_familys_helpers():
    # Issue 36, item 4: helpers several families share live in gpufleet/rules/ itself (gangs, gpumath, demands, placement).
    rules = REPO / "gpufleet" / "rules"
    found = {
        (str(path.relative_to(REPO)), name)
        for path in sorted(rules.rglob("*.py"))
        for name in _family_private_imports(path)
        if path.parent == rules or name.split(".")[2] != path.relative_to(rules).parts[0]
    }
    assert found == set()
