"""Rules of the ``coscheduling`` family: scheduler-plugins coscheduling PodGroups.

Discovered by :mod:`gpufleet.rules.registry`; helpers shared by these rules live in
the underscore modules beside them.
"""
