#!/usr/bin/python3
"""mcm2022 §5.2-5.3 in kind: Table 2 (test graphs, analytical model) and Table 3 (BERT-large in
the DES) from hetsim's convergence tables, with their plots.

  /usr/bin/python3 tools/mcm_rl_tables.py table2 --dataset out/mcm_pretrain \
      --checkpoint configs/checkpoints/mcm_rl.pt --samples 400 --out out/mcm_rl_table2
  /usr/bin/python3 tools/mcm_rl_tables.py table3 --run out/mcm_bert_rl

table2 writes one study per test graph of the dataset (workload = the graph's JSON, platform
mcm36, every placer scored by the §5.1 analytical model), runs `hetsim run` on it, and reads the
convergence_<placer>.csv files: after each sample, each method's best throughput so far over
mcm.greedy's, geometric mean over the graphs (Figure 5's curve). table3 reads a finished run of
configs/studies/mcm_bert_rl.yaml the same way, over greedy's simulated throughput (Figure 6).

The improvement levels of the tables are fixed by a rule stated before looking at the numbers:
the three levels are the lowest, the median and the highest of the five methods' final values,
each rounded down to 0.01 (so at least one method reaches each level; Table 2 and 3 of the
paper use levels their methods reach). A method's entry is the first sample at which its curve
reaches the level, and the reduction is RL-from-scratch's samples over the method's.
"""
import argparse
import concurrent.futures
import csv
import json
import math
import os
import statistics
import subprocess
import sys

METHODS = [
    ("Random", "mcm.random"),
    ("SA", "mcm.sa"),
    ("RL", "mcm.rl:checkpoint=none"),
    ("RL Zeroshot", "mcm.rl:zeroshot"),
    ("RL Finetuning", "mcm.rl:finetune"),
]


def file_safe(spec):
    return "".join(c if c.isalnum() or c in ".-" else "_" for c in spec)


def read_convergence(path):
    with open(path) as f:
        return [float(row["throughput_per_s"]) for row in csv.DictReader(f)]


def specs(samples, checkpoint, cost):
    extra = f",cost={cost}" if cost else ""
    return {
        "Random": f"mcm.random:samples={samples}{extra}",
        "SA": f"mcm.sa:samples={samples}{extra}",
        "RL": f"mcm.rl:checkpoint=none,samples={samples}{extra}",
        "RL Zeroshot": f"mcm.rl:checkpoint={checkpoint},finetune=0,samples={samples}{extra}",
        "RL Finetuning": f"mcm.rl:checkpoint={checkpoint},samples={samples}{extra}",
    }


def curve_over(values, unit, samples):
    """Best so far / unit after each of `samples` samples (the last value carried forward)."""
    out = []
    for k in range(samples):
        v = values[min(k, len(values) - 1)] if values else 0.0
        out.append(v / unit if unit > 0 else 0.0)
    return out


def levels_of(curves):
    finals = sorted(c[-1] for c in curves.values())
    pick = [finals[0], statistics.median(finals), finals[-1]]
    return [math.floor(x * 100) / 100 for x in pick]


def first_reaching(curve, level):
    for k, v in enumerate(curve):
        if v >= level - 1e-12:
            return k + 1
    return None


def table_markdown(curves, levels, what):
    head = "| | " + " | ".join(f"≥ {x:.2f}x" for x in levels) + " |\n"
    head += "|---|" + "---|" * len(levels) + "\n"
    rl = {x: first_reaching(curves["RL"], x) for x in levels}
    rows = ""
    for name, _ in METHODS:
        cells = []
        for x in levels:
            n = first_reaching(curves[name], x)
            if n is None:
                cells.append("N.A. (N.A.)")
            elif rl[x] is None:
                cells.append(f"{n} (RL N.A.)")
            else:
                cells.append(f"{n} ({rl[x] / n:.2f}x)")
        rows += f"| {name} | " + " | ".join(cells) + " |\n"
    finals = "\n".join(f"- {name}: {curves[name][-1]:.4f}x {what} after {len(curves[name])} samples"
                       for name, _ in METHODS)
    return head + rows + "\n" + finals + "\n"


def plot(curves, out_png, title, ylabel, bound=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, _ in METHODS:
        ax.plot(range(1, len(curves[name]) + 1), curves[name], label=name)
    if bound is not None:
        ax.axhline(bound, color="black", linestyle="--", label="mcm.bound (analytical)")
    ax.set_xlabel("samples")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out_png, dpi=120)


def write_curves(curves, path):
    with open(path, "w") as f:
        names = [n for n, _ in METHODS]
        f.write("sample," + ",".join(n.replace(" ", "_").lower() for n in names) + "\n")
        for k in range(len(curves["RL"])):
            f.write(f"{k + 1}," + ",".join(f"{curves[n][k]:.6f}" for n in names) + "\n")


