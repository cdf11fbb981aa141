"""``gpufleet diff`` through typer's CliRunner: formats, the JSON contract, exit codes, --git."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner

from gpufleet.cli import diff_cmds

ROOT = Path(__file__).resolve().parents[2]
PROD = ROOT / "stacks" / "prod.fleet.yaml"


def _app() -> typer.Typer:
    app = typer.Typer(pretty_exceptions_enable=False)

    @app.callback()
    def main() -> None:
        """gpufleet (test app)."""

    diff_cmds.register(app)
    return app


APP = _app()


def run(*args: str):
    return CliRunner().invoke(APP, ["diff", *args])


def edited(tmp_path: Path, edit, name: str = "new.fleet.yaml") -> Path:
    data = yaml.safe_load(PROD.read_text())
    edit(data)
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def shrink(data: dict) -> None:
    data["teams"][0]["quota"]["a100"]["nominal"] = 256


def drop_eval(data: dict) -> None:
    data["teams"] = [t for t in data["teams"] if t["name"] != "eval"]


def test_an_accepted_change_exits_0_with_the_documented_json_contract(tmp_path):
    result = run(str(PROD), str(edited(tmp_path, shrink)), "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert set(out) >= {"quota", "steps", "summary"} and out["summary"] == {
        **out["summary"],
        "rejected": 0,
        "blocked": 0,
    }
    assert {"team", "pool", "before", "after"} <= set(out["quota"][0])
    step = out["steps"][0]
    assert {"order", "op", "apiVersion", "kind", "namespace", "name", "fields", "verdict", "reason"} <= set(step)
    assert [s["order"] for s in out["steps"]] == list(range(1, len(out["steps"]) + 1))
    assert out["summary"]["steps"] == len(out["steps"])


def test_removing_a_live_team_exits_1_and_the_markdown_says_blocked_with_the_fix(tmp_path):
    result = run(str(PROD), str(edited(tmp_path, drop_eval)), "--format", "markdown")
    assert result.exit_code == 1
    assert "| # | op | kind | name | fields | verdict | reason |" in result.output
    assert "BLOCKED" in result.output and "lifecycle: retired" in result.output


def test_the_text_format_prints_the_quota_and_the_steps(tmp_path):
    result = run(str(PROD), str(edited(tmp_path, shrink)))
    assert result.exit_code == 0
    assert "research" in result.output and "384 → 256" in result.output and "pulumi up" in result.output


def test_git_compares_the_model_with_its_revision(tmp_path):
    repo = tmp_path / "repo"
    (repo / "stacks").mkdir(parents=True)
    model = repo / "stacks" / "prod.fleet.yaml"
    model.write_text(PROD.read_text())
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=repo, check=True)
    edited(repo / "stacks", shrink, "prod.fleet.yaml")
    result = run(str(model), "--git", "HEAD", "--format", "json")
    assert result.exit_code == 0, result.output
    assert [r["team"] for r in json.loads(result.output)["quota"]] == ["research"]


@pytest.mark.parametrize(
    "args",
    [
        (str(PROD),),
        (str(PROD), str(PROD), "--git", "HEAD"),
        (str(PROD), str(PROD), "--format", "yaml"),
        (str(PROD), "--git", "no-such-revision-xyz"),
        (str(PROD), str(PROD), "--crds", "/no/such/dir"),
        ("/no/such/base.fleet.yaml", str(PROD)),
        (str(PROD), "/no/such/new.fleet.yaml"),
        ("/no/such/model.fleet.yaml", "--git", "HEAD"),
    ],
)
def test_usage_errors_exit_2_with_a_fix(args):
    result = run(*args)
    assert result.exit_code == 2


def test_an_invalid_model_exits_1_naming_the_file(tmp_path):
    bad = edited(tmp_path, lambda d: d["teams"][0].__setitem__("cohort", "nowhere"), "bad.fleet.yaml")
    result = run(str(PROD), str(bad))
    assert result.exit_code == 1 and "bad.fleet.yaml" in result.output


def test_the_example_ci_workflow_posts_the_markdown_diff_of_changed_models_with_options_the_command_has():
    workflow = yaml.safe_load((ROOT / "examples" / "ci" / "github-workflow.yaml").read_text())
    job = workflow["jobs"]["quota-diff"]
    script = next(step["run"] for step in job["steps"] if step.get("id") == "diff")
    line = next(line.strip() for line in script.splitlines() if line.strip().startswith("gpufleet diff"))
    assert "--git" in line and "--format markdown" in line and "stacks/*.fleet.yaml" in script
    assert job["if"] == "github.event_name == 'pull_request'"
    options = {o for p in typer.main.get_command(APP).commands["diff"].params for o in getattr(p, "opts", [])}
    assert {word for word in line.split() if word.startswith("--")} <= options


@pytest.mark.parametrize("where", ["outside a git repository", "not in the revision"])
def test_git_base_that_cannot_be_read_is_a_usage_error_naming_the_file_and_revision(tmp_path, where):
    model = tmp_path / "prod.fleet.yaml"
    model.write_text(PROD.read_text())
    if where == "not in the revision":
        git = ["git", "-C", str(tmp_path), "-c", "user.email=t@t", "-c", "user.name=t"]
        subprocess.run(git + ["init", "-q"], check=True)
        (tmp_path / "other.txt").write_text("x")
        subprocess.run(git + ["add", "other.txt"], check=True)
        subprocess.run(git + ["commit", "-qm", "x"], check=True)
    result = run(str(model), "--git", "HEAD")
    assert (
        result.exit_code == 2
        and "prod.fleet.yaml" in result.stderr
        and "'HEAD'" in result.stderr
        and "fix:" in result.stderr
    )
    assert result.exception is None or isinstance(result.exception, SystemExit)


def shrink_pool(data: dict) -> None:
    data["pools"][0]["nodeCount"] = 1


def test_an_edit_that_overfills_a_pool_is_named_at_the_edit_not_at_the_largest_quota(tmp_path):
    """Issue 19, item 5: with history, the error names what changed (here the pool's nodeCount)."""
    bad = edited(tmp_path, shrink_pool, "bad.fleet.yaml")
    result = run(str(PROD), str(bad))
    assert result.exit_code == 1
    assert re.search(r"bad\.fleet\.yaml:\d+:\d+: pools\[0\]\.nodeCount: this edit \(nodeCount", result.output), (
        result.output
    )


def test_an_invalid_model_at_the_git_revision_names_its_line_and_column(tmp_path):
    repo = tmp_path / "repo"
    (repo / "stacks").mkdir(parents=True)
    model = repo / "stacks" / "prod.fleet.yaml"
    model.write_text(PROD.read_text().replace("  - name: eval\n", "  - name: eval\n    colour: blue\n", 1))
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=repo, check=True)
    line = model.read_text().splitlines().index("    colour: blue") + 1
    model.write_text(PROD.read_text())
    result = run(str(model), "--git", "HEAD")
    assert result.exit_code == 1
    assert f"HEAD:stacks/prod.fleet.yaml:{line}:5: teams[2].colour: unknown field" in result.stderr, result.stderr
