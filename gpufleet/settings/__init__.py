"""The composition root of a rule run: what the linter, the policy pack and the webhook call.

It sits above the rules (``gpufleet.rules``) and the fleet context (``gpufleet.fleetctx``)
and below the adapters: :func:`load_settings` turns the user's inputs into one
:class:`Settings` and its ``CheckContext``. The arrow runs one way, from here down.
"""

from gpufleet.settings.fleet import (
    MAKE_CONTEXT,
    MAX_CONTEXT_BYTES,
    fleet_context_from_dict,
    fleet_context_from_model,
    load_fleet,
    load_fleet_context,
)
from gpufleet.settings.load import Settings, SettingsError, load_crds, load_settings
from gpufleet.settings.options import OPTIONS, option_names, rule_options

__all__ = [
    "MAKE_CONTEXT",
    "MAX_CONTEXT_BYTES",
    "OPTIONS",
    "Settings",
    "SettingsError",
    "fleet_context_from_dict",
    "fleet_context_from_model",
    "load_crds",
    "load_fleet",
    "load_fleet_context",
    "load_settings",
    "option_names",
    "rule_options",
]
