"""gpufleet.render.params_configmap: a params ConfigMap's name follows its data, and the bindings take it from there."""

from __future__ import annotations

import re

from gpufleet.render.params_configmap import param_ref, params_base, params_config_map, params_name
from tests.render.builders import fleet

DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def test_the_same_data_gives_the_same_name_whatever_its_order_and_other_data_another():
    name = params_name("gpufleet-rule-params", {"a.x": "true", "b.y": "1"})
    assert name == params_name("gpufleet-rule-params", {"b.y": "1", "a.x": "true"})
    assert re.fullmatch(r"gpufleet-rule-params-[0-9a-f]{10}", name) and DNS_SUBDOMAIN.fullmatch(name)
    changed = {
        params_name("gpufleet-rule-params", d)
        for d in ({"a.x": "true"}, {"a.x": "true", "b.y": "2"}, {"a.x": "true", "b.y": "1", "c": ""})
    }
    assert name not in changed and len(changed) == 3


def test_the_base_reads_back_only_from_a_content_name():
    assert params_base(params_name("gpufleet-mutation-params", {})) == "gpufleet-mutation-params"
    assert params_base("gpufleet-mutation-params") == params_base("gang-admission-controller-fleet-context") == ""


def test_a_bindings_param_ref_names_the_config_map_rendered_with_it():
    model = fleet()
    config_map = params_config_map(model, "gpufleet-rule-params", {"k": "v"})
    assert config_map["data"] == {"k": "v"} and config_map["metadata"]["namespace"] == model.controller.namespace
    assert param_ref(config_map) == {
        "name": params_name("gpufleet-rule-params", {"k": "v"}),
        "namespace": model.controller.namespace,
        "parameterNotFoundAction": "Deny",
    }
