"""Count the places rule modules decide something by a workload's kind, and the lines of rules and readers.

The gang contract moves kind knowledge into one reader per upstream controller
(``gpufleet/workloads/contract/readers``); a rule should be an invariant over the contract and
never compare a kind. This script measures how far that is true: every comparison in
``gpufleet/rules`` whose operands name a kind (``view.kind == "TrainJob"``, ``(view.group,
view.kind) in VOLCANO_KINDS``, ``kind == LOCAL_QUEUE``) is a per-kind branch. A rule's
``kinds=`` subscription (which objects the engine hands it) is counted apart: it says what a
rule looks at, not how it judges.

Usage: python scripts/kind_branches.py [--json] [ROOT]   (ROOT defaults to the clone's root)
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

_KIND_KEYS = ("kind", "apiVersion")
_GROUP_NAMES = ("group", "api_group")


def _names_kind(node: ast.AST) -> bool:
    """Whether ``node`` reads a kind or an API group.

    A name or attribute ``kind``/``kinds``/``group`` or ending in ``_KINDS``; ``x.get("kind")`` or
    ``x["apiVersion"]``; a tuple holding one of these.
    """
    if isinstance(node, ast.Tuple):
        return any(_names_kind(e) for e in node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value in _KIND_KEYS
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value in _KIND_KEYS
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
    if name is None:
        return False
    return name in ("kind", "kinds", *_GROUP_NAMES) or name.endswith("_KINDS") or name == "KINDS"


def count_module(source: str) -> tuple[int, int]:
    """(kind branches, kind subscriptions) in one module's source."""
    tree = ast.parse(source)
    branches = 0
    subscriptions = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(_names_kind(n) for n in (node.left, *node.comparators)):
            branches += 1
        elif isinstance(node, ast.keyword) and node.arg == "kinds":
            subscriptions += 1
    return branches, subscriptions


def lines(root: Path) -> int:
    return sum(len(p.read_text().splitlines()) for p in sorted(root.rglob("*.py")))


def measure(root: Path) -> dict[str, object]:
    rules = root / "gpufleet" / "rules"
    per_module: dict[str, int] = {}
    subscriptions = 0
    for path in sorted(rules.rglob("*.py")):
        b, s = count_module(path.read_text())
        subscriptions += s
        if b:
            per_module[str(path.relative_to(root))] = b
    return {
        "kindBranches": sum(per_module.values()),
        "modulesWithKindBranches": len(per_module),
        "kindSubscriptions": subscriptions,
        "linesRules": lines(rules),
        "linesWorkloads": lines(root / "gpufleet" / "workloads"),
        "perModule": per_module,
    }


def main(argv: list[str]) -> int:
    as_json = "--json" in argv
    args = [a for a in argv if a != "--json"]
    root = Path(args[0]) if args else Path(__file__).resolve().parent.parent
    result = measure(root)
    if as_json:
        print(json.dumps(result, indent=2))
        return 0
    for module, n in sorted(result["perModule"].items(), key=lambda kv: -kv[1]):  # type: ignore[union-attr]
        print(f"{n:4d}  {module}")
    print(
        f"kind branches in rule modules: {result['kindBranches']} in {result['modulesWithKindBranches']} modules; "
        f"kinds= subscriptions: {result['kindSubscriptions']}; lines: rules {result['linesRules']}, "
        f"workloads {result['linesWorkloads']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
