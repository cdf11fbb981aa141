"""Rules of the ``gpus`` family: GPU requests and placement on the fleet's pools.

Discovered by :mod:`gpufleet.rules.registry`; helpers shared by these rules live in
the underscore modules beside them.
"""
