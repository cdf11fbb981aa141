"""Rules of the ``gang-size`` family: gang sizes (minMember, minAvailable, minResources).

Discovered by :mod:`gpufleet.rules.registry`; helpers shared by these rules live in
the underscore modules beside them.
"""
