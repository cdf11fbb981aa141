"""Read CustomResourceDefinitions from YAML files into :class:`CrdVersion` entries.

Called by :meth:`gpufleet.crdschema.CrdSet.load`. A directory is read recursively
(``*.yaml`` and ``*.yml``, multi-document); documents that are not CRDs (the Kueue
manager Configuration, a ConfigMap, empty documents) are skipped. Only *served*
versions become entries, keyed by ``(group, version, kind)``. Unreadable or malformed
input raises :class:`gpufleet.yamlin.errors.ModelError` naming the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import yaml

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.yamlin import syntax, yamlio
from gpufleet.yamlin.errors import Issue, ModelError

Key = tuple[str, str, str]


@dataclass(frozen=True)
class CrdVersion:
    """One served version of one CRD: its schema and how objects of it are scoped."""

    group: str
    version: str
    kind: str
    namespaced: bool
    schema: dict[str, Any]
    source: str

    @property
    def key(self) -> Key:
        return (self.group, self.version, self.kind)

    @property
    def label(self) -> str:
        """How messages name the schema: ``ClusterQueue v1beta2``."""
        return f"{self.kind} {self.version}"


def crd_files(path: Path) -> list[Path]:
    """The YAML files under ``path`` (or ``path`` itself), in a stable order."""
    if not path.exists():
        raise ModelError(str(path), [Issue("", "no such file or directory", "pass a CRD file or a directory of CRDs")])
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml"))


def read_file(path: Path) -> list[CrdVersion]:
    """The served versions of every CRD in one file."""
    try:
        text = path.read_text(encoding="utf-8")
        documents = [doc.value for doc in yamlio.load_documents(text)]
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelError(
            str(path), [Issue("", f"cannot read the file: {exc}", "check the path and its permissions")]
        ) from exc
    except yaml.YAMLError as exc:
        raise ModelError(str(path), [syntax.issue(exc, text)]) from exc
    return from_documents(documents, str(path))


def read_json(path: Path) -> list[CrdVersion]:
    """The served versions of the one CRD a JSON file holds (the bundled schemas' form)."""
    try:
        document = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise ModelError(str(path), [Issue("", f"cannot read the CRD: {exc}", "reinstall gpufleet")]) from exc
    return from_documents([document], str(path))


def from_documents(documents: Iterable[Any], source: str) -> list[CrdVersion]:
    """The served versions of the CRDs among ``documents`` (other documents are skipped).

    A ``List`` (what ``kubectl get crd -o yaml`` prints) counts as its items (docs/crds.md).
    """
    out: list[CrdVersion] = []
    issues: list[Issue] = []
    for index, doc in enumerate(_items(documents)):
        if not _is_crd(doc):
            continue
        try:
            out.extend(_versions(doc, source))
        except (KeyError, TypeError, AttributeError) as exc:
            issues.append(
                Issue(
                    FieldPath.of("documents", index),
                    f"not a well-formed CustomResourceDefinition (missing or bad {exc})",
                    "give spec.group, spec.names.kind, spec.scope and spec.versions[].schema.openAPIV3Schema",
                )
            )
    if issues:
        raise ModelError(source, issues)
    return out


def _items(documents: Iterable[Any]) -> Iterable[Any]:
    for doc in documents:
        if isinstance(doc, dict) and doc.get("kind") == "List" and isinstance(doc.get("items"), list):
            yield from doc["items"]
        else:
            yield doc


def _is_crd(doc: Any) -> bool:
    return (
        isinstance(doc, dict)
        and doc.get("kind") == "CustomResourceDefinition"
        and str(doc.get("apiVersion", "")).startswith("apiextensions.k8s.io/")
    )


def _versions(doc: dict[str, Any], source: str) -> Iterable[CrdVersion]:
    spec = doc["spec"]
    group, kind = spec["group"], spec["names"]["kind"]
    namespaced = spec.get("scope", "Namespaced") != "Cluster"
    shared_schema = (spec.get("validation") or {}).get("openAPIV3Schema")  # apiextensions v1beta1
    for version in spec["versions"]:
        if not version.get("served", True):
            continue
        schema = (version.get("schema") or {}).get("openAPIV3Schema") or shared_schema or {"type": "object"}
        yield CrdVersion(group, version["name"], kind, namespaced, schema, source)
