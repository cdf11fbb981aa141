"""GANG000 invalid-manifest: a file or document the linter cannot read as Kubernetes objects.

Emitted by the linter (``gpufleet.lint``) itself, never by a check on an object: this
module only registers the code so that ``gpufleet rules``, ``gpufleet explain``,
``--select``/``--ignore`` and SARIF output know it.

What it checks

Every input of `gpufleet lint`:

- a file that cannot be read (missing, a permission error, not UTF-8);
- malformed YAML or JSON, reported at the file and line of the parser's error mark;
- a document that is not a Kubernetes object: not a mapping, or without `apiVersion`
  and `kind` (also each entry of a `List`'s `items`).

Empty documents (a bare `---`) are skipped, and so is a whole file in which no document
looks like Kubernetes (none has `apiVersion`, `kind` or `metadata`: Helm values, CI
workflows, a fleet-context.json); the text summary counts those files. A stray
non-object next to real manifests, or a manifest that lost its `apiVersion` or `kind`,
is still reported.

Why it is unsafe

A manifest the linter cannot read is a manifest none of the gang-safety rules checked.
Passing silently would let CI report "no findings" for a file that `kubectl apply` will
reject, or, worse, for a half-read multi-document file whose later documents were never
looked at.

Example

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  tasks:
  - name: worker
   replicas: 4      # bad indentation
```

Preferred form

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  tasks:
  - name: worker
    replicas: 4
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.workloads import outcomes as O


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    """No-op: GANG000 findings come from the linter's loader, not from objects."""
    return iter(())


RULE = Rule(
    code="GANG000",
    name="invalid-manifest",
    family="input",
    severity=Severity.ERROR,
    summary="A file or document cannot be read as Kubernetes objects (unreadable, malformed YAML, no apiVersion/kind).",
    fix="fix the YAML at the reported line, or give the document an apiVersion and kind",
    kinds=(),
    check=check,
    doc=__doc__ or "",
    predicts=frozenset({O.REFUSED}),  # the API server refuses what cannot be read as an object
)
