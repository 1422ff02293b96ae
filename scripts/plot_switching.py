#!/usr/bin/python3
"""Plot the switching elements of a flexmb run (seed 004; docs/switching.md).

usage: /usr/bin/python3 scripts/plot_switching.py RUN.h5 [-o switching.png]
           [--speed-body wheel] [--gap C D] [--title TEXT]

One column of panels against time, in the style of seed 004, Figs. 12-15:
  (a) the mode of every element under /switches (one step line each, offset, labelled
      with the mode names from the dataset's `values` attribute);
  (b) the force of every ratchet (transmitted torque, seed Fig. 12);
  (c) the angular velocity of --speed-body (seed Fig. 13);
  (d) with --gap C D: the clearance between C and D, gap0 + (x_D - x_D0) - (x_C - x_C0),
      gap0 from the run's parameter `gap` (seed Fig. 14);
  (e) the force of every gap and dry_friction element (seed Fig. 15).
Needs h5py and matplotlib (/usr/bin/python3 has them). Writes a PNG.
"""
import argparse
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flexmb_results import records  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run")
    ap.add_argument("-o", "--output", default="switching.png")
    ap.add_argument("--speed-body", default="wheel")
    ap.add_argument("--gap", nargs=2, metavar=("C", "D"))
    ap.add_argument("--title", default=None)
    a = ap.parse_args()
    with h5py.File(a.run, "r") as f:
        if "switches" not in f:
            sys.exit(f"{a.run}: no /switches group (no switching elements in this run)")
        n = records(f)  # committed records (a killed run's file may hold more rows)
        t = f["time"][:n]
        sw = {}
        for name, g in f["switches"].items():
            vals = g["mode"].attrs.get("values", b"")
            vals = vals.decode() if isinstance(vals, bytes) else str(vals)
            sw[name] = dict(type=g.attrs.get("type", b""), mode=g["mode"][:n],
                            force=g["force"][:n], v=g["relative_velocity"][:n], values=vals)
            if isinstance(sw[name]["type"], bytes):
                sw[name]["type"] = sw[name]["type"].decode()
        speed = None
        if a.speed_body and f"bodies/{a.speed_body}" in f:
            speed = f[f"bodies/{a.speed_body}/qd"][:, 2]
        gap = None
        if a.gap:
            xc = f[f"bodies/{a.gap[0]}/pose"][:, 0]
            xd = f[f"bodies/{a.gap[1]}/pose"][:, 0]
            gap0 = float(f["parameters"].attrs.get("gap", 0.0)) if "parameters" in f else 0.0
            gap = gap0 + (xd - xd[0]) - (xc - xc[0])
    panels = ["modes", "ratchet"] + (["speed"] if speed is not None else []) + \
        (["gap"] if gap is not None else []) + ["contact"]
    fig, axes = plt.subplots(len(panels), 1, sharex=True, figsize=(8, 2.2 * len(panels)))
    for ax, p in zip(axes, panels):
        if p == "modes":
            for k, (name, s) in enumerate(sw.items()):
                ax.step(t, s["mode"] + 3 * k, where="post", label=f"{name} ({s['values']})")
            ax.set_ylabel("mode (offset 3 per element)")
            ax.legend(fontsize=6, loc="upper right")
        elif p == "ratchet":
            for name, s in sw.items():
                if s["type"] == "ratchet":
                    ax.plot(t, s["force"], label=name)
            ax.set_ylabel("ratchet force\n(N m; <0: drives body 2)")
            ax.legend(fontsize=7)
        elif p == "speed":
            ax.plot(t, speed)
            ax.set_ylabel(f"{a.speed_body} omega (rad/s)")
        elif p == "gap":
            ax.plot(t, 1e3 * gap)
            ax.set_ylabel(f"gap {a.gap[0]}-{a.gap[1]} (mm)")
        else:
            for name, s in sw.items():
                if s["type"] in ("gap", "dry_friction"):
                    ax.plot(t, s["force"], label=f"{name} ({s['type']})")
            ax.set_ylabel("force (N)")
            ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("t (s)")
    if a.title:
        axes[0].set_title(a.title)
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
