"""docs/crds.md: where the CRDs for ``--crds`` come from, for the versions gpufleet pins (issue 21, item 6).

The engine tags must be the model's pinned chart versions, and every CRD file the tests
read from ``../shared/crds`` must be one the doc's commands fetch (same repository path,
same tag, as its ``SOURCE.md`` records).
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from pathlib import Path

import pytest

from gpufleet.model.coscheduling import CoschedulingEngine
from gpufleet.model.fleet import KueueEngine, VolcanoEngine
from tests.conftest import SHARED as SHARED_ROOT
from tests.conftest import shared_cases

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "crds.md"
SHARED = SHARED_ROOT / "crds"


def fetches() -> dict[str, tuple[str, str, list[str]]]:
    """{dir: (repository, tag, paths)} of the doc's ``fetch`` lines."""
    out = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("fetch "):
            _, folder, repo, tag, *paths = shlex.split(line)
            out[folder] = (repo, tag, paths)
    return out


def test_the_engine_tags_are_the_versions_gpufleet_pins():
    tags = {folder: tag for folder, (_, tag, _) in fetches().items()}
    assert tags["kueue"] == f"v{KueueEngine().chart_version}"
    assert tags["volcano"] == f"v{VolcanoEngine().chart_version}"
    assert tags["scheduler-plugins"] == f"v{CoschedulingEngine().chart_version}"


def recorded(source: Path) -> tuple[str, list[str]]:
    """(tag, repository paths of the CRD files) that a ``SOURCE.md`` records (not its other files)."""
    text = source.read_text(encoding="utf-8")
    tag = re.search(r"tag `(v[^`]+)`|\*\*Kueue (v[0-9.]+)\*\*", text)
    paths = re.findall(
        r"^\|\s*[\w.-]+\.yaml\s*\|\s*(?:source path at \S+ \|)?\s*([\w./-]+_[\w.-]+\.yaml)\s*\|", text, re.MULTILINE
    )
    crds = [
        p for p in paths if re.fullmatch(r"[a-z0-9-]+(\.[a-z0-9-]+)+_[a-z]+\.yaml", p.rsplit("/", 1)[-1])
    ]  # group_plural.yaml
    return (tag.group(1) or tag.group(2)) if tag else "", crds


@pytest.mark.shared
@pytest.mark.parametrize(
    "folder",
    shared_cases(
        sorted(p.name for p in SHARED.iterdir() if (p / "SOURCE.md").is_file()) if SHARED.is_dir() else [], 1, "crds"
    ),
)
def test_the_doc_fetches_every_crd_the_tests_read_at_the_same_tag(folder):
    tag, paths = recorded(SHARED / folder / "SOURCE.md")
    assert paths, f"no CRD paths found in {folder}/SOURCE.md"
    _, doc_tag, patterns = fetches()[folder]
    assert doc_tag == tag
    unmatched = [p for p in paths if not any(fnmatch.fnmatch(p, pattern) for pattern in patterns)]
    assert not unmatched
