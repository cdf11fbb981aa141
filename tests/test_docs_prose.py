"""The user docs' prose (README.md, docs/**/*.md; CHANGELOG.md holds the history): nothing a reader trips on.

Beside tests/test_docs_console.py (which runs the docs' commands), this reads their text:

- no paragraph repeated in a doc or across docs (a paragraph pasted twice, one copy edited);
- no paragraph cut off mid-sentence: a prose paragraph (not a heading, list item, table row,
  quote, HTML or fenced block) that ends without closing punctuation before a blank line;
- no internal history a user cannot look up: "issue N", "issues N", "round N", or a term
  defined in no document ("the premise", "the essay");
- no stale version: the sandbox's Kubernetes version is the one ``sandbox/engines/kube/go.mod``
  pins, and a Kueue or Volcano version named as the sandbox's is the one its go.mod builds
  (a different Kubernetes version may be named only in a paragraph that names the pin too: "it was v1.35.4");
- the README's list of ``--format json`` schemas names every file of docs/schemas.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if p.name != "CHANGELOG.md")]
FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[ \t]*$", re.MULTILINE | re.DOTALL)
NOT_PROSE = re.compile(r"^( {4}|\t)|^\s*(#|[-*+] |\d+[.)] |\||>|<|!\[|\[[^\]]*\]:|\*\*[^*]+:\*\* )")
"""First lines that open no prose: an indented code block, a heading, a list item, a table row, a quote, HTML, an image,
a link target, or a generated reference's ``**Field:** value`` line."""
INLINE_CODE = re.compile(r"`[^`]+`")
CLOSED = tuple(".!?:;)]\"'`*_>|") + ("…",)
HISTORY = re.compile(r"\b(issues? \d+|rounds? \d+|the premise|the essay)\b", re.IGNORECASE)


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def paragraphs(path: Path) -> list[tuple[int, str]]:
    """(first line, text) of each paragraph: lines between blank lines; a fenced block's lines count as indented code."""
    text = FENCE.sub(lambda m: "\n".join("    code" for _ in m.group(0).split("\n")), path.read_text(encoding="utf-8"))
    out, start, lines = [], 0, []
    for number, line in enumerate([*text.split("\n"), ""], start=1):
        if line.strip():
            start = start or number
            lines.append(line)
        elif lines:
            out.append((start, "\n".join(lines)))
            start, lines = 0, []
    return out


def prose(paragraph: str) -> bool:
    """A paragraph of sentences: its first line is no heading, list item, table row, quote, HTML or link target."""
    return not NOT_PROSE.match(paragraph.split("\n", 1)[0])


def normal(paragraph: str) -> str:
    return " ".join(paragraph.split())


def cut_off(paragraph: str, following: str | None) -> bool:
    """A prose paragraph whose last line ends mid-sentence (no closing punctuation), unless it leads into the list,
    table or code block that follows it ("… with an error of the form" and the error)."""
    if not prose(paragraph) or normal(paragraph).endswith(CLOSED):
        return False
    return following is None or prose(following) or following.lstrip().startswith("#")


@pytest.mark.parametrize("path", DOCS, ids=rel)
def test_no_paragraph_of_a_doc_is_cut_off_mid_sentence(path):
    found = paragraphs(path)
    after = [p for _, p in found[1:]] + [None]
    cut = [f"{rel(path)}:{line}: …{normal(p)[-70:]}" for (line, p), nxt in zip(found, after) if cut_off(p, nxt)]
    assert cut == [], "paragraphs that end mid-sentence:\n" + "\n".join(cut)


GENERATED = {"docs/rules.md"}
"""Written from the rules' docstrings (scripts/gen_rules_doc.py), where rules of the same kinds share a line."""


def test_no_paragraph_is_repeated_in_a_doc_or_across_docs():
    seen: dict[str, str] = {}
    repeated = []
    for path in DOCS:
        for line, p in paragraphs(path) if rel(path) not in GENERATED else ():
            key = normal(p)
            if not prose(p) or len(key) < 80 or key.endswith(":"):  # a lead-in to a list may recur
                continue
            if key in seen:
                repeated.append(f"{rel(path)}:{line} repeats {seen[key]}: {key[:70]}…")
            seen.setdefault(key, f"{rel(path)}:{line}")
    assert repeated == []


def history(text: str) -> list[str]:
    """The history references and undefined terms of ``text``'s prose (not code: `--rounds 2` is a flag)."""
    return sorted(m.group(0) for m in HISTORY.finditer(INLINE_CODE.sub("", FENCE.sub("", text))))


@pytest.mark.parametrize("path", DOCS, ids=rel)
def test_a_user_doc_names_no_internal_history_or_undefined_term(path):
    found = sorted(set(history(path.read_text(encoding="utf-8"))))
    assert found == [], f"{rel(path)}: {found}: history belongs in CHANGELOG.md; say it in plain words"


