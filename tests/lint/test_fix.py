"""lint --fix writes what the admission controller's /mutate would add, keeps the rest of the file, never touches a broken one."""

from __future__ import annotations

import difflib
import io
from pathlib import Path

import jsonpatch
import orjson
import pytest
import yaml
from ruamel.yaml import YAML

from gpufleet.lint.fix import FileFix, fix_text, patch_for, unified_diff
from gpufleet.lint.runner import lint_sources
from gpufleet.lint.sources import Source
from gpufleet.rules.api import CheckContext
from gpufleet.settings import fleet_context_from_model
from gpufleet.webhook.handlers import build_registry
from gpufleet.webhook.registry import serve
from gpufleet.webhook.state import State
from tests.mutate.builders import TEAM_NS
from tests.mutate.builders import fleet as mutate_fleet
from tests.mutate.test_placement import context as placement_context
from tests.webhook.reviews import apply, response_of, review

ROOT = Path(__file__).resolve().parents[2]
DEV = fleet_context_from_model(str(ROOT / "stacks" / "dev.fleet.yaml"))  # alpha: Kueue queue alpha, Volcano in alpha-vc
PLACEMENT = placement_context()  # secure: a dedicated pool; robotics: a coscheduling pool
REGISTRY = build_registry()

KUEUE_JOB = """\
# Team alpha's training runs
apiVersion: batch/v1
kind: Job
metadata:
  name: train   # the main run
  namespace: {ns}
# the spec follows
spec:
  parallelism: 2
  completions: 2
  completionMode: Indexed
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: trainer   # rank
          image: "ghcr.io/example/trainer:1"
          args: [--epochs, '3']
          resources:
            limits: {{nvidia.com/gpu: 1}}
"""
CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: alpha}
data:
  epochs: "3"   # untouched
"""
VOLCANO_JOB = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: vc
  namespace: alpha-vc
spec:
  tasks:
  - name: worker
    replicas: 4
    template:
      spec:
        containers:
        - name: w
          image: trainer:1
          resources:
            limits:
              nvidia.com/gpu: 1
# end of the runs
"""
LIST = """\
apiVersion: v1
kind: List
items:
- {job}
""".format(job=orjson.dumps(yaml.safe_load(KUEUE_JOB.format(ns="alpha"))).decode())
UNNAMESPACED = KUEUE_JOB.format(ns="alpha").replace("  namespace: alpha\n", "")
MULTI = "---\n".join([KUEUE_JOB.format(ns="alpha"), CONFIG_MAP, VOLCANO_JOB])

# (fleet, file text, the namespace of `lint --namespace`): each fixed file must lint clean with that fleet
CLEAN_AFTER = {
    "a Kueue job, a ConfigMap and a Volcano job in one file": (DEV, MULTI, "default"),
    "a job without a namespace, applied with -n alpha": (DEV, UNNAMESPACED, "alpha"),
    "a job inside a kind: List": (DEV, LIST, "default"),
}
PLACED = {
    "a job of a team with a dedicated pool": (PLACEMENT, KUEUE_JOB.format(ns="secure"), "default"),
    "a job of a team with a coscheduling pool": (PLACEMENT, KUEUE_JOB.format(ns="robotics"), "default"),
}
CASES = {**CLEAN_AFTER, **PLACED}


def webhook_mutate(obj: dict, fleet, namespace: str) -> dict:
    """The object as the webhook's /mutate leaves it, in this process: AdmissionReview in, JSON Patch out, applied."""
    state = State()
    state.use_fleet(fleet)
    state.tls_loaded = True
    namespace = obj.get("metadata", {}).get("namespace") or namespace
    reply = serve(REGISTRY, state, "/mutate", orjson.dumps(review(obj, namespace=namespace)))
    return apply(obj, response_of(orjson.loads(reply.body)))


def objects(text: str) -> list[dict]:
    return [doc for doc in yaml.safe_load_all(text) if doc is not None]


@pytest.mark.parametrize("fleet, text, namespace", CASES.values(), ids=CASES.keys())
def test_every_fixed_object_is_the_webhooks_mutation_of_the_original(fleet, text, namespace):
    fixed = fix_text("jobs.yaml", text, fleet, namespace)
    assert fixed.error is None and fixed.changed
    expected = []
    for obj in objects(text):
        if obj["kind"] == "List":
            obj = {**obj, "items": [webhook_mutate(item, fleet, namespace) for item in obj["items"]]}
        else:
            obj = webhook_mutate(obj, fleet, namespace)
        expected.append(obj)
    assert objects(fixed.after) == expected


