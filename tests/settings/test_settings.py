"""The one settings loader: options validated by each rule's options class, every problem reported at once."""

from __future__ import annotations

import json

import pytest

from gpufleet.rules.api import CheckContext
from gpufleet.rules.platform.gang502_wait_for_pods_ready_timeout_below_floor import Gang502Options
from gpufleet.rules.restarts.gang203_unbounded_retries import Gang203Options
from gpufleet.settings import SettingsError, load_settings, rule_options


def test_options_become_each_rules_typed_options_object():
    options = rule_options({"gang502": {"floorSeconds": 900}, "GANG203": {"maxRetries": 4}})
    ctx = CheckContext(options=options)
    assert ctx.options_for("GANG502", Gang502Options) == Gang502Options(floor_seconds=900)
    assert ctx.options_for("GANG203", Gang203Options).max_retries == 4


def test_a_rule_without_given_options_gets_its_defaults():
    assert CheckContext().options_for("GANG203", Gang203Options) == Gang203Options(max_retries=10)


@pytest.mark.parametrize(
    "options, path, message",
    [
        ({"GANG999": {}}, "options.GANG999", "unknown rule code"),
        ({"GANG301": {"x": 1}}, "options.GANG301", "takes no options"),
        ({"GANG502": 900}, "options.GANG502", "must be a map"),
        ({"GANG502": {"floorSecond": 900}}, "options.GANG502.floorSecond", "unknown option"),
        ({"GANG502": {"floorSeconds": "15m"}}, "options.GANG502.floorSeconds", "valid integer"),
        ({"GANG502": {"floorSeconds": True}}, "options.GANG502.floorSeconds", "valid integer"),
        ({"GANG101": {"volcanoSchedulers": "volcano"}}, "options.GANG101.volcanoSchedulers", "valid array"),
        ({"GANG101": {"volcanoSchedulers": ["volcano", 3]}}, "options.GANG101.volcanoSchedulers[1]", "valid string"),
    ],
)
def test_a_bad_option_is_an_error_at_its_path_naming_the_file(options, path, message):
    with pytest.raises(SettingsError) as caught:
        load_settings(options=options, options_source="lint.yaml")
    [issue] = caught.value.issues
    assert (issue.path, caught.value.source) == (path, "lint.yaml") and message in issue.message and issue.fix


def test_every_problem_of_every_input_is_reported_together(tmp_path):
    context = tmp_path / "fleet.json"
    context.write_text("{not json")
    with pytest.raises(SettingsError) as caught:
        load_settings(
            context=str(context),
            crds=str(tmp_path / "absent"),
            options={"GANG502": {"floor": 1}, "GANG203": {"maxRetries": "4"}},
            options_source="lint.yaml",
        )
    lines = caught.value.lines()
    assert [line.split(":")[0] for line in lines] == [str(context), str(tmp_path / "absent"), "lint.yaml", "lint.yaml"]


def test_only_the_strict_loader_holds_a_context_to_the_schema(tmp_path):
    partial = tmp_path / "fleet.json"
    partial.write_text(json.dumps({"version": 1, "fleet": "f", "teams": [], "pools": []}))
    assert load_settings(context=str(partial)).fleet.fleet == "f"
    with pytest.raises(SettingsError) as caught:
        load_settings(context=str(partial), strict=True)
    assert {i.path for i in caught.value.issues} == {"teams", "pools"}


def test_raw_option_maps_are_refused_by_the_rules():
    with pytest.raises(TypeError, match="rule_options"):
        CheckContext(options={"GANG502": {"floorSeconds": 900}}).options_for("GANG502", Gang502Options)


def test_the_policy_floor_overrides_the_fleets(tmp_path):
    context = tmp_path / "fleet.json"
    context.write_text(json.dumps({"version": 1, "fleet": "f", "teams": [], "pools": []}))
    assert load_settings(context=str(context), cold_start_floor_seconds=900).fleet.cold_start_floor_seconds == 900


def test_a_fleet_context_past_its_cap_is_refused_unread_with_the_cap_in_mib(tmp_path, monkeypatch):
    from gpufleet.settings import fleet as settings
    from gpufleet.yamlin.errors import ModelError

    path = tmp_path / "context.json"
    path.write_text("{}" + " " * (2 * 2**20))
    monkeypatch.setattr(settings, "MAX_CONTEXT_BYTES", 2**20)
    with pytest.raises(ModelError) as refused:
        settings.load_fleet_context(str(path))
    assert [(i.message, i.fix) for i in refused.value.issues] == [
        ("the fleet context is larger than 1 MiB", "render it again from the fleet model")
    ]