def go_mod_pin(engine: str, pattern: str) -> str:
    text = (ROOT / "sandbox" / "engines" / engine / "go.mod").read_text(encoding="utf-8")
    found = re.search(pattern, text, re.MULTILINE)
    assert found, f"sandbox/engines/{engine}/go.mod: no version matching {pattern}"
    return found.group(1)


KUBERNETES = go_mod_pin("kube", r"^\s*k8s\.io/kubernetes v(\d+\.\d+\.\d+)\b")
SANDBOX_BUILDS = {
    name: go_mod_pin(name.lower(), rf"^// Builds {name} v(\d+\.\d+\.\d+)") for name in ("Kueue", "Volcano")
}
KUBE_VERSION = re.compile(r"\bKubernetes v?(1\.\d+\.\d+)\b")
SANDBOX_VERSION = re.compile(r"\bsandbox(?:'s| runs)\s+(Kueue|Volcano) v?(\d+\.\d+\.\d+)\b")


def test_the_pins_are_read_from_the_sandboxs_go_modules():
    assert re.fullmatch(r"1\.\d+\.\d+", KUBERNETES) and all(
        re.fullmatch(r"\d+\.\d+\.\d+", v) for v in SANDBOX_BUILDS.values()
    )


def stale_versions(paragraph: str) -> list[str]:
    """What ``paragraph`` says of the sandbox's versions that its go.mod files do not pin."""
    text = normal(paragraph)
    out = []
    other = sorted(set(KUBE_VERSION.findall(text)) - {KUBERNETES})
    if other and KUBERNETES not in text:  # an older version named beside the pin is history, said as such
        out.append(f"Kubernetes {other}, the sandbox runs {KUBERNETES}")
    for name, version in SANDBOX_VERSION.findall(text):
        if version != SANDBOX_BUILDS[name]:
            out.append(f"the sandbox's {name} {version}, it runs {SANDBOX_BUILDS[name]}")
    return out


@pytest.mark.parametrize("path", DOCS, ids=rel)
def test_the_versions_a_doc_gives_the_sandbox_are_those_its_go_modules_pin(path):
    stale = [f"{rel(path)}:{line}: {s}" for line, p in paragraphs(path) for s in stale_versions(p)]
    assert stale == []


@pytest.mark.parametrize(
    ("text", "stale"),
    [
        ("Run on the engines of that day (Kubernetes v1.0.1, Kueue v0.19.2).", True),
        (f"Kubernetes v1.0.1 then; the sandbox moved to v{KUBERNETES} since.", False),
        (f"The control plane is Kubernetes {KUBERNETES}.", False),
        ("Run against the sandbox's Volcano v0.0.1: 2 passed.", True),
        (f"Run against the sandbox's Kueue v{SANDBOX_BUILDS['Kueue']}: 2 passed.", False),
        ("The product installs Volcano 0.0.1 from its chart.", False),
    ],
)
def test_a_version_the_sandbox_does_not_run_is_stale(text, stale):
    assert bool(stale_versions(text)) == stale


def test_the_readme_names_every_json_schema_of_docs_schemas():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"\(docs/schemas/([\w.-]+\.schema\.json)\)", readme))
    assert listed == {p.name for p in (ROOT / "docs" / "schemas").glob("*.schema.json")}


def doc(tmp_path, text: str) -> Path:
    path = tmp_path / "doc.md"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("The rules with a CEL form can also run inside the API server as policies\n\nNext paragraph.", True),
        ("A paragraph that ends properly.\n\nAnother one.", False),
        ("A lead-in to the block below, with an error of the form\n\n```\nError: protected\n```", False),
        ("A lead-in to the list below that\n\n- tolerates the taint;\n- selects the pool.", False),
        ("| a | b |\n|---|---|\n| 1 | 2 |", False),
        ("# A heading without a stop\n\nText.", False),
        ("- a list item without a stop\n- another", False),
        ("**Fix:** set minMember to every pod", False),
        ("    an indented command --port 8443\n\nText.", False),
        ("A last paragraph cut off in the middle of", True),
    ],
)
def test_a_paragraph_is_cut_off_only_when_its_prose_stops_mid_sentence(tmp_path, text, cut):
    found = paragraphs(doc(tmp_path, text))
    after = [p for _, p in found[1:]] + [None]
    assert any(cut_off(p, nxt) for (_, p), nxt in zip(found, after)) == cut


def test_a_fenced_block_counts_as_code_and_keeps_the_line_numbers(tmp_path):
    found = paragraphs(doc(tmp_path, "Intro:\n\n```yaml\na: 1\n\nb: 2\n```\n\nAfter the block."))
    assert found[0] == (1, "Intro:") and found[-1] == (9, "After the block.")
    assert not any(prose(p) for _, p in found[1:-1])


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Fixed in issue 19, round 4.", ["issue 19", "round 4"]),
        ("As the essay and the premise say.", ["the essay", "the premise"]),
        ("Run `bench/x.py --rounds 2`; five rounds of it.", []),
        ("```\nissue 3\n```\nA tissue 30 cm wide.", []),
    ],
)
def test_history_is_found_in_prose_and_not_in_code(text, found):
    assert history(text) == found
