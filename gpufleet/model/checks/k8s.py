"""Kubernetes syntax rules the engines' webhooks apply: qualified names, label values, resource names.

The same regular expressions as ``k8s.io/apimachinery/pkg/util/validation``. Used by
the pool, topology and quota checks of :mod:`gpufleet.model.checks`; each function
returns the list of problems (empty when the text is valid) so callers can report
each one at its own path.
"""

from __future__ import annotations

import re

from gpufleet.kubetypes.vocab import DNS_SUBDOMAIN_RE, NAME_PART_RE

_NAME = re.compile(rf"^{NAME_PART_RE}$")
_SUBDOMAIN = re.compile(rf"^{DNS_SUBDOMAIN_RE}$")


def qualified_name_problems(text: str) -> list[str]:
    """Problems with a qualified name (``[prefix/]name``): label keys, taint keys, resource names."""
    if not text:
        return ["is empty; a qualified name ([prefix/]name) is required"]
    parts = text.split("/")
    if len(parts) > 2:
        return [f"{text!r} has more than one '/'; a qualified name is [prefix/]name"]
    problems = []
    if len(parts) == 2:
        prefix, name = parts
        if not prefix:
            problems.append(f"{text!r} has an empty prefix before '/'")
        elif len(prefix) > 253 or not _SUBDOMAIN.match(prefix):
            problems.append(f"prefix {prefix!r} of {text!r} is not a DNS subdomain (lowercase, at most 253 characters)")
    else:
        name = parts[0]
    if not name:
        problems.append(f"{text!r} has an empty name part")
    elif len(name) > 63:
        problems.append(f"name part {name!r} of {text!r} is longer than 63 characters")
    elif not _NAME.match(name):
        problems.append(
            f"name part {name!r} of {text!r} must start and end alphanumeric and contain only letters, digits, '-', '_' and '.'"
        )
    return problems


def label_value_problems(text: str) -> list[str]:
    """Problems with a label value (also taint and toleration values): empty or ≤63 name characters."""
    if text == "":
        return []
    if len(text) > 63:
        return [f"value {text!r} is longer than 63 characters"]
    if not _NAME.match(text):
        return [f"value {text!r} must start and end alphanumeric and contain only letters, digits, '-', '_' and '.'"]
    return []


QUALIFIED_NAME_FIX = "use a qualified name: an optional DNS-subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.' (example: gpufleet.dev/pool)"
LABEL_VALUE_FIX = (
    "use at most 63 letters, digits, '-', '_' or '.', starting and ending alphanumeric (or an empty value)"
)
