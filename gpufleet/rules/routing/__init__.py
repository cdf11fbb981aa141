"""Rules of the ``routing`` family: routing to a gang scheduler or queue.

Discovered by :mod:`gpufleet.rules.registry`; helpers shared by these rules live in
the underscore modules beside them.
"""
