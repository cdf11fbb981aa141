"""The CRD schemas gpufleet carries: generated data, not code (``scripts/bundle_crds.py`` writes this folder).

One compact JSON CustomResourceDefinition per CRD under ``<project>/`` (Kueue, Volcano and
scheduler-plugins at the versions the model pins, the workload operators at the versions
``PROVENANCE.json`` names), ``index.json`` (``group/version/Kind`` -> file), ``PROVENANCE.json``
(module, version, path in the module and sha256 of each source file) and the projects' licences
under ``licenses/``. Read by :mod:`gpufleet.crdschema.bundle`; see docs/crds.md.
"""
