"""Turn one input's text into Kubernetes objects with their file and line.

Called by :mod:`gpufleet.lint.runner`. Reads multi-document YAML (and JSON, which
YAML reads too), unpacks ``List`` objects (``kind: List`` or ``*List`` with
``items``) into their items with a path prefix (``items[2]``), and remembers the
``# Source: chart/templates/x.yaml`` comment ``helm template`` writes above each
document. Texts go through yaml-rs when :mod:`gpufleet.lint.fastyaml` says it reads
them as PyYAML would (then each object keeps a :class:`~gpufleet.lint.locate.TextDoc`
instead of a node); everything else, including every text with an error or a ``List``,
takes the PyYAML path with nodes. The limits of :mod:`gpufleet.yamlin.yamllimits` (depth, numbers,
aliases) apply before either parser sees the text. Anything that is not an object becomes a GANG000 :class:`Problem`: a
parser error at its line (documents before it are kept), a document that is not a
mapping or lacks ``apiVersion``/``kind``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

import yaml

from gpufleet.kubetypes.fieldpath import ROOT, FieldPath
from gpufleet.lint import fastyaml
from gpufleet.lint.locate import TextDoc
from gpufleet.lint.sources import Source
from gpufleet.yamlin import syntax, yamllimits

_ITEMS = ROOT.child("items")

_Loader = yamllimits.Loader  # libyaml with bounded numbers
_HELM_SOURCE = re.compile(r"^# Source: (\S.*?)\s*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Loaded:
    """One object of an input: where it starts, its path prefix inside a List, its YAML node (or TextDoc)."""

    obj: Mapping[str, Any]
    file: str
    line: int
    prefix: FieldPath = ROOT
    node: Any = field(default=None, compare=False, repr=False)
    template: str | None = None  # helm template the document came from


@dataclass(frozen=True)
class Problem:
    """Why (part of) an input could not be read as objects; reported as GANG000."""

    file: str
    line: int | None
    message: str
    fix: str
    path: FieldPath = ROOT
    obj: Mapping[str, Any] | None = None


@dataclass
class Result:
    objects: list[Loaded] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    skipped: bool = False  # readable YAML with nothing Kubernetes-like in it (values files, CI workflows)


def looks_like_kubernetes(value: Any) -> bool:
    """A mapping with apiVersion, kind or metadata: meant as a Kubernetes object, even if broken."""
    return (type(value) is dict or isinstance(value, Mapping)) and any(
        key in value for key in ("apiVersion", "kind", "metadata")
    )


def _helm_sources(text: str) -> list[tuple[int, str]]:
    if "# Source: " not in text:
        return []
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in _HELM_SOURCE.finditer(text)]


def _documents(text: str) -> Iterator[tuple[Any, Any]]:
    """(value, node) per document; raises yaml.YAMLError where parsing fails."""
    loader = _Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is not None:
                yield loader.construct_document(node), node
    finally:
        loader.dispose()


def _yaml_problem(source: Source, exc: yaml.YAMLError) -> Problem:
    found = syntax.explain(exc, source.text or "")
    return Problem(
        source.name,
        found.at[0] if found.at else None,
        f"malformed YAML: {found.problem}; the rest of the file was not checked",
        found.fix,
    )


def _not_object(value: Any) -> str | None:
    if type(value) is not dict and not isinstance(value, Mapping):  # the dict test first: ABC checks are slow
        return f"the document is a {type(value).__name__}, not a Kubernetes object"
    missing = [k for k in ("apiVersion", "kind") if not value.get(k)]
    return f"the document has no {' and no '.join(missing)}, so it is not a Kubernetes object" if missing else None


def is_list(value: Mapping[str, Any]) -> bool:
    return str(value.get("kind", "")).endswith("List") and isinstance(value.get("items"), list)


def _items_node(node: Any) -> list[Any]:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if getattr(key, "value", None) == "items" and isinstance(value, yaml.SequenceNode):
                return list(value.value)
    return []


def _add(result: Result, source: Source, value: Any, node: Any, line: int, template: str | None) -> None:
    why = _not_object(value)
    if why is not None:
        result.problems.append(
            Problem(source.name, line, why, "give the document an apiVersion and kind, or remove it")
        )
        return
    if not is_list(value):
        result.objects.append(Loaded(value, source.name, line, ROOT, node, template))
        return
    nodes = _items_node(node)
    for i, item in enumerate(value["items"]):
        item_node = nodes[i] if i < len(nodes) else None
        item_line = item_node.start_mark.line + 1 if item_node is not None else line
        why = _not_object(item)
        if why is not None:
            result.problems.append(
                Problem(
                    source.name,
                    item_line,
                    f"items[{i}]: {why}",
                    "give the item an apiVersion and kind",
                    _ITEMS.index(i),
                    value,
                )
            )
        else:
            result.objects.append(Loaded(item, source.name, item_line, _ITEMS.index(i), item_node, template))


def load(source: Source) -> Result:
    """Every object of ``source`` and every GANG000 problem, in document order."""
    result = Result()
    if source.text is None:
        result.problems.append(
            Problem(source.name, None, f"the file {source.error}", "check the path and its permissions")
        )
        return result
    helm = _helm_sources(source.text)
    try:
        proven = yamllimits.check_text(source.text)  # before any parser sees the text
    except yamllimits.LimitError as exc:
        result.problems.append(_yaml_problem(source, exc))
        return result
    documents = _fast(source.text, helm)
    if documents is None:
        documents = []
        try:
            _slow(source.text, helm, documents)
        except yaml.YAMLError as exc:
            if source.is_json and not documents:
                return _load_json(source, result)
            result.problems.append(_yaml_problem(source, exc))
    if not proven:
        documents = _within_limits(source, documents, result)
    if documents and not result.problems and not any(looks_like_kubernetes(d[0]) for d in documents):
        result.skipped = True
        return result
    for value, node, line, template in documents:
        _add(result, source, value, node, line, template)
    return result


Documents = list[tuple[Any, Any, int, "str | None"]]


def _within_limits(source: Source, documents: Documents, result: Result) -> Documents:
    """The documents up to the first one too deep or alias-expanded too far (that one is a GANG000 problem)."""
    for i, (value, _node, line, _template) in enumerate(documents):
        try:
            yamllimits.check_value(value)
        except yamllimits.LimitError as exc:
            what, _, fix = (exc.problem or "").partition("; ")
            result.problems.append(
                Problem(
                    source.name, line, f"{what}; the rest of the file was not checked", fix or "simplify the document"
                )
            )
            return documents[:i]
    return documents


def _template(helm: list[tuple[int, str]], previous: int, line: int) -> str | None:
    return next((name for at, name in reversed(helm) if previous < at < line), None) if helm else None


def _fast(text: str, helm: list[tuple[int, str]]) -> Documents | None:
    """(value, TextDoc, line, template) per document via yaml-rs, or None for the PyYAML path."""
    read = fastyaml.documents(text)
    if read is None or any(is_list(v) for v, *_ in read if type(v) is dict or isinstance(v, Mapping)):
        return None
    documents: Documents = []
    previous = 0
    for value, line, first, body, plain in read:
        documents.append((value, TextDoc(body, first, line - 1, plain), line, _template(helm, previous, line)))
        previous = line
    return documents


def _slow(text: str, helm: list[tuple[int, str]], documents: Documents) -> None:
    """Fill ``documents`` with PyYAML (nodes kept); raises yaml.YAMLError where parsing fails."""
    previous = 0
    for value, node in _documents(text):
        line = node.start_mark.line + 1
        template = _template(helm, previous, line)
        previous = line
        if value is not None:
            documents.append((value, node, line, template))


def _load_json(source: Source, result: Result) -> Result:
    """JSON that YAML cannot read (tabs, for instance): parse it as JSON, lines from the JSON error."""
    try:
        value = json.loads(source.text or "")
    except json.JSONDecodeError as exc:
        result.problems.append(
            Problem(source.name, exc.lineno, f"malformed JSON: {exc.msg}", "fix the JSON at this line")
        )
        return result
    if looks_like_kubernetes(value):
        _add(result, source, value, None, 1, None)
    else:
        result.skipped = True
    return result
