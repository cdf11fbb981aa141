"""One reader per upstream controller; importing this package registers them all (see ``registry``)."""

from gpufleet.workloads.contract.readers import jobset, kubeflow, lws, mpi, ray, trainer  # noqa: F401