def table2(args):
    manifest = json.load(open(os.path.join(args.dataset, "manifest.json")))
    tests = [g for g in manifest["graphs"] if g["split"] == "test"]
    if args.graphs:
        tests = tests[: args.graphs]
    platform = os.path.abspath(args.platform)
    checkpoint = os.path.abspath(args.checkpoint)
    s = specs(args.samples, checkpoint, None)
    per_graph = {name: [] for name, _ in METHODS}
    os.makedirs(args.out, exist_ok=True)
    run_methods = [m.strip() for m in args.methods.split(",")] if args.methods else \
        [n for n, _ in METHODS]
    unknown = [m for m in run_methods if m not in dict(METHODS)]
    if unknown:
        sys.exit(f"table2: unknown --methods {', '.join(unknown)}; known: " +
                 ", ".join(n for n, _ in METHODS))

    def run_graph(g):
        run_dir = os.path.join(args.out, g["name"])
        study = os.path.join(args.out, g["name"] + ".yaml")
        graph = os.path.abspath(os.path.join(args.dataset, g["file"]))
        def write_study(path, placers):
            with open(path, "w") as f:
                f.write(f"study: {g['name']}\nplatform: {platform}\nworkload: {{json: {graph}}}\n"
                        "objective: throughput\nevaluator: analytic\nbaseline: mcm.greedy\n"
                        "placers:\n" + "".join(f"  - {p}\n" for p in placers) +
                        f"seed: {args.seed}\n")
        write_study(study, ["mcm.greedy"] + [s[n] for n, _ in METHODS])
        # Only what is missing runs (a method's convergence table is its result), and only
        # the --methods asked for: the others can come from an earlier run of the same code,
        # samples and seed (copied in) or from a later invocation.
        todo = [n for n, _ in METHODS if n in run_methods and not os.path.exists(
            os.path.join(run_dir, f"convergence_{file_safe(s[n])}.csv"))]
        if not todo:
            return
        if len(todo) < len(METHODS):
            study = os.path.join(args.out, g["name"] + "_" + "_".join(map(file_safe, todo)) +
                                 ".yaml")
            write_study(study, ["mcm.greedy"] + [s[n] for n in todo])
        print(f"table2: {g['name']} ({g['nodes']} ops): {', '.join(todo)}", flush=True)
        done = subprocess.run([args.hetsim, "run", study, "--out", run_dir],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            # A placer that finds no valid partition fails the study: run each alone, and
            # count the one that fails as having no valid sample (a curve of zeros).
            print(f"  {done.stderr.strip()}; running the placers one by one", flush=True)
            for n in todo:
                one = os.path.join(args.out, f"{g['name']}_{file_safe(s[n])}.yaml")
                write_study(one, ["mcm.greedy", s[n]])
                subprocess.run([args.hetsim, "run", one, "--out", run_dir],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                table = os.path.join(run_dir, f"convergence_{file_safe(s[n])}.csv")
                if not os.path.exists(table):
                    # hetsim writes no folder when the study's first placer fails.
                    os.makedirs(run_dir, exist_ok=True)
                    # It failed alone too: no valid sample, recorded as an empty table so that
                    # the method counts as run (a curve of zeros).
                    with open(table, "w") as f:
                        f.write("sample,throughput_per_s,valid\n")

    # The graphs are independent runs: --jobs of them at a time (each hetsim is one thread).
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(run_graph, tests))
    if len(run_methods) < len(METHODS):
        missing = [f"{g['name']}: {n}" for g in tests for n, _ in METHODS if not os.path.exists(
            os.path.join(args.out, g["name"], f"convergence_{file_safe(s[n])}.csv"))]
        if missing:
            print(f"table2: ran {', '.join(run_methods)}; the table waits for " +
                  f"{len(missing)} more method runs (e.g. {missing[0]})")
            return
    for g in tests:
        run_dir = os.path.join(args.out, g["name"])
        greedy = read_convergence(os.path.join(run_dir, "convergence_mcm.greedy.csv"))[-1]
        for name, _ in METHODS:
            path = os.path.join(run_dir, f"convergence_{file_safe(s[name])}.csv")
            values = read_convergence(path) if os.path.exists(path) else []
            per_graph[name].append(curve_over(values, greedy, args.samples))
    # The geomean is over the graphs on which every method found a valid partition within the
    # budget (a method without one has throughput 0, which no geomean survives); the others
    # are listed with the methods that failed them.
    kept = [i for i in range(len(tests)) if all(per_graph[n][i][-1] > 0 for n, _ in METHODS)]
    dropped = [f"{tests[i]['name']} (no valid partition: " +
               ", ".join(n for n, _ in METHODS if per_graph[n][i][-1] <= 0) + ")"
               for i in range(len(tests)) if i not in kept]
    curves = {}
    for name, _ in METHODS:
        curves[name] = [
            math.exp(sum(math.log(max(per_graph[name][i][k], 1e-12)) for i in kept) / len(kept))
            for k in range(args.samples)]
    per_graph_finals = "\n".join(
        f"- {tests[i]['name']} ({tests[i]['nodes']} ops): " +
        ", ".join(f"{n} {per_graph[n][i][-1]:.3f}x" for n, _ in METHODS) for i in range(len(tests)))
    levels = levels_of(curves)
    text = (f"Table 2 in kind: {len(kept)} of {len(tests)} test graphs of {args.dataset}, "
            f"analytical model, {args.samples} samples per method, geomean throughput over "
            f"mcm.greedy; samples to reach each level (reduction vs RL from scratch)\n\n" +
            table_markdown(curves, levels, "geomean over greedy") +
            ("\nLeft out of the geomean: " + "; ".join(dropped) + "\n" if dropped else "") +
            "\nPer graph, after the budget:\n" + per_graph_finals + "\n")
    open(os.path.join(args.out, "table2.md"), "w").write(text)
    write_curves(curves, os.path.join(args.out, "table2_curves.csv"))
    plot(curves, os.path.join(args.out, "table2.png"),
         f"{len(tests)} test graphs, analytical model (Figure 5 in kind)",
         "geomean throughput over greedy")
    print(text)


def table3(args):
    rows = json.load(open(os.path.join(args.run, "results.json")))["rows"]
    by_placer = {r["placer"]: r for r in rows}
    greedy = by_placer["mcm.greedy"]
    unit = greedy["throughput_per_s"]  # greedy's simulated throughput (the DES)
    found = {}
    for r in rows:
        p = r["placer"]
        if p.startswith("mcm.random"):
            found["Random"] = p
        elif p.startswith("mcm.sa"):
            found["SA"] = p
        elif p.startswith("mcm.rl") and "checkpoint=none" in p:
            found["RL"] = p
        elif p.startswith("mcm.rl") and "finetune=0" in p:
            found["RL Zeroshot"] = p
        elif p.startswith("mcm.rl"):
            found["RL Finetuning"] = p
    missing = [n for n, _ in METHODS if n not in found]
    if missing:
        sys.exit(f"table3: the run lacks {', '.join(missing)}")
    curves = {}
    samples = max(int(by_placer[found[n]]["stats"]["samples"]) for n, _ in METHODS)
    for name, _ in METHODS:
        values = read_convergence(
            os.path.join(args.run, f"convergence_{file_safe(found[name])}.csv"))
        curves[name] = curve_over(values, unit, samples)
    bound = None
    stats = greedy.get("stats", {})
    if "bound_throughput_per_s" in stats:
        bound = float(stats["bound_throughput_per_s"]) / float(stats["analytic_throughput_per_s"])
    levels = levels_of(curves)
    text = ("Table 3 in kind: BERT-large on the simulated package (DES), throughput over "
            "mcm.greedy's simulated throughput; samples to reach each level (reduction vs RL "
            "from scratch)\n\n" + table_markdown(curves, levels, "greedy") +
            (f"- mcm.bound (analytical model, over greedy's analytical throughput): {bound:.4f}x\n"
             if bound else ""))
    open(os.path.join(args.run, "table3.md"), "w").write(text)
    write_curves(curves, os.path.join(args.run, "table3_curves.csv"))
    plot(curves, os.path.join(args.run, "table3.png"),
         "BERT-large in the DES (Figure 6 in kind)", "throughput over greedy", bound)
    print(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t2 = sub.add_parser("table2")
    t2.add_argument("--dataset", required=True)
    t2.add_argument("--checkpoint", default="configs/checkpoints/mcm_rl.pt")
    t2.add_argument("--platform", default="configs/platforms/mcm36.yaml")
    t2.add_argument("--samples", type=int, default=400)
    t2.add_argument("--graphs", type=int, default=0, help="only the first N test graphs")
    t2.add_argument("--methods", default="",
                    help="run only these methods (comma-separated names of the table); the "
                         "others' convergence tables must be in OUT already")
    t2.add_argument("--seed", type=int, default=1)
    t2.add_argument("--jobs", type=int, default=1, help="graphs run at a time (default 1)")
    t2.add_argument("--out", default="out/mcm_rl_table2")
    t2.add_argument("--hetsim", default="build/release/hetsim")
    t3 = sub.add_parser("table3")
    t3.add_argument("--run", default="out/mcm_bert_rl")
    args = ap.parse_args()
    table2(args) if args.cmd == "table2" else table3(args)


if __name__ == "__main__":
    main()