@pytest.mark.parametrize("fleet, text, namespace", CLEAN_AFTER.values(), ids=CLEAN_AFTER.keys())
def test_the_fixed_file_lints_clean(fleet, text, namespace):
    ctx = CheckContext(fleet=fleet)
    before = lint_sources([Source("jobs.yaml", text)], ctx, namespace=namespace)
    after = lint_sources(
        [Source("jobs.yaml", fix_text("jobs.yaml", text, fleet, namespace).after)], ctx, namespace=namespace
    )
    assert before.findings, "the fixture needs something to fix"
    assert after.findings == []


@pytest.mark.parametrize("fleet, text, namespace", CASES.values(), ids=CASES.keys())
def test_fixing_a_fixed_file_changes_nothing(fleet, text, namespace):
    once = fix_text("jobs.yaml", text, fleet, namespace).after
    assert not fix_text("jobs.yaml", once, fleet, namespace).changed


def comment_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "#" in line]


def test_comments_quotes_flow_style_and_key_order_are_kept():
    fixed = fix_text("jobs.yaml", MULTI, DEV, "default").after
    assert comment_lines(fixed) == comment_lines(MULTI)
    for line in (
        '          image: "ghcr.io/example/trainer:1"',
        "          args: [--epochs, '3']",
        "            limits: {nvidia.com/gpu: 1}",
        "# the spec follows\nspec:\n",
    ):
        assert line in fixed
    assert list(objects(fixed)[0]) == list(objects(MULTI)[0])
    assert fixed.index("  namespace: alpha\n  labels:\n") < fixed.index("# the spec follows")


def test_a_document_nothing_changes_is_kept_byte_for_byte():
    assert "---\n" + CONFIG_MAP + "---\n" in fix_text("jobs.yaml", MULTI, DEV, "default").after


def relaid(text: str, mapping: int, sequence: int, offset: int) -> str:
    """``text`` printed by ruamel.yaml with another indentation (the fixture of a differently indented file)."""
    yaml = YAML()
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    out = io.StringIO()
    yaml.dump(yaml.load(text), out)
    return out.getvalue()


VOLCANO_WIDE = relaid(VOLCANO_JOB.split("# end")[0], mapping=4, sequence=8, offset=4)  # "        -   name: worker"


@pytest.mark.parametrize(
    "text, added",
    [
        (
            VOLCANO_JOB,
            "\n  queue: alpha\n  schedulerName: volcano\n  minAvailable: 4\n  policies:\n  - event: PodEvicted\n",
        ),
        (
            VOLCANO_WIDE,
            "\n    queue: alpha\n    schedulerName: volcano\n    minAvailable: 4\n    policies:\n        -   event: PodEvicted\n",
        ),
    ],
    ids=["two spaces, list items not indented", "four spaces, list items indented"],
)
def test_the_files_indentation_is_kept(text, added):
    fixed = fix_text("vc.yaml", text, DEV, "default").after
    assert added in fixed
    assert removed_lines(text, fixed) == []


def removed_lines(before: str, after: str) -> list[str]:
    """The lines of ``before`` that ``after`` does not keep, as written and in order (a fix only adds lines)."""
    return [line for line in difflib.ndiff(before.splitlines(), after.splitlines()) if line.startswith("- ")]


def test_a_pod_templates_metadata_is_added_before_its_spec_as_kubernetes_orders_it():
    fixed = fix_text("vc.yaml", VOLCANO_JOB, DEV, "default").after
    assert "    template:\n      metadata:\n        labels:\n          gpufleet.dev/gang: vc\n      spec:\n" in fixed


def test_windows_line_ends_stay_windows_line_ends():
    text = VOLCANO_JOB.replace("\n", "\r\n")
    fixed = fix_text("vc.yaml", text, DEV, "default").after
    assert "queue: alpha\r\n" in fixed and "\n" not in fixed.replace("\r\n", "")


@pytest.mark.parametrize(
    "text, why",
    [
        (KUEUE_JOB.format(ns="alpha") + "---\nspec: [\n", "line 24: cannot parse it as YAML"),
        (
            KUEUE_JOB.format(ns="alpha").replace("  completions: 2\n", "  completions: 2\n  parallelism: 4\n"),
            "line 11: cannot parse it as YAML (found duplicate key \"parallelism\"",
        ),
        ("--- {a: 1}\n", "a document starts on its marker line"),
        ("a: " + "[" * 20000 + "]" * 20000 + "\n", "cannot parse it as YAML ([ and { nest 20000 deep"),
    ],
    ids=["a broken second document", "a duplicate key", "a document on the marker line", "nesting beyond the limits"],
)
def test_a_file_that_cannot_be_parsed_is_left_untouched_with_the_reason(text, why):
    fixed = fix_text("jobs.yaml", text, DEV, "default")
    assert not fixed.changed and why in (fixed.error or "")


