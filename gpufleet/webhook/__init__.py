"""The gang-admission controller: an HTTPS admission webhook over the rule engine and the mutator.

Adapter layer (may import aiohttp, prometheus_client, orjson). Modules:
``review`` (AdmissionReview parsing and rendering), ``registry`` (handlers by path and
the socket-free ``serve``), ``handlers`` (/validate, /mutate, /echo), ``state``,
``metrics``, ``reload`` (fleet context and TLS hot reload), ``app`` (aiohttp routes),
``server`` (flags, startup, shutdown). Run it with ``python -m gpufleet.webhook``;
see docs/webhook.md.
"""
