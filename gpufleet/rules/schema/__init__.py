"""Rules of the ``schema`` family: CRD schemas.

Discovered by :mod:`gpufleet.rules.registry`; helpers shared by these rules live in
the underscore modules beside them.
"""
