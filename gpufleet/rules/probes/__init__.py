"""Rules of the ``probes`` family: probes on gang members.

Discovered by :mod:`gpufleet.rules.registry`; helpers shared by these rules live in
the underscore modules beside them.
"""
