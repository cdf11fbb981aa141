"""Rules of the ``restarts`` family: job-level restarts.

Discovered by :mod:`gpufleet.rules.registry`; helpers shared by these rules live in
the underscore modules beside them.
"""
