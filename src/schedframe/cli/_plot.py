"""Plots of simulation results with matplotlib (the ``plot`` extra), imported lazily; the Agg
backend, so no display is needed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from ..errors import SchedframeError
from ..sim.results import SimResult

__all__ = ["LatencyCdf", "PlotError", "latency_cdf", "plot_results"]


class PlotError(SchedframeError, RuntimeError):
    """Plotting is not possible (matplotlib missing)."""


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise PlotError("plots need matplotlib: pip install 'schedframe[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


class LatencyCdf(NamedTuple):
    """The scheduling-latency CDF of one run, as plotted: the step at ``waits[i]`` reaches
    ``fractions[i]``; ``censored`` pods of the ``total`` were never bound (pending at the end, or
    deleted first), so the curve ends at ``1 - censored / total``, not at 1."""

    waits: tuple[float, ...]
    fractions: tuple[float, ...]
    censored: int
    total: int

    def label(self, config: str) -> str:
        """The legend entry: the configuration, and how many pods never bound."""
        if not self.censored:
            return config
        return f"{config} ({self.censored:,} of {self.total:,} never bound)"


def latency_cdf(result: SimResult) -> LatencyCdf:
    """The wait CDF of *result* over the pods its wait figures count (``Metrics.wait_*``): the
    pods created during the run that a profile schedules. A pod never bound is censored: it
    counts in the total but reaches no step."""
    unhandled = {k for keys in result.unhandled.values() for k in keys}
    counted = [p for p in result.pods if not p.initial and p.key not in unhandled]
    waits = sorted(p.wait for p in counted if p.wait is not None)
    total = len(counted)
    fractions = tuple((i + 1) / total for i in range(len(waits)))
    return LatencyCdf(tuple(waits), fractions, total - len(waits), total)


def plot_results(results: Sequence[SimResult], path: str) -> None:
    """Save a 2x2 figure to *path*: CPU and memory utilisation over time, pending pods over time,
    the CDF of scheduling latency, and (with several configurations) a side-by-side comparison of
    placed / pending pods and mean utilisation."""
    plt = _pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), constrained_layout=True)
    (util, pend), (cdf, comp) = axes
    for r in results:
        ts = [s.t for s in r.samples]
        util.plot(ts, [100 * s.utilisation("cpu") for s in r.samples], label=f"{r.config} cpu")
        util.plot(
            ts, [100 * s.utilisation("memory") for s in r.samples], linestyle="--", label=f"{r.config} memory"
        )
        if any(s.used for s in r.samples):  # simulated usage: CPU used on the busy nodes
            util.plot(ts, [100 * s.used.get("cpu_busy_mean", 0.0) for s in r.samples], linestyle=":",
                      label=f"{r.config} cpu used (busy nodes)")
        pend.step(ts, [s.pending for s in r.samples], where="post", label=r.config)
        curve = latency_cdf(r)
        if curve.total:
            # never-bound pods are censored: the curve stops short of 1 by their share
            steps_x = [0.0, *curve.waits] if curve.waits else [0.0, max(r.metrics.end, 1e-9)]
            steps_y = [0.0, *curve.fractions] if curve.waits else [0.0, 0.0]
            cdf.step(steps_x, steps_y, where="post", label=curve.label(r.config))
    util.set(title="Requested / allocatable", xlabel="simulated seconds", ylabel="%", ylim=(0, 105))
    pend.set(title="Pending pods", xlabel="simulated seconds", ylabel="pods")
    cdf.set(
        title="Scheduling latency (arrival to binding; never-bound pods censored)",
        xlabel="seconds",
        ylabel="fraction of pods",
        ylim=(0, 1.02),
    )
    for ax in (util, pend, cdf):
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    names = [r.config for r in results]
    xs = range(len(results))
    width = 0.38
    comp.bar([x - width / 2 for x in xs], [r.metrics.placed for r in results], width, label="placed")
    comp.bar([x + width / 2 for x in xs], [r.metrics.pending for r in results], width, label="pending")
    comp.set_xticks(list(xs), names)
    comp.set(title="Configurations", ylabel="pods")
    twin = comp.twinx()
    twin.plot(
        list(xs),
        [100 * r.metrics.utilisation_mean.get("cpu", 0.0) for r in results],
        "ko-",
        label="mean cpu %",
    )
    twin.set(ylabel="mean cpu utilisation %", ylim=(0, 105))
    comp.legend(loc="upper left", fontsize="small")
    twin.legend(loc="upper right", fontsize="small")
    title = results[0].scenario if results else ""
    fig.suptitle(f"{title} (seed {results[0].seed})" if results else title)
    fig.savefig(path, dpi=100)
    plt.close(fig)
