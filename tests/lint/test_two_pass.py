"""The two-pass linter gives the one-pass linter's report, finding for finding and line for line.

``lint_sources`` reads each file once, keeps its objects (the run) but not its text, then
checks object by object and reads a file's text again only to place its findings. The
reference here is the linter as it was: every text kept, every object loaded, then every
object checked and placed. Compared on the upstream examples, the rule fixtures and a
generated corpus of renamed copies (written by PyYAML's dumper, so with quoted scalars over
several lines), and on a file that changes between the passes.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import yaml

from gpufleet.lint.loader import load
from gpufleet.lint.namespaces import with_namespace
from gpufleet.lint.runner import Located, lint_sources, place, problem_finding
from gpufleet.lint.sources import collect, stream
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext

FIXTURES = Path(__file__).resolve().parent.parent / "rules" / "fixtures"


def one_pass(paths: list[str]) -> list[tuple]:
    """The reference: all texts and objects held, then checked and placed."""
    loaded, found = [], []
    for source in collect(paths):
        result = load(source)
        loaded.extend(replace(item, obj=with_namespace(item.obj, "default")) for item in result.objects)
        found.extend(Located(problem_finding(p)) for p in result.problems)
    ctx = CheckContext(objects=tuple(item.obj for item in loaded))
    for item in loaded:
        found.extend(Located(place(f, item), item.template) for f in engine.check_object(item.obj, ctx))
    return sorted(rows(found))


def rows(results: list[Located]) -> list[tuple]:
    return [
        (r.finding.file, r.finding.line, r.finding.code, str(r.finding.path), r.finding.message, r.template)
        for r in results
    ]


def two_pass(paths: list[str]) -> list[tuple]:
    return sorted(rows(lint_sources(stream(paths)).results))


def renamed_copies(upstream_dir: Path, root: Path, copies: int) -> None:
    """Copies of every upstream file, each object renamed per copy, dumped by PyYAML."""
    for source in collect([str(upstream_dir)]):
        try:
            docs = [d for d in yaml.safe_load_all(source.text or "") if isinstance(d, dict) and d.get("kind")]
        except yaml.YAMLError:
            continue
        for i in range(copies):
            for doc in docs:
                meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else None
                if meta and meta.get("name"):
                    meta["name"] = f"{str(meta['name']).rsplit('-c', 1)[0]}-c{i}"
            target = root / f"c{i}" / Path(source.name).relative_to(upstream_dir)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(yaml.safe_dump_all(docs, sort_keys=False))


def test_the_two_passes_give_the_one_pass_report_on_the_upstream_examples(upstream_dir):
    expected = one_pass([str(upstream_dir)])
    assert len(expected) > 100
    assert two_pass([str(upstream_dir)]) == expected


def test_the_two_passes_give_the_one_pass_report_on_the_rule_fixtures():
    expected = one_pass([str(FIXTURES)])
    assert len(expected) > 50
    assert two_pass([str(FIXTURES)]) == expected


def test_the_two_passes_give_the_one_pass_report_on_a_generated_corpus(upstream_dir, tmp_path):
    renamed_copies(upstream_dir, tmp_path, 3)
    expected = one_pass([str(tmp_path)])
    assert len(expected) > 300
    assert two_pass([str(tmp_path)]) == expected


def test_a_file_changed_between_the_passes_places_its_findings_at_their_objects(tmp_path):
    job = (FIXTURES / "GANG301" / "disallowed.yaml").read_text()
    path = tmp_path / "job.yaml"
    path.write_text(job)
    expected = one_pass([str(path)])

    def sources():
        yield from stream([str(path)])
        path.write_text("# rewritten\n" + job)  # after the first pass, before any finding is placed

    report = lint_sources(sources())
    starts = {item.line for item in load(collect([str(tmp_path / "job.yaml")])[0]).objects}
    assert sorted(r.finding.code for r in report.results) == sorted(row[2] for row in expected)
    assert {r.finding.line for r in report.results} <= {line - 1 for line in starts}  # the first lines of the text read
