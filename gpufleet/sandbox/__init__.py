"""``gpufleet sandbox``: a local control plane with the real engines, as host processes on 127.0.0.1.

etcd, kube-apiserver, kube-controller-manager and kube-scheduler (Kubernetes v1.37.2),
KWOK (fake GPU nodes from the model's pools), Kueue v0.19.2, Volcano v1.15.1 and, for a
model with a coscheduling pool, the scheduler-plugins scheduler, all built from their Go
modules by ``sandbox/engines/build.sh``; then what the stack would apply, rendered from
the model, and the gang-admission controller registered by URL.

An adapter on top of the core (model, render, rules): the core never imports it. Called
by ``gpufleet.cli.sandbox_cmds`` and the e2e tier (``tests/e2e``). See docs/sandbox.md.
"""
