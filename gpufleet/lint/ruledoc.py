"""Rule documentation as Markdown: for ``gpufleet explain``, SARIF help and docs/rules.md.

Called by the CLI, :mod:`gpufleet.lint.sarif` and ``scripts/gen_rules_doc.py``. A
rule's ``doc`` is its module docstring: a title line, a line saying who calls the
module, then the sections ``What it checks``, ``Why it is unsafe``, ``Example`` and
``Preferred form`` (a title alone on its line, Markdown below). :func:`sections`
splits it; :func:`rule_markdown` renders one rule; :func:`rules_markdown` the whole
reference, so docs/rules.md is generated from the registry, never hand-edited.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
from typing import Callable, Iterable, Mapping, cast

from gpufleet.kubetypes.admission_kinds import REVIEWED_KINDS
from gpufleet.kubetypes.vocab import WAIVER_PREFIX
from gpufleet.rules.api import OPTIONS_CONFIG, Rule

SECTIONS = ("What it checks", "Why it is unsafe", "Example", "Preferred form")


def sections(doc: str) -> dict[str, str]:
    """``{section title: Markdown body}`` for the sections present in ``doc``."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in doc.splitlines():
        if line.strip() in SECTIONS:
            current = found.setdefault(line.strip(), [])
        elif current is not None:
            current.append(line)
    return {title: "\n".join(body).strip() for title, body in found.items()}


def anchor(rule: Rule) -> str:
    """The GitHub anchor of the rule's heading (``## GANG301 liveness-or-readiness-probe``)."""
    return f"{rule.code}-{rule.name}".lower()


def rule_markdown(rule: Rule, level: int = 2, agreement: str | None = None) -> str:
    """One rule; ``agreement`` is its line of the differential tier's record (docs/rules.md only)."""
    head = "#" * level
    facts = f"family **{rule.family}** · severity **{rule.severity.value}**"
    if rule.needs_fleet:
        facts += " · needs a fleet context (`--fleet`)"
    parts = [
        f"{head} {rule.code} {rule.name}",
        "",
        facts,
        "",
        rule.summary,
        "",
        f"**Fix:** {rule.fix}",
        *_api_server_section(rule),
    ]
    if agreement is not None:
        parts += ["", f"**Engines agree:** {agreement}"]
    for title, body in sections(rule.doc).items():
        parts += ["", f"{head}# {title}", "", body]
    if rule.options is not None:
        parts += ["", f"{head}# Options", "", options_table(rule.options, rule.code)]
    return "\n".join(parts).rstrip() + "\n"


def _attribute_docs(model: type) -> dict[str, str]:
    """Each field's docstring (the string right below it), from the class and its bases."""
    docs: dict[str, str] = {}
    for klass in reversed(model.__mro__[:-1]):
        try:
            body = ast.parse(inspect.getsource(klass).lstrip()).body[0].body  # type: ignore[attr-defined]  # the first statement of a class's source is its ClassDef
        except (OSError, TypeError, IndexError, AttributeError):
            continue
        for node, after in zip(body, body[1:]):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                docs[node.target.id] = " ".join(after.value.value.split())
    return docs


_TYPES = {
    "int": "integer",
    "int | None": "integer or null",
    "tuple[str, ...]": "list of strings",
    "bool": "boolean",
    "str": "string",
}


def options_table(model: type, code: str) -> str:
    """A rule's options as a Markdown table (key, type, default, meaning), from its options class."""
    rename = cast(Callable[[str], str], OPTIONS_CONFIG["alias_generator"])
    docs = _attribute_docs(model)
    rows = ["| option | type | default | meaning |", "|---|---|---|---|"]
    for f in dataclasses.fields(model):
        default = list(f.default) if isinstance(f.default, tuple) else f.default
        rows.append(
            f"| `{rename(f.name)}` | {_TYPES.get(str(f.type), f'`{f.type}`')} | `{json.dumps(default)}` | {docs.get(f.name, '')} |"
        )
    example = rename(dataclasses.fields(model)[0].name)
    return (
        "\n".join(rows)
        + f"\n\nSet in the linter's `--config` (`options: {{{code}: {{{example}: ...}}}}`) or the {code} policies' config; "
        "an unknown option or a wrong type is an error."
    )


def enforced_by(rule: Rule) -> list[str]:
    """The points that enforce ``rule``: the policy pack, the linter, the webhook (when it is sent a kind the rule
    reads) and the API server (when the rule has a CEL form)."""
    points = ["policy pack", "lint"]
    if rule.any_kind or any(tuple(kind) in REVIEWED_KINDS for kind in rule.kinds):
        points.append("webhook")
    if rule.cel is not None:
        points.append("API server")
    return points


def _api_server_section(rule: Rule) -> list[str]:
    if rule.cel is None:
        return []
    kinds = ", ".join(sorted({f"{kind} ({group or 'core'})" for group, _, _, kind in rule.cel.resources}))
    text = f"Also enforced inside the API server (a ValidatingAdmissionPolicy) for: {kinds}."
    return ["", text + (f" Left to the webhook: {rule.cel.note}." if rule.cel.note else "")]


def rules_markdown(rules: Iterable[Rule], agreement: Mapping[str, str] | None = None, agreement_note: str = "") -> str:
    """The whole reference. ``agreement``: each rule's agreement with the real engines in words, and
    ``agreement_note`` the run it comes from (``gpufleet.difftier.tally.doc_lines`` of the bench's record)."""
    rules = list(rules)
    agree = dict(agreement or {})
    lines = [
        "# gpufleet rules",
        "",
        "<!-- Generated by scripts/gen_rules_doc.py from the rule registry; do not edit by hand. -->",
        "",
        "Every rule is one module `gpufleet/rules/<family>/gangNNN_<name>.py`; the linter, the Pulumi policy pack and",
        "the admission webhook run the same checks. Waive a finding with the annotation",
        f"`{WAIVER_PREFIX}<CODE>: \"<reason>\"` on the object (a waiver without a reason does not waive).",
        f"Not waivable: {', '.join(r.code for r in rules if not r.waivable) or 'none'} (the annotation is reported, not applied).",
        "",
        "Enforced by: every rule runs in the linter (`lint`) and the Pulumi policy pack (`policy pack`); the admission",
        "webhook (`webhook`) runs those reading a kind the API server sends it; `API server` marks a rule with a CEL form,",
        "rendered as a ValidatingAdmissionPolicy where the stack says `controller.enforcement: apiServer` or `both`",
        "(docs/webhook.md), for the kinds its section names.",
        "",
        "| code | name | family | severity | enforced by | summary |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| [{r.code}](#{anchor(r)}) | {r.name} | {r.family} | {r.severity.value} | {', '.join(enforced_by(r))} "
        f"| {r.summary} |"
        for r in rules
    ]
    if agreement_note:
        lines += ["", "## Agreement with the real engines", "", agreement_note]
    return "\n".join(lines) + "\n\n" + "\n".join(rule_markdown(r, agreement=agree.get(r.code)) for r in rules)
