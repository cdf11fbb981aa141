"""The typed fleet model (pydantic v2) and its loader.

``load_model(path)`` is the entry point for the CLI, the Pulumi program and the
linter's ``--fleet``; it returns a validated :class:`Fleet` or raises
``gpufleet.yamlin.errors.ModelError`` with every issue found.
"""

from gpufleet.model.fleet import API_VERSION, Fleet
from gpufleet.model.loader import load_model, parse_model
from gpufleet.model.pools import Pool
from gpufleet.model.quota import PoolQuota, ResourceQuota
from gpufleet.model.teams import Cohort, Team

__all__ = ["API_VERSION", "Fleet", "Pool", "PoolQuota", "ResourceQuota", "Cohort", "Team", "load_model", "parse_model"]
