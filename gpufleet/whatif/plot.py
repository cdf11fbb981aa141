"""``gpufleet whatif --plot FILE.png``: the report as a picture (matplotlib, Agg backend, no display).

Left column: the fleet's GPU utilization over trace hours, allocated and useful (every
rank Running), base and new; per-team allocated share, base and new. Right column: each
team's queue-wait distribution (trace minutes), base and new, a job still waiting at the
horizon counted with its wait so far (a lower bound), and each side's horizon. Called by the
CLI after a replay; the numbers are :func:`gpufleet.whatif.metrics.utilization` and
:func:`gpufleet.whatif.metrics.wait` of the replay logs.
"""

from __future__ import annotations

from pathlib import Path

from gpufleet.whatif import metrics
from gpufleet.whatif.observed import ReplayLog


def _waits(log: ReplayLog, team: str) -> list[float]:
    """The team's waits in trace minutes, jobs still waiting at the horizon with their wait so far."""
    waits = (metrics.wait(job, log.horizon) for job in log.jobs if job.team == team)
    return [w.seconds / 60.0 for w in waits if w is not None]


def draw(base: ReplayLog, new: ReplayLog, path: Path) -> None:
    """Write the PNG (``OSError`` on a path that cannot be written passes to the CLI)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    teams = metrics.teams(base) or metrics.teams(new)
    fig, axes = plt.subplots(2, 2, figsize=(13, 8), constrained_layout=True)
    for log, style in ((base, "-"), (new, "--")):
        samples = metrics.utilization(log)
        hours = [t / 3600 for t, *_ in samples]
        axes[0][0].plot(hours, [a for _, a, _, _ in samples], style, label=f"{log.model}: allocated")
        axes[0][0].plot(hours, [u for _, _, u, _ in samples], style, label=f"{log.model}: useful", alpha=0.7)
        for team in teams:
            axes[1][0].plot(hours, [per.get(team, 0.0) for *_, per in samples], style, label=f"{team} ({log.model})")
    axes[0][0].set(title="fleet GPU utilization", xlabel="trace hours", ylabel="fraction of GPUs", ylim=(0, 1.05))
    axes[1][0].set(title="GPUs allocated per team", xlabel="trace hours", ylabel="fraction of fleet GPUs")
    waits = [(f"{team}\n{log.model}", _waits(log, team)) for team in teams for log in (base, new)]
    shown = [(name, w) for name, w in waits if w]
    if shown:
        axes[0][1].boxplot([w for _, w in shown], tick_labels=[n for n, _ in shown], orientation="horizontal")
    axes[0][1].set(title="queue wait per team (still waiting: wait so far)", xlabel="trace minutes")
    axes[1][1].axis("off")
    axes[1][1].text(
        0,
        1,
        f"base: {base.model}\nnew: {new.model}\ntime scale: {base.time_scale:g}\n"
        f"horizon: base {base.horizon / 3600:.2f}, new {new.horizon / 3600:.2f} trace hours\n"
        "solid: base, dashed: new",
        va="top",
        family="monospace",
    )
    for ax in (axes[0][0], axes[1][0]):
        ax.legend(fontsize="small")
    fig.savefig(path, dpi=110)
    plt.close(fig)
