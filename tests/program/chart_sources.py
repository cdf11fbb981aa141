"""Read a Helm chart's templates without Helm: which objects it makes, which are hooks, what its workloads mount.

A small line-level reading of ``templates/*.yaml`` with the chart's ``values.yaml``
(plus overrides): ``{{ if }}``/``{{ else }}``/``{{ end }}`` blocks whose condition is
a plain ``.Values`` path (optionally ``not``) are kept or dropped by the values; any
other condition, ``with`` and ``range`` blocks are kept (so the reading errs towards
more mounts, never fewer). Names resolve ``.Release.Name``, ``.Release.Namespace``,
``.Values.<path>`` and ``include "<chart>.fullname" .`` (the release name when it
contains the chart name, as Helm's helper does). Documents are split on ``---``.
Used by ``tests/program/test_chart_mounts.py``; the real chart sources live in
``../shared/charts`` (see SOURCE.md there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ACTION = re.compile(r"{{-?\s*(if|else if|else|end|with|range|define)\b\s*(.*?)\s*-?}}")
VALUE_PATH = re.compile(r"^(not\s+)?\.Values\.([A-Za-z0-9_.]+)$")
REGEX_MATCH = re.compile(r'^\.Values\.([A-Za-z0-9_.]+)\s*\|\s*regexMatch\s+"([^"]*)"$')
WORKLOAD_KINDS = {"Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "Pod"}


@dataclass
class Document:
    file: str
    kind: str | None
    name: str | None
    hook: bool
    text: str
    mounts: list[tuple[str, str, bool]] = field(default_factory=list)
    """(Secret|ConfigMap, name, optional) for each volume or env source of a workload."""


@dataclass
class Chart:
    name: str
    release: str
    namespace: str
    values: dict[str, Any]

    def value(self, path: str) -> Any:
        node: Any = self.values
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node

    def fullname(self) -> str:
        return self.release if self.name in self.release else f"{self.release}-{self.name}"

    def resolve(self, text: str) -> str:
        text = re.sub(r"{{-?\s*\.Release\.Name\s*-?}}", self.release, text)
        text = re.sub(r"{{-?\s*\.Release\.Namespace\s*-?}}", self.namespace, text)
        text = re.sub(r'{{-?\s*include\s+"[a-z-]+\.fullname"\s+\.\s*-?}}', self.fullname(), text)
        return re.sub(r"{{-?\s*\.Values\.([A-Za-z0-9_.]+)\s*-?}}", lambda m: str(self.value(m.group(1))), text)


def _words(expr: str) -> list[str]:
    """The arguments of a template call, split on spaces outside parentheses and quotes."""
    words, depth, quoted, current = [], 0, False, ""
    for char in expr:
        quoted = not quoted if char == '"' else quoted
        depth += 0 if quoted else (char == "(") - (char == ")")
        if char.isspace() and depth == 0 and not quoted:
            words, current = words + [current] if current else words, ""
        else:
            current += char
    return words + [current] if current else words


def _condition(chart: Chart, expr: str) -> bool | None:
    """An ``if`` condition over values: a path, ``not``, ``and`` of conditions, ``<path> | regexMatch "re"``; None = unknown."""
    expr = expr.strip()
    while expr.startswith("(") and expr.endswith(")") and len(_words(expr)) == 1:
        expr = expr[1:-1].strip()
    match = VALUE_PATH.match(expr)
    if match:
        value = bool(chart.value(match.group(2)))
        return not value if match.group(1) else value
    regex = REGEX_MATCH.match(expr)
    if regex:  # sprig's regexMatch REGEX STRING, the piped value last
        return re.search(regex.group(2), str(chart.value(regex.group(1)) or "")) is not None
    words = _words(expr)
    if len(words) > 2 and words[0] == "and":
        parts = [_condition(chart, word) for word in words[1:]]
        return False if False in parts else (True if all(parts) else None)
    return None


def _keep_lines(chart: Chart, text: str) -> list[str]:
    """The template's lines outside dropped ``if`` branches (and outside ``define`` blocks)."""
    stack: list[list] = []  # [active, decided, kind]
    kept = []
    for line in text.splitlines():
        actions = ACTION.findall(line)
        for action, expr in actions:
            if action in ("if", "with", "range", "define"):
                cond = False if action == "define" else (_condition(chart, expr) if action == "if" else None)
                stack.append([cond is not False, cond is not None, action])
            elif action in ("else", "else if") and stack:
                top = stack[-1]
                top[0] = (not top[0]) if top[1] and action == "else" else True
            elif action == "end" and stack:
                stack.pop()
        if all(frame[0] for frame in stack) and not (actions and line.strip().startswith("{{")):
            kept.append(line)
    return kept


def _mounts(text: str) -> list[tuple[str, str, bool]]:
    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        stripped = line.strip()
        kind = (
            "Secret"
            if stripped in ("secret:", "secretRef:", "secretKeyRef:")
            else "ConfigMap"
            if stripped in ("configMap:", "configMapRef:", "configMapKeyRef:")
            else None
        )
        if kind is None:
            continue
        indent = len(line) - len(line.lstrip())
        block = []
        for nxt in lines[i + 1 :]:
            if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent:
                break
            block.append(nxt.strip())
        key = "secretName:" if stripped == "secret:" else "name:"
        name = next((b.split(":", 1)[1].strip().strip("'\"") for b in block if b.startswith(key)), None)
        optional = any(b.replace(" ", "") == "optional:true" for b in block)
        if name:
            out.append((kind, name, optional))
    return out


def read_chart(
    directory: Path, release: str, namespace: str, overrides: dict[str, Any] | None = None
) -> list[Document]:
    values = yaml.safe_load((directory / "values.yaml").read_text(encoding="utf-8")) or {}
    _merge(values, overrides or {})
    chart = Chart(
        yaml.safe_load((directory / "Chart.yaml").read_text(encoding="utf-8"))["name"], release, namespace, values
    )
    docs = []
    for path in sorted((directory / "templates").rglob("*.yaml")):
        kept = "\n".join(_keep_lines(chart, path.read_text(encoding="utf-8")))
        for raw in re.split(r"^---\s*$", kept, flags=re.M):
            text = chart.resolve(raw)
            kind = re.search(r"^kind:\s*(\S+)", text, re.M)
            name = re.search(r"^metadata:\s*\n(?:[ \t]+.*\n)*?[ \t]+name:\s*(\S+)", text + "\n", re.M)
            if not kind:
                continue
            doc = Document(
                str(path.relative_to(directory)),
                kind.group(1),
                name.group(1).strip("'\"") if name else None,
                "helm.sh/hook" in text,
                text,
            )
            if doc.kind in WORKLOAD_KINDS:
                doc.mounts = _mounts(text)
            docs.append(doc)
    return docs


def _merge(into: dict[str, Any], extra: dict[str, Any]) -> None:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value
