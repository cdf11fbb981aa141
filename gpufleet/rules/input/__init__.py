"""Rules of the ``input`` family: input that is not a Kubernetes object.

Discovered by :mod:`gpufleet.rules.registry`; helpers shared by these rules live in
the underscore modules beside them.
"""
