"""Kubernetes label selectors evaluated in Python, as ``metav1.LabelSelectorAsSelector`` does.

``matchLabels`` and every ``matchExpressions`` requirement must hold (In, NotIn,
Exists, DoesNotExist; NotIn and DoesNotExist hold when the key is absent); an empty
selector ``{}`` matches everything. Used by :mod:`gpufleet.workloads.kueue_gate` to
decide which namespaces Kueue's webhooks see.
"""

from __future__ import annotations

from typing import Any, Mapping


def _requirement(expr: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key, op, values = expr["key"], expr["operator"], set(expr.get("values") or ())
    if op == "In":
        return key in labels and labels[key] in values
    if op == "NotIn":
        return key not in labels or labels[key] not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    raise ValueError(f"unknown label selector operator {op!r}")


def matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Whether ``labels`` satisfy the LabelSelector ``selector``."""
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    return all(_requirement(expr, labels) for expr in selector.get("matchExpressions") or ())
