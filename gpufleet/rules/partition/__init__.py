"""Rules of the ``partition`` family: partitions between engines.

Discovered by :mod:`gpufleet.rules.registry`; helpers shared by these rules live in
the underscore modules beside them.
"""
