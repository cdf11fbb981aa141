"""Where the schedulers read their configuration: the ConfigMap data keys, spelled once.

Kueue's manager reads its ``Configuration`` from the ConfigMap key
``controller_manager_config.yaml``; the Volcano scheduler reads its conf from
``volcano-scheduler.conf``. Read by the renderers that write those ConfigMaps
(:mod:`gpufleet.render.kueue_config`, :mod:`gpufleet.render.files`), by the platform
rules that read them back (GANG501-GANG506) and by the policy pack, which rebuilds the
ConfigMaps from Helm chart values (``gpufleet/policypack/charts.py``): the pack
imports this public module, never the rules' private helpers. A leaf module
(standard library only).
"""

from __future__ import annotations

KUEUE_CONFIG_KEY = "controller_manager_config.yaml"
VOLCANO_CONF_KEY = "volcano-scheduler.conf"
