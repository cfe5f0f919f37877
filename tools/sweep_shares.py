#!/usr/bin/python3
"""Where a placer put the work at each design point of a sweep.

    /usr/bin/python3 tools/sweep_shares.py OUT_DIR [--placer lee2022.als] [--device PIM]

Reads OUT_DIR/results.jsonl (`hetsim sweep`) and prints, per design point in the sweep's order,
the axis values, the placer's latency and speed-up, and the share of ops and of FLOPs each device
got (from the `ops_by_device` / `flops_by_device` of every study row). With --device, one
column pair for that device only, and a summary of how its share moves along each axis.
"""
import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--placer", default="lee2022.als")
    parser.add_argument("--device", default=None, help="one device's share (e.g. PIM)")
    args = parser.parse_args()
    jsonl = args.out_dir / "results.jsonl"
    if not jsonl.exists():
        sys.exit(f"sweep_shares.py: error: {jsonl} does not exist (run `hetsim sweep` first)")
    rows = [json.loads(line) for line in jsonl.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r.get("status") == "ok" and r.get("placer") == args.placer]
    if not rows:
        sys.exit(f"sweep_shares.py: error: no ok row of placer '{args.placer}' in {jsonl}")
    axes = list(rows[0]["axes"].keys())
    devices = list(rows[0]["ops_by_device"].keys())
    shown = [args.device] if args.device else devices
    for d in shown:
        if d not in devices:
            sys.exit(f"sweep_shares.py: error: no device '{d}' (devices: {', '.join(devices)})")
    short = [a.rsplit(".", 1)[-1] for a in axes]
    header = short + ["latency_ms", "speedup"]
    for d in shown:
        header += [f"{d}_ops_%", f"{d}_flops_%"]
    print("\t".join(header))
    by_axis = defaultdict(lambda: defaultdict(list))
    for r in rows:
        ops_total = sum(r["ops_by_device"].values()) or 1
        flops_total = sum(r["flops_by_device"].values()) or 1.0
        cells = [str(r["axes"][a]) for a in axes]
        cells += [f"{1e3 * r['latency_s']:.3f}", f"{r['speedup']:.2f}"]
        for d in shown:
            ops = 100.0 * r["ops_by_device"][d] / ops_total
            flops = 100.0 * r["flops_by_device"][d] / flops_total
            cells += [f"{ops:.1f}", f"{flops:.1f}"]
            for a in axes:
                by_axis[(a, d)][str(r["axes"][a])].append(flops)
        print("\t".join(cells))
    if args.device:
        print(f"\nmean {args.device} FLOP share of {args.placer} per axis value:")
        for a in axes:
            values = by_axis[(a, args.device)]
            parts = [f"{v}: {sum(s) / len(s):.1f} %" for v, s in values.items()]
            print(f"  {a}: " + ", ".join(parts))


if __name__ == "__main__":
    main()
