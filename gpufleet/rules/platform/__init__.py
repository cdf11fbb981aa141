"""Rules of the ``platform`` family: Kueue and Volcano configuration.

Discovered by :mod:`gpufleet.rules.registry`; helpers shared by these rules live in
the underscore modules beside them.
"""
