"""The controller's CRD schemas: the carried ones by default, ``--crds DIR`` on top, ``--no-crds`` none."""

from __future__ import annotations

import pytest

from gpufleet.webhook.server import parse_args
from gpufleet.webhook.worker import _init

VOLCANO_JOB = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job"}


def test_by_default_the_carried_schemas_and_no_folder():
    cfg = parse_args([], env={})
    assert cfg.crds == "" and cfg.no_crds is False


def test_the_flags_and_their_environment_variables(tmp_path):
    assert parse_args(["--crds", str(tmp_path)], env={}).crds == str(tmp_path)
    assert parse_args([], env={"GPUFLEET_CRDS": str(tmp_path)}).crds == str(tmp_path)
    assert parse_args(["--no-crds"], env={}).no_crds is True
    assert parse_args([], env={"GPUFLEET_NO_CRDS": "true"}).no_crds is True


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--crds", "{tmp}", "--no-crds"], "not both"),
        (["--crds", "{tmp}/missing"], "is not a directory"),
    ],
)
def test_a_bad_crds_setting_is_one_line_naming_the_flag(tmp_path, argv, message):
    with pytest.raises(ValueError, match=message):
        parse_args([a.format(tmp=tmp_path) for a in argv], env={})


@pytest.mark.parametrize("crds, knows", [((None, True), True), ((None, False), None)])
def test_the_review_worker_checks_the_same_schemas_as_the_server(monkeypatch, crds, knows):
    monkeypatch.setattr("gpufleet.webhook.worker._exit_with_parent", lambda: None)
    monkeypatch.setattr("os.nice", lambda _: 0)
    monkeypatch.setattr("gpufleet.webhook.worker._child", {})
    _init(False, 0, "warning", None, crds)
    from gpufleet.webhook import worker

    schemas = worker._child["state"].crds
    assert (schemas.knows(VOLCANO_JOB) if schemas is not None else None) is knows