FLOW_WITH_COMMENTS = (
    VOLCANO_JOB[: VOLCANO_JOB.index("  tasks:")]
    + """\
  plugins:
    pytorch: [
      "--master=master",   # the master task
      "--port=23456"
    ]
  tasks:
    - replicas: 2
      name: worker
      template:
        spec:
          containers:
            - image: trainer:1
              name: worker"""
)


def test_a_document_ruamel_cannot_print_back_gets_only_the_added_lines():
    """A multi-line flow list with a comment (as Volcano's PyTorch example) and no last line end."""
    fixed = fix_text("vc.yaml", FLOW_WITH_COMMENTS, DEV, "default")
    assert fixed.error is None and removed_lines(FLOW_WITH_COMMENTS, fixed.after) == []
    assert "              name: worker\n          schedulerName: volcano\n" in fixed.after
    assert not fixed.after.endswith("\n")
    assert objects(fixed.after) == [webhook_mutate(objects(FLOW_WITH_COMMENTS)[0], DEV, "default")]


def test_a_default_that_falls_inside_a_multi_line_flow_map_with_comments_is_refused():
    text = KUEUE_JOB.format(ns="alpha").replace(
        "metadata:\n  name: train   # the main run\n  namespace: alpha\n",
        "metadata: {\n  name: train,   # the main run\n  namespace: alpha\n}\n",
    )
    fixed = fix_text("jobs.yaml", text, DEV, "default")
    assert not fixed.changed and "line 1: ruamel.yaml cannot print this document back" in (fixed.error or "")


@pytest.mark.parametrize(
    "ns, note",
    [("alpha", "a JSON manifest is not rewritten"), ("elsewhere", None)],
    ids=["one the controller would change", "one it would not"],
)
def test_a_json_manifest_is_not_rewritten_and_said_so_only_when_it_needs_a_fix(ns, note):
    text = orjson.dumps(yaml.safe_load(KUEUE_JOB.format(ns=ns))).decode()
    fixed = fix_text("job.json", text, DEV, "default")
    assert not fixed.changed
    assert note in (fixed.error or "") if note else fixed.error is None


def test_documents_that_are_not_kubernetes_objects_are_left_alone():
    text = "# chart values\nreplicas: 2\nmetadata: {namespace: alpha}\n"
    assert fix_text("values.yaml", text, DEV, "alpha") == FileFix("values.yaml", text, text)


def test_objects_outside_the_teams_namespaces_are_left_alone():
    text = KUEUE_JOB.format(ns="elsewhere")
    assert not fix_text("jobs.yaml", text, DEV, "default").changed


def test_the_diff_names_the_file_as_git_does_and_is_empty_without_a_change():
    diff = unified_diff(fix_text("jobs/vc.yaml", VOLCANO_JOB, DEV, "default"))
    assert diff.startswith("--- a/jobs/vc.yaml\n+++ b/jobs/vc.yaml\n@@ ") and "\n+  queue: alpha\n" in diff
    assert unified_diff(fix_text("cm.yaml", CONFIG_MAP, DEV, "default")) == ""


def test_every_upstream_example_file_is_fixed_as_the_mutator_patches_its_objects(upstream_dir):
    """Real files (their comments, quoting and layouts), placed in a team namespace by --namespace."""
    fleet, problems, changed = mutate_fleet(), [], 0
    for path in sorted(upstream_dir.rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        fixed = fix_text(str(path), text, fleet, TEAM_NS)
        if fixed.error:
            problems.append(f"{path.name}: {fixed.error}")
            continue
        changed += fixed.changed
        originals = [doc for doc in yaml.safe_load_all(text)]
        expected = [
            jsonpatch.apply_patch(doc, patch_for(doc, fleet, TEAM_NS)) if isinstance(doc, dict) else doc
            for doc in originals
        ]
        if [doc for doc in yaml.safe_load_all(fixed.after)] != expected:
            problems.append(f"{path.relative_to(upstream_dir)}: the fixed file is not the patched objects")
        elif fixed.changed and comment_lines(fixed.after) != comment_lines(text):
            problems.append(f"{path.relative_to(upstream_dir)}: comments changed")
    assert not problems, "\n".join(problems)
    assert changed >= 10, "the upstream examples should exercise the fixer"
