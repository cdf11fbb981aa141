"""gpufleet.kubetypes.vocab is the one owner of the label, annotation and queue keys (issue 36, item 3)."""

from __future__ import annotations

import ast
from pathlib import Path

from gpufleet.kubetypes import vocab

REPO = Path(__file__).resolve().parents[1]
KEYS = {value for name, value in vars(vocab).items() if name.isupper() and isinstance(value, str) and "/" in value}


def _string_constants(path: Path) -> set[tuple[str, str]]:
    """(name, value) of each module-level ``NAME = "text"`` of ``path``."""
    out = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            out.update((t.id, node.value.value) for t in node.targets if isinstance(t, ast.Name))
    return out


def test_the_vocabulary_holds_the_keys_the_rules_and_renderers_read():
    assert {vocab.QUEUE_LABEL, vocab.GANG_LABEL, vocab.DEDICATED_KEY, vocab.TEAM_LABEL, vocab.ELASTIC} <= KEYS


def test_no_other_module_defines_a_key_of_the_vocabulary():
    found = {
        (str(path.relative_to(REPO)), name, value)
        for path in sorted((REPO / "gpufleet").rglob("*.py"))
        if path.name != "vocab.py"
        for name, value in _string_constants(path)
        if value in KEYS
    }
    assert found == set()


def test_the_name_patterns_are_kubernetes_own():
    assert vocab.is_dns_label("a" * 63) and not vocab.is_dns_label("a" * 64) and not vocab.is_dns_label("-a")
    assert vocab.is_dns_subdomain("kueue.x-k8s.io") and not vocab.is_dns_subdomain("Kueue.io")
    assert vocab.is_qualified_name(vocab.QUEUE_LABEL) and not vocab.is_qualified_name("a/b/c")
    assert vocab.is_label_value("") and vocab.is_label_value("A_b.c") and not vocab.is_label_value("-a")
