"""``gpufleet whatif``: a job trace replayed on the real engines under two quota models.

The core half (this package) is pure: the trace format (:mod:`.trace`), where traces come
from (:mod:`.synth`, :mod:`.fromcluster`), the jobs a careful user of each team would
write for a trace line (:mod:`.jobs`), the time scale (:mod:`.timescale`), the metrics
computed from what the API server reported (:mod:`.metrics`) and the report
(:mod:`.report`). The replay itself runs in the sandbox (``gpufleet.sandbox.replay``);
the command is ``gpufleet.cli.whatif_cmds``. docs/whatif.md is the user's guide.
"""
