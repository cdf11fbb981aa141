"""Rules of the ``observability`` family: gang identity for the time-to-first-step alerts.

Discovered by :mod:`gpufleet.rules.registry`; helpers shared by these rules live in
the underscore modules beside them.
"""
