"""gpufleet.pulumi.engine: the three engine components share one base (issue 36, item 4)."""

from __future__ import annotations

import inspect

import pytest

from gpufleet.pulumi import coscheduling, engine, kueue, volcano
from gpufleet.pulumi.coscheduling import Coscheduling
from gpufleet.pulumi.kueue import Kueue
from gpufleet.pulumi.volcano import Volcano

ENGINES = [(kueue, Kueue), (volcano, Volcano), (coscheduling, Coscheduling)]


@pytest.mark.parametrize("module, component", ENGINES, ids=lambda v: getattr(v, "__name__", ""))
def test_each_engine_component_is_a_chart_engine_with_its_modules_token(module, component):
    assert issubclass(component, engine.ChartEngine)
    assert component.TOKEN == f"gpufleet:{module.__name__.rsplit('.', 1)[1]}:{component.__name__}"


@pytest.mark.parametrize("module, component", ENGINES, ids=lambda v: getattr(v, "__name__", ""))
def test_no_engine_module_installs_a_chart_itself(module, component):
    # The namespace, the chart and the outputs are the base's: a module that calls install_chart or
    # registers outputs again has copied the base back.
    source = inspect.getsource(module)
    assert "install_chart(" not in source and "register_outputs(" not in source
