"""One controller image and one project URL, each set once in ``gpufleet/__init__.py``, and named so everywhere.

The stack default of ``gpufleet:controllerImage``, controller/Dockerfile's build command,
the README and the docs name ``gpufleet.CONTROLLER_IMAGE``; every install URL, the
pre-commit hook's ``repo``, the SARIF rule links and every rendered runbook_url derive
from ``gpufleet.PROJECT_URL`` (issue 33, point 4).
"""

from __future__ import annotations

import re
from pathlib import Path

from gpufleet import CONTROLLER_IMAGE, DOCS_URL, PROJECT_URL
from gpufleet.model import load_model
from gpufleet.render.controller.common import NAME
from gpufleet.render.monitoring import render_monitoring
from tests.program.capture import run_stack, stack_config, stack_names

REPO = Path(__file__).resolve().parents[1]
WRITTEN = sorted(
    [
        REPO / "README.md",
        REPO / ".pre-commit-hooks.yaml",
        REPO / "controller" / "Dockerfile",
        *(REPO / "docs").rglob("*.md"),
        *(REPO / "stacks").glob("*.yaml"),
        *(REPO / "examples").rglob("*.yaml"),
        *(REPO / "gpufleet").rglob("*.py"),
        *(REPO / "gpufleet").rglob("*.md"),
    ]
)
IMAGE = re.compile(r"[\w.<>/-]*gang-admission-controller:[\w.<>-]+")
PROJECT = re.compile(r"https://github\.com/[^/\s\"'`)]+/gpufleet\b")


def named(pattern: re.Pattern[str]) -> list[tuple[str, str]]:
    return [(str(path.relative_to(REPO)), found) for path in WRITTEN for found in pattern.findall(path.read_text())]


def test_every_controller_image_named_is_the_project_image_or_a_registry_copy_of_it():
    tag = CONTROLLER_IMAGE.rsplit("/", 1)[1]
    images = named(IMAGE)
    assert ("controller/Dockerfile", CONTROLLER_IMAGE) in images
    assert {image for _, image in images} <= {CONTROLLER_IMAGE, f"<registry>/{tag}"}, images


def test_every_project_url_is_the_one_project_url():
    urls = named(PROJECT)
    assert ("README.md", PROJECT_URL) in urls and (".pre-commit-hooks.yaml", PROJECT_URL) in urls
    assert {url for _, url in urls} == {PROJECT_URL}, urls


def test_the_project_url_is_written_in_the_package_once():
    assert [path for path, _ in named(PROJECT) if path.startswith("gpufleet/")] == ["gpufleet/__init__.py"]


def controller_images(stack: str) -> list[str]:
    """The images of the gang-admission controller's containers the stack's program creates (under mocks)."""
    return [
        container["image"]
        for r in run_stack(stack).registered
        if r.type == "kubernetes:apps/v1:Deployment" and r.inputs["metadata"]["name"] == NAME
        for container in r.inputs["spec"]["template"]["spec"]["containers"]
    ]


def test_the_stacks_set_no_image_and_deploy_the_project_image():
    for stack in stack_names():
        assert "controllerImage" not in {key.split(":")[-1] for key in stack_config(stack)}, stack
    deployed = {stack: controller_images(stack) for stack in stack_names()}
    assert any(deployed.values()) and set(sum(deployed.values(), [])) == {CONTROLLER_IMAGE}, deployed


def test_every_rendered_runbook_url_is_under_the_project_docs():
    fleet = load_model(REPO / "stacks" / "dev.fleet.yaml")
    urls = [
        rule["annotations"]["runbook_url"]
        for doc in render_monitoring(fleet)
        if doc["kind"] == "PrometheusRule"
        for group in doc["spec"]["groups"]
        for rule in group["rules"]
        if "alert" in rule
    ]
    assert urls and all(url.startswith(f"{DOCS_URL}/runbooks/") for url in urls)
    assert DOCS_URL.startswith(PROJECT_URL)
