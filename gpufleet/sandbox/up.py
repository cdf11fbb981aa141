"""``gpufleet sandbox up``: start the control plane and engines, then apply what the stack would.

Order matters and each step waits, bounded, for the last: etcd, the API server, the
controller manager and scheduler; CRDs (Kueue's with their conversion webhook, Volcano's,
established); the fake nodes and KWOK; Kueue, then its webhook configurations; Volcano's
webhook configurations, then its webhook manager, scheduler and controller manager; the
scheduler-plugins scheduler when a pool uses coscheduling; the rendered objects in apply
order; last the gang-admission controller's fail-closed webhook configurations, once it
is ready (its process starts first: it needs no API server, so its Python start overlaps the
control plane's). Each step's seconds go to ``logs/up.log`` (``gpufleet.sandbox.uplog``). With ``engines_only`` the rendered objects, the controller's
namespace and its webhook configurations are left to a Pulumi stack (``pulumi up`` with
``gpufleet:enginesInstalled``; ``State.stack`` holds that stack's config): the engines
run, and so does the controller's backend, unregistered. Called by
``gpufleet.cli.sandbox_cmds`` and the e2e tier.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import yaml

from gpufleet.kubetypes import workload_api
from gpufleet.model.fleet import Fleet
from gpufleet.render import render_all
from gpufleet.render.files import context_json
from gpufleet.render.kueue_config import render_manager_config_yaml
from gpufleet.render.volcano import render_scheduler_conf_yaml
from gpufleet.sandbox import controller, controlplane, coscheduling, health, jobset, kueue, kwok, needs, nodes, volcano
from gpufleet.sandbox.apply import apply_rendered
from gpufleet.sandbox.engines import Engines, gomodcache, locate
from gpufleet.sandbox.gates import Gates, gates
from gpufleet.sandbox.kube import Kube, established
from gpufleet.sandbox.pki import Pki, make_pki, private_dir, write_private
from gpufleet.sandbox.procs import alive, free_ports, retrying_races, start
from gpufleet.sandbox.state import State, down, load
from gpufleet.sandbox.uplog import Steps

PORTS = (
    "etcd",
    "etcd_peer",
    "apiserver",
    "controller_manager",
    "scheduler",
    "kwok",
    "kueue_webhook",
    "kueue_metrics",
    "kueue_health",
    "volcano_webhook",
    "volcano_webhook_healthz",
    "volcano_scheduler_healthz",
    "volcano_scheduler_metrics",
    "volcano_controller_healthz",
    "volcano_controller_metrics",
    "coscheduling",
    "controller",
    "jobset_webhook",
    "jobset_metrics",
    "jobset_health",
)


class SandboxRunning(RuntimeError):
    """A sandbox already runs in that folder (``up`` reuses it) or runs only in part."""


@dataclass(frozen=True)
class Options:
    pods_ready_timeout: str | None = None
    """Override Kueue's ``waitForPodsReady.timeout`` (tests of the eviction path; the model's floor protects clusters)."""
    controller: bool = True
    """Start and register the gang-admission controller."""
    node_cap: int | None = None
    """At most this many fake nodes per pool (tests of objects, not placement, on a 1,000-node model)."""
    bench_echo: bool = False
    """Start the controller with ``--bench-echo`` (the benchmark's no-op webhook floor)."""
    volcano_without: tuple[str, ...] = ()
    """Volcano admission paths not to run (``/queues/validate``): where the Volcano the sandbox runs (v1.14.1)
    refuses what the pinned v1.15.1 accepts (docs/sandbox.md)."""
    engines_only: bool = False
    """Start the engines (and the controller's backend) only: a Pulumi stack applies the rest (``State.stack``)."""
    native_gang: bool = False
    """Run Kubernetes' own gang scheduling: ``GenericWorkload`` and ``WorkloadWithJob`` on and
    ``scheduling.k8s.io/v1beta1`` served (``gpufleet.sandbox.gates``); off, the control plane keeps its defaults."""
    feature_gates: Mapping[str, bool] = field(default_factory=dict)
    """Further feature gates for the API server, controller manager and scheduler (over ``native_gang``'s)."""
    runtime_config: Mapping[str, bool] = field(default_factory=dict)
    """Further API versions for the API server to serve or not (``--runtime-config``)."""

    def gates(self) -> Gates:
        return gates(self.native_gang, self.feature_gates, self.runtime_config)


def model_gates(fleet: Fleet, options: Options) -> Gates:
    """The control plane's gates: the model's ``kubernetes.featureGates`` (and, with ``GenericWorkload`` on, the
    Workload API version served), then the options' on top. The sandbox runs kube v1.37.2 whatever
    ``kubernetes.version`` says; the model's checks refuse a gate that version lacks."""
    k8s = fleet.kubernetes
    served: dict[str, bool] = {}
    if workload_api.GENERIC_WORKLOAD in k8s.gates_on and (config := workload_api.runtime_config(k8s.minor)):
        served[config.split("=", 1)[0]] = True
    return gates(
        options.native_gang, {**k8s.feature_gates, **options.feature_gates}, {**served, **options.runtime_config}
    )


def engines_needed(fleet: Fleet) -> list[str]:
    out = ["etcd", "kube", "kwok", "kueue"]
    if fleet.engines.volcano.enabled:
        out.append("volcano")
    if fleet.pools_of("coscheduling"):
        out.append("coscheduling")
    out += [op for op in operators_run(fleet) if op in OPERATOR_ENGINES]
    return out


OPERATOR_ENGINES = ("jobset",)
"""The workload operators the sandbox runs for real (each an engine folder of ``sandbox/engines``)."""


def operators_run(fleet: Fleet) -> list[str]:
    """The engines of the workload operators ``fleet``'s cluster runs (declared in its ``workloadOperators`` and not
    ``installed: false``) that the sandbox can run."""
    declared = fleet.workload_operators.declared()
    return [name for name in OPERATOR_ENGINES if name in declared and declared[name].installed]


def _reuse(directory: Path) -> State | None:
    state = load(directory)
    if state is None:
        return None
    status = state.status()
    if status["state"] == "running":
        return state
    if status["state"] == "degraded":
        gone = [p["name"] for p in status["processes"] if p["state"] != "running"]
        raise SandboxRunning(
            f"the sandbox in {directory} runs only in part ({', '.join(gone) or 'not ready'} stopped): "
            f"run `gpufleet sandbox down --dir {directory}` first"
        )
    down(state)  # every process is gone: start afresh
    return None


class _Run:
    """One ``up``: the state being built, the PKI, the engines, the kubeconfig."""

    def __init__(self, directory: Path, model: str, engines: Engines) -> None:
        self.dir, self.engines = directory, engines
        self.steps = Steps(directory / "logs")
        self.state = State(directory, model=model)
        self.state.ports = dict(zip(PORTS, free_ports(len(PORTS))))
        self.pki: Pki = make_pki(directory / "pki")
        self.ports = controlplane.Ports(
            *(self.state.ports[n] for n in ("etcd", "etcd_peer", "apiserver", "controller_manager", "scheduler"))
        )
        self.kubeconfig = directory / "kubeconfig"
        self.kubeconfig.write_text(controlplane.kubeconfig(self.pki, self.ports.apiserver))
        self.state.kubeconfig = str(self.kubeconfig)
        self.env = {**os.environ, "KUBECONFIG": str(self.kubeconfig)}
        self.state.save()
        self.kube: Kube | None = None

    @property
    def client(self) -> Kube:
        """The API server's client, from the control plane's start on."""
        if self.kube is None:
            raise RuntimeError("the sandbox's API server is not started yet")
        return self.kube

    def run(self, name: str, argv: list[str]):
        """Start ``name`` and wait for its probe (``gpufleet.sandbox.health``); started again if it dies of a Go
        runtime map race while starting (:func:`gpufleet.sandbox.procs.retrying_races`)."""
        return retrying_races(lambda: self.ready(self.begin(name, argv)), self._retried)

    def _retried(self, dead, attempt: int) -> None:
        self.state.drop(dead)
        self.steps.log(f"{dead.name} died of a Go runtime map race while starting (attempt {attempt}): started again")

    def begin(self, name: str, argv: list[str]):
        """Start ``name`` without waiting: :meth:`ready` waits for it later (a start that needs nothing started yet)."""
        self.steps.begun(name)
        return self.state.add(start(name, argv, self.dir / "logs" / f"{name}.log", env=self.env, cwd=self.dir))

    def ready(self, proc):
        """Wait for the probe of ``proc`` (started by :meth:`begin`), bounded by its timeout from when it started."""
        self.steps.ready(proc, health.ready(proc.name, self.state.ports, self.pki), health.timeout(proc.name))
        return proc

    def write(self, name: str, text: str) -> Path:
        path = self.dir / "config" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path


def _control_plane(r: _Run, g: Gates = Gates(), fleet: Fleet | None = None) -> None:
    """etcd, the API server, the controller manager and the kube-scheduler (scoring nodes as ``fleet``'s cluster
    does: ``kubernetes.scoringStrategy``)."""
    p, e = r.ports, r.engines
    r.run("etcd", controlplane.etcd_argv(e.binary("etcd"), r.pki, r.dir / "etcd", p))
    r.run("kube-apiserver", controlplane.apiserver_argv(e.binary("kube-apiserver"), r.pki, p, r.dir, g))
    r.kube = Kube(r.kubeconfig)
    r.run(
        "kube-controller-manager",
        controlplane.controller_manager_argv(e.binary("kube-controller-manager"), r.pki, p, r.kubeconfig, g),
    )
    scoring = () if fleet is None else (fleet.kubernetes.scoring_strategy, tuple(p.gpu_resource for p in fleet.pools))
    config = r.write("kube-scheduler.yaml", controlplane.scheduler_config(r.kubeconfig, *scoring))
    r.run("kube-scheduler", controlplane.scheduler_argv(e.binary("kube-scheduler"), config, p, g))


def _install_crds(r: _Run, fleet: Fleet) -> None:
    ca = r.pki.ca_crt.read_bytes()
    crds = kueue.crds(gomodcache(), r.state.ports["kueue_webhook"], ca)
    if fleet.engines.volcano.enabled:
        crds += volcano.crds(gomodcache())
    if fleet.pools_of("coscheduling"):
        crds += coscheduling.crds(gomodcache())
    if "jobset" in operators_run(fleet):
        crds += jobset.crds(gomodcache())
    r.client.apply_all(crds)
    r.steps.log(f"{len(crds)} CRDs applied")
    names = [c["metadata"]["name"] for c in crds]
    r.steps.wait("the engines' CRDs to be established", lambda: established(r.client, names), timeout=120)
    r.client.refresh()


def _namespace(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def _nodes(r: _Run, fleet: Fleet, cap: int | None) -> None:
    fake = nodes.nodes(fleet, cap)
    for node in fake:
        r.client.apply(node)
    config = r.write("kwok-stages.yaml", kwok.stages_text(gomodcache()))
    r.run("kwok", kwok.argv(r.engines.binary("kwok"), r.kubeconfig, config, r.state.ports["kwok"]))
    want = len(fake)
    r.steps.wait(f"{want} fake nodes Ready", lambda: _ready_nodes(r.client) >= want, timeout=120)


def _ready_nodes(kube: Kube) -> int:
    ready = 0
    for node in kube.list("v1", "Node"):
        conds = {c["type"]: c["status"] for c in node.get("status", {}).get("conditions", [])}
        ready += conds.get("Ready") == "True"
    return ready


def _serving_dir(r: _Run, name: str) -> Path:
    d = private_dir(private_dir(r.dir / "certs") / name)
    (d / "tls.crt").write_bytes(r.pki.serving_crt.read_bytes())
    write_private(d / "tls.key", r.pki.serving_key.read_bytes())
    return d


def _kueue(r: _Run, fleet: Fleet, options: Options) -> None:
    ports = {
        "webhook": r.state.ports["kueue_webhook"],
        "metrics": r.state.ports["kueue_metrics"],
        "health": r.state.ports["kueue_health"],
    }
    cfg = kueue.host_config(
        render_manager_config_yaml(fleet), ports, _serving_dir(r, "kueue-webhook"), options.pods_ready_timeout
    )
    config = r.write("kueue-config.yaml", yaml.safe_dump(cfg, sort_keys=False))
    r.run("kueue", kueue.argv(r.engines.binary("kueue"), config, _serving_dir(r, "kueue-metrics")))
    r.client.apply_all(kueue.webhook_configurations(gomodcache(), cfg, ports["webhook"], r.pki.ca_crt.read_bytes()))


def _volcano(r: _Run, fleet: Fleet, without: tuple[str, ...]) -> None:
    ns, e, s = fleet.engines.volcano.namespace, r.engines, r.state.ports
    ports = {
        "webhook": s["volcano_webhook"],
        "webhook_healthz": s["volcano_webhook_healthz"],
        "scheduler_healthz": s["volcano_scheduler_healthz"],
        "scheduler_metrics": s["volcano_scheduler_metrics"],
        "controller_healthz": s["volcano_controller_healthz"],
        "controller_metrics": s["volcano_controller_metrics"],
    }
    r.client.apply_all(volcano.config_maps(gomodcache(), ns))
    r.client.apply_all(
        volcano.webhook_configurations(gomodcache(), ports["webhook"], r.pki.ca_crt.read_bytes(), without)
    )
    r.run(
        "vc-webhook-manager",
        volcano.webhook_argv(
            e.binary("vc-webhook-manager"),
            r.kubeconfig,
            r.pki,
            volcano.enabled_admission(gomodcache(), without),
            ns,
            ports,
        ),
    )
    conf = r.write("volcano-scheduler.conf", render_scheduler_conf_yaml(fleet))
    r.run("vc-scheduler", volcano.scheduler_argv(e.binary("vc-scheduler"), r.kubeconfig, conf, ports))
    r.run("vc-controller-manager", volcano.controller_argv(e.binary("vc-controller-manager"), r.kubeconfig, ns, ports))


def _jobset(r: _Run, fleet: Fleet) -> None:
    s = r.state.ports
    ports = {"webhook": s["jobset_webhook"], "metrics": s["jobset_metrics"], "health": s["jobset_health"]}
    settings = fleet.workload_operators.declared()["jobset"]
    gates = {gate: True for gate in settings.feature_gates}
    cfg = jobset.host_config(ports, _serving_dir(r, "jobset-webhook"), _serving_dir(r, "jobset-metrics"), gates)
    config = r.write("jobset-config.yaml", yaml.safe_dump(cfg, sort_keys=False))
    r.run("jobset", jobset.argv(r.engines.binary("jobset"), config))
    r.client.apply_all(jobset.webhook_configurations(gomodcache(), ports["webhook"], r.pki.ca_crt.read_bytes()))


def _coscheduling(r: _Run, fleet: Fleet) -> None:
    config = r.write("coscheduling.yaml", coscheduling.scheduler_config(fleet, r.kubeconfig))
    port = r.state.ports["coscheduling"]
    r.run("coscheduling", coscheduling.argv(r.engines.binary("coscheduling"), config, port))


def _begin_controller(r: _Run, rendered, options: Options):
    """Start the controller first (it needs only its certificate and the fleet context, not the API server), so
    its Python start overlaps the control plane's; :func:`_controller` waits for it and registers it last."""
    context = r.write("fleet-context.json", context_json(rendered.context))
    if not options.controller:
        return None
    return r.begin(
        "gang-admission-controller", controller.argv(r.pki, context, r.state.ports["controller"], options.bench_echo)
    )


def _controller(r: _Run, fleet: Fleet, proc, options: Options) -> None:
    r.ready(proc)
    if not options.engines_only:
        port = r.state.ports["controller"]
        r.client.apply_all(controller.policies(fleet))
        r.client.apply_all(controller.webhook_configurations(fleet, port, r.pki.ca_crt.read_bytes()))


def _stack_config(r: _Run, options: Options) -> dict[str, str]:
    """The Pulumi stack config of a stack that applies the rest of this sandbox (``engines_only``)."""
    config = {"gpufleet:enginesInstalled": "true"}
    if options.controller:
        tls = _serving_dir(r, "controller")
        (tls / "ca.crt").write_bytes(r.pki.ca_crt.read_bytes())
        config["gpufleet:controllerUrl"] = f"https://127.0.0.1:{r.state.ports['controller']}"
        config["gpufleet:controllerTlsDir"] = str(tls)
    return config


def up(fleet: Fleet, model: str, directory: Path, options: Options = Options()) -> State:
    """Start (or reuse) the sandbox of ``fleet`` in ``directory``; on failure stop what started and re-raise."""
    reused = _reuse(directory)
    if reused is not None:
        return reused
    engines = locate(engines_needed(fleet))
    needs.mount_namespace()
    rendered = render_all(fleet)
    directory.mkdir(parents=True, exist_ok=True)
    r = _Run(directory, model, engines)
    return _started(r, lambda: _engines(r, fleet, rendered, options))


def _engines(r: _Run, fleet: Fleet, rendered, options: Options) -> None:
    """Every step of ``up`` after the PKI, in the order the module's docstring gives."""
    proc = _begin_controller(r, rendered, options)
    _control_plane(r, model_gates(fleet, options), fleet)
    _install_crds(r, fleet)
    namespaces = [fleet.engines.kueue.namespace] + ([] if options.engines_only else [fleet.controller.namespace])
    if fleet.engines.volcano.enabled:
        namespaces.append(fleet.engines.volcano.namespace)
    r.client.apply_all(_namespace(n) for n in namespaces)
    _nodes(r, fleet, options.node_cap)
    _kueue(r, fleet, options)
    if fleet.engines.volcano.enabled:
        _volcano(r, fleet, options.volcano_without)
    if fleet.pools_of("coscheduling"):
        _coscheduling(r, fleet)
    if "jobset" in operators_run(fleet):
        _jobset(r, fleet)
    if not options.engines_only:
        apply_rendered(r.client, (obj.manifest for obj in rendered.objects))
        r.steps.log("the rendered objects to apply: done")
    if proc is not None:
        _controller(r, fleet, proc, options)
    if options.engines_only:
        r.state.stack = _stack_config(r, options)


def _started(r: _Run, steps: Callable[[], None]) -> State:
    """Run ``steps`` and mark the sandbox ready; on any failure stop what started (keeping the folder) and re-raise."""
    try:
        steps()
        r.steps.log("ready")
        r.state.ready = True
        r.state.save()
        return r.state
    except BaseException:
        down(r.state, keep=True)
        raise


def control_plane(directory: Path, g: Gates = Gates(), fleet: Fleet | None = None) -> State:
    """Start etcd and the Kubernetes control plane only, in ``directory``: for a caller that needs an API
    server and no engine (the e2e tier's control-plane checks); its scheduler scores nodes as ``fleet``'s
    cluster does (the default profile without one); ``down`` stops it."""
    directory.mkdir(parents=True, exist_ok=True)
    r = _Run(directory, "", locate(["etcd", "kube"]))
    return _started(r, lambda: _control_plane(r, g, fleet))


def is_running(directory: Path) -> bool:
    state = load(directory)
    return state is not None and all(alive(p) for p in state.processes) and state.ready
