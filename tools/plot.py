#!/usr/bin/python3
"""Plots of a `hetsim sweep` output directory.

Usage:
  /usr/bin/python3 tools/plot.py DIR_OR_results.csv [--out PLOTDIR] [--pareto COL_X,COL_Y]
                                 [--x AXIS] [--heatmap AXIS_X,AXIS_Y] [--context FILE.json]
                                 [--dump-data FILE.json]

Reads DIR/results.csv (one row per design point x placer) and DIR/sweep.json (the axes; without
it, every column after `error` is an axis) and writes into PLOTDIR (default DIR/plots):

  axis_<axis>.png      per axis: latency_s and throughput_per_s against the axis, one line per
                       placer. When other axes vary too, every row is a faint marker and the line
                       goes through the geometric mean of the rows at each x. Log x scale when a
                       numeric axis spans more than 20x.
  heatmap_<x>_vs_<y>.png  (--heatmap, needs --context) per cell of the two axes: the best
                       placer's metric (left) and its speedup over the baseline, with its name
                       (right). When other axes vary, a cell is the geometric mean over its points
                       and names the placer that is best at most of them.
  pareto_<x>_vs_<y>.png  every row as a point in (COL_X, COL_Y), the non-dominated front
                       highlighted, connected and annotated with its placers. Drawn only when the
                       rows show a trade-off: not when one column is a monotone function of the
                       other over the rows (throughput = 1/latency), nor when one row is at least
                       as good as every other in both; the dump says why ("pareto_skipped").

Only rows with status `ok` and feasible = 1 are plotted; the others are counted as skipped (in
the captions and on stdout). Axis values are numbers or quantities with a unit as written in
YAML ("1 GB/s", "32 MiB", "1.5 ns"); a quantity is plotted in its SI base unit (B/s, B, Hz, s)
and the axis is labelled with it. An axis with a value that is not a number is categorical, in
order of first appearance.

--pareto: columns ending in `_s` (seconds, not `_per_s`) are minimised and every other column
maximised, unless the column carries an explicit `min:` or `max:` prefix
(--pareto min:latency_s,max:throughput_per_s).
--x AXIS draws the line figure of AXIS only (default: one per axis).
--context FILE.json is written by `hetsim report` (tools/app/report.cpp, which owns both): the
readable label and unit of each column, {"labels": {column: {"label", "unit"}}}, and each
point's best placer, {"best": {point: {"placer", "metric", "value", "speedup"}}}. Without it,
axes are labelled with the column names.
--dump-data writes exactly the numbers each figure plots, for tests (see dump layout in
`main`). Prints the path of every PNG written. Exits 2 with a one-line message on bad input.
"""
import argparse
import csv
import json
import math
import os
import re
import sys

PANELS = ("latency_s", "throughput_per_s")
REQUIRED_COLUMNS = ("point", "placer", "status", "feasible") + PANELS
LOG_SPAN = 20.0  # a numeric axis spanning more than this ratio gets a log scale
FEW_FRONT_POINTS = 8  # up to this many front points are annotated with their point ids too


class InputError(Exception):
    """Bad input: main() prints it on one line and exits 2."""


# Readable labels and units of the columns, {column: {"label", "unit"}}, from --context.
LABELS = {}


def column_label(column, unit=None, fallback_unit=""):
    """'latency (ms)': the column's label from --context (its name without one) and a unit: the
    one given (a display prefix), else the context's, else `fallback_unit`."""
    entry = LABELS.get(column, {})
    text = entry.get("label") or column
    if unit is None:
        unit = entry.get("unit") or fallback_unit
    return f"{text} ({unit})" if unit else text


def time_scale(values):
    """(factor, unit) to show seconds in: the largest unit in which the biggest value is >= 1."""
    top = max((abs(v) for v in values), default=0.0)
    for factor, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "\u00b5s")):
        if top >= factor:
            return factor, unit
    return 1e-9, "ns"


# ---------------------------------------------------------------------------------------------
# Quantities: the unit spellings of sim/units.cpp, each mapped to (label of the SI base unit,
# factor to it). A value is plotted as number * factor.

def _unit_table():
    table = {}
    decimal = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
    binary = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50}

    def add(base, label, factor, with_binary):
        for prefix, scale in decimal.items():
            table[prefix + base] = (label, scale * factor, False)
        if with_binary:
            for prefix, scale in binary.items():
                table[prefix + base] = (label, scale * factor, True)

    for name, factor in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("\u00b5s", 1e-6),
                         ("\u03bcs", 1e-6), ("ns", 1e-9), ("ps", 1e-12)):
        table[name] = ("s", factor, False)
    add("Hz", "Hz", 1.0, False)
    add("B/s", "B/s", 1.0, True)
    add("bit/s", "B/s", 1 / 8, True)
    add("b/s", "B/s", 1 / 8, False)
    add("bps", "B/s", 1 / 8, False)
    add("B", "B", 1.0, True)
    add("bit", "B", 1 / 8, True)
    add("bits", "B", 1 / 8, True)
    add("b", "B", 1 / 8, False)
    add("FLOP/s", "FLOP/s", 1.0, False)
    add("FLOPS", "FLOP/s", 1.0, False)
    add("OP/s", "OP/s", 1.0, False)
    add("OPS", "OP/s", 1.0, False)
    add("/s", "1/s", 1.0, False)
    table["1/s"] = ("1/s", 1.0, False)
    return table


UNITS = _unit_table()
NUMBER_RE = re.compile(r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(\S*)\s*$")


def parse_quantity(text):
    """'1 GB/s' -> (1e9, 'B/s', False); '16' -> (16.0, '', False); None if not a number.

    The third field says the value was written with a binary prefix (KiB, MiB, ...)."""
    match = NUMBER_RE.match(text)
    if not match:
        return None
    number, unit = float(match.group(1)), match.group(2)
    if not unit:
        return (number, "", False)
    if unit not in UNITS:
        return None
    label, factor, is_binary = UNITS[unit]
    return (number * factor, label, is_binary)


def parse_number(text):
    """A CSV number (or quantity) as a float in SI units; None when empty or not a number."""
    parsed = parse_quantity(text or "")
    if parsed is None or not math.isfinite(parsed[0]):
        return None
    return parsed[0]


class Axis:
    """One swept column: numeric (SI values, a unit label) or categorical (labels in order)."""

    def __init__(self, name, raw_values):
        self.name = name
        present = [v for v in raw_values if v != ""]
        parsed = [parse_quantity(v) for v in present]
        units = {p[1] for p in parsed if p is not None and p[1]}
        self.numeric = bool(present) and all(p is not None for p in parsed) and len(units) <= 1
        self.unit = next(iter(units)) if self.numeric and units else ""
        self.binary = self.numeric and any(p[2] for p in parsed)
        self.categories = []
        self.raw = {}  # numeric: SI value -> the cell as first written ("1 GB/s"), for ticks
        if self.numeric:
            for v in present:
                self.raw.setdefault(parse_quantity(v)[0], v)
        else:
            for v in present:
                if v not in self.categories:
                    self.categories.append(v)

    def value(self, text):
        """The plotted x of a cell: SI float (numeric) or the label itself (categorical)."""
        if text == "":
            return None
        return parse_quantity(text)[0] if self.numeric else text

    def label(self):
        return column_label(self.name, fallback_unit=self.unit)


# ---------------------------------------------------------------------------------------------
# Reading the sweep.

def file_safe(text):
    """hetsim's file_safe (tools/app/study.cpp): every character but [A-Za-z0-9.-_] -> '_'."""
    return "".join(c if (c.isascii() and c.isalnum()) or c in ".-_" else "_" for c in text)


def load_sweep(target):
    """(csv path, sweep.json dict or {}, header, rows) for a directory or a results.csv."""
    csv_path = os.path.join(target, "results.csv") if os.path.isdir(target) else target
    if not os.path.isfile(csv_path):
        raise InputError(f"{csv_path}: no such file (expected a sweep directory or results.csv)")
    meta = {}
    meta_path = os.path.join(os.path.dirname(csv_path), "sweep.json")
    if os.path.isfile(meta_path):
        try:
            with open(meta_path, encoding="utf-8") as f:
                meta = json.load(f)
        except (OSError, ValueError) as e:
            raise InputError(f"{meta_path}: cannot read: {e}") from None
    try:
        with open(csv_path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames or []
            rows = [{k: (v or "") for k, v in row.items() if k is not None} for row in reader]
    except (OSError, csv.Error, UnicodeDecodeError) as e:
        raise InputError(f"{csv_path}: cannot read: {e}") from None
    for column in REQUIRED_COLUMNS:
        if column not in header:
            raise InputError(f"{csv_path}: missing column '{column}'")
    return csv_path, meta, header, rows


def axis_names(csv_path, meta, header):
    """sweep.json's axes, else every column after `error`."""
    if meta.get("axes") is not None:
        names = list(meta["axes"])
    elif "error" in header:
        names = header[header.index("error") + 1:]
    else:
        raise InputError(f"{csv_path}: missing column 'error' (and no sweep.json naming the axes)")
    for name in names:
        if name not in header:
            raise InputError(f"{csv_path}: missing column '{name}' (an axis in sweep.json)")
    return names


def is_plottable(row):
    """status ok, feasible, and both panel numbers finite."""
    return (row["status"] == "ok" and row["feasible"].strip() == "1"
            and all(parse_number(row[c]) is not None for c in PANELS))


def skip_counts(rows):
    failed_points = {r["point"] for r in rows if r["status"] != "ok"}
    failed_rows = sum(1 for r in rows if r["status"] != "ok")
    infeasible = sum(1 for r in rows if r["status"] == "ok" and r["feasible"].strip() != "1")
    bad_numbers = sum(1 for r in rows if r["status"] == "ok" and r["feasible"].strip() == "1"
                      and not is_plottable(r))
    return {"failed_points": len(failed_points), "failed_rows": failed_rows,
            "infeasible_rows": infeasible, "non_numeric_rows": bad_numbers,
            "rows": failed_rows + infeasible + bad_numbers}


def skip_note(skipped):
    if skipped["rows"] == 0:
        return "all rows plotted"
    parts = []
    if skipped["failed_points"]:
        n = skipped["failed_points"]
        parts.append(f"{n} failed point{'s' if n != 1 else ''}")
    if skipped["infeasible_rows"]:
        n = skipped["infeasible_rows"]
        parts.append(f"{n} infeasible placement{'s' if n != 1 else ''}")
    if skipped["non_numeric_rows"]:
        n = skipped["non_numeric_rows"]
        parts.append(f"{n} row{'s' if n != 1 else ''} without numbers")
    n = skipped["rows"]
    return f"skipped {n} row{'s' if n != 1 else ''}: " + ", ".join(parts)


# ---------------------------------------------------------------------------------------------
# The numbers of the figures (no matplotlib here, so the dump is exactly what is drawn).

def geometric_mean(values):
    """Geometric mean; the arithmetic mean when a value is not positive (log undefined)."""
    if len(values) == 1:
        return values[0]  # exactly the row's number, not exp(log(v))
    if all(v > 0 for v in values):
        return math.exp(sum(math.log(v) for v in values) / len(values))
    return sum(values) / len(values)


def axis_series(axis, rows, placers):
    """Per panel, per placer: the mean line and every row. x is SI (numeric) or a label."""
    others_vary = False
    panels = {}
    for column in PANELS:
        series = []
        for placer in placers:
            groups = {}
            for row in rows:
                x = axis.value(row[axis.name])
                if row["placer"] != placer or x is None:
                    continue
                groups.setdefault(x, []).append(parse_number(row[column]))
            if not groups:
                continue
            if axis.numeric:
                xs = sorted(groups)
            else:
                xs = [c for c in axis.categories if c in groups]
            others_vary = others_vary or any(len(v) > 1 for v in groups.values())
            series.append({
                "placer": placer,
                "x": xs,
                "y": [geometric_mean(groups[x]) for x in xs],
                "rows": {"x": [x for x in xs for _ in groups[x]],
                         "y": [y for x in xs for y in groups[x]]},
            })
        panels[column] = series
    # The faint per-row markers are drawn (and dumped) only when other axes vary.
    for series in panels.values():
        for s in series:
            s["markers"] = s.pop("rows") if others_vary else None
    return panels, others_vary


def is_time_column(column):
    """latency_s, placer_time_s: seconds, lower is better; throughput_per_s is a rate."""
    return column.endswith("_s") and not column.endswith("_per_s")


def parse_pareto(spec):
    """'min:latency_s,throughput_per_s' -> [('latency_s', 'min'), ('throughput_per_s', 'max')]."""
    parts = [p.strip() for p in spec.split(",")]
    if len(parts) != 2 or not all(parts):
        raise InputError(f"--pareto: expected two columns COL_X,COL_Y, got '{spec}'")
    out = []
    for part in parts:
        sense = None
        if part.startswith(("min:", "max:")):
            sense, part = part[:3], part[4:]
        if sense is None:
            sense = "min" if is_time_column(part) else "max"
        out.append((part, sense))
    return out


def pareto_front(points, senses):
    """Indices of the non-dominated points. p dominates q when p is no worse in both columns and
    strictly better in one; equal points do not dominate each other (both stay on the front)."""
    def better_eq(a, b, sense):
        return a <= b if sense == "min" else a >= b

    front = []
    for i, (xi, yi) in enumerate(points):
        dominated = False
        for j, (xj, yj) in enumerate(points):
            if j == i:
                continue
            if (better_eq(xj, xi, senses[0]) and better_eq(yj, yi, senses[1])
                    and (xj, yj) != (xi, yi)):
                dominated = True
                break
        if not dominated:
            front.append(i)
    return front


def is_monotone_function(points, a, b):
    """Whether p[b] is a monotone (non-strict) function of p[a] over the points."""
    by_a = {}
    for p in points:
        if by_a.setdefault(p[a], p[b]) != p[b]:
            return False  # two rows with the same a and different b
    values = [by_a[k] for k in sorted(by_a)]
    pairs = list(zip(values, values[1:]))
    return all(u <= v for u, v in pairs) or all(u >= v for u, v in pairs)


def pareto_skip_reason(points, front, columns):
    """Why the rows show no trade-off in the two columns (then no Pareto plot), or None."""
    cx, cy = (column_label(c, "") for c, _ in columns)
    distinct = {(p["x"], p["y"]) for p in points}
    if len(distinct) < 2:
        return f"all {len(points)} plotted rows have the same {cx} and {cy}"
    # With two distinct rows any relation is monotone; from three on it says something.
    if len(distinct) >= 3:
        for a, b, ca, cb in (("x", "y", cx, cy), ("y", "x", cy, cx)):
            if is_monotone_function(points, a, b):
                return (f"{cb} is a monotone function of {ca} over the {len(points)} plotted "
                        f"rows (as throughput = 1/latency is), so ranking by one ranks by the "
                        f"other")
    if len({(p["x"], p["y"]) for p in front}) == 1:
        best = front[0]
        return (f"{best['placer']} at point {best['point']} is at least as good as every other "
                f"row in both {cx} and {cy}")
    return None


def pareto_data(rows, columns):
    (cx, sx), (cy, sy) = columns
    points = []
    for row in rows:
        x, y = parse_number(row[cx]), parse_number(row[cy])
        if x is not None and y is not None:
            points.append({"point": row["point"], "placer": row["placer"], "x": x, "y": y})
    front = pareto_front([(p["x"], p["y"]) for p in points], (sx, sy))
    front_points = sorted((points[i] for i in front), key=lambda p: (p["x"], p["y"]))
    return points, front_points


# ---------------------------------------------------------------------------------------------
# Drawing.

def binary_formatter(unit):
    """Tick labels with binary prefixes: 33554432 B -> '32 MiB'."""
    from matplotlib.ticker import FuncFormatter

    def fmt(value, _pos):
        for prefix, scale in (("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20),
                              ("Ki", 2**10)):
            if abs(value) >= scale:
                return f"{value / scale:g} {prefix}{unit}"
        return f"{value:g} {unit}"
    return FuncFormatter(fmt)


def style_x(ax, axis, xs_all):
    """Scale, ticks and tick labels of an axis figure's x."""
    from matplotlib.ticker import EngFormatter, NullFormatter

    if not axis.numeric:
        ax.set_xticks(range(len(axis.categories)))
        ax.set_xticklabels(axis.categories, rotation=30 if len(axis.categories) > 4 else 0,
                           ha="right" if len(axis.categories) > 4 else "center")
        return False
    positive = [x for x in xs_all if x > 0]
    log_x = (len(positive) == len(xs_all) and positive
             and max(positive) / min(positive) > LOG_SPAN)
    if log_x:
        ax.set_xscale("log")
    distinct = sorted(set(xs_all))
    if axis.unit:
        ax.xaxis.set_major_formatter(binary_formatter(axis.unit) if axis.binary
                                     else EngFormatter(unit=axis.unit, sep=" "))
    elif log_x:
        ax.xaxis.set_major_formatter(EngFormatter(sep=""))
    if len(distinct) <= 12:
        ax.set_xticks(distinct)  # the swept values themselves, when few
        ax.xaxis.set_minor_formatter(NullFormatter())
    return bool(log_x)


def placer_colors(placers):
    import matplotlib.pyplot as plt

    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    return {p: cycle[i % len(cycle)] for i, p in enumerate(placers)}


def draw_axis_figure(plt, axis, panels, others_vary, colors, note, out_png):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6))
    handles = {}
    log_x = False
    for ax, column in zip(axes, PANELS):
        xs_all = []
        # Seconds in one readable unit (the label says which), rates with engineering prefixes.
        scale, unit = 1.0, None
        if column == "latency_s":
            scale, unit = time_scale([y for s in panels[column] for y in s["y"]])
        for s in panels[column]:
            color = colors[s["placer"]]
            pos = (lambda xs: xs) if axis.numeric else (
                lambda xs: [axis.categories.index(x) for x in xs])
            if s["markers"] is not None:
                ax.scatter(pos(s["markers"]["x"]), [y / scale for y in s["markers"]["y"]], s=16,
                           alpha=0.35, color=color, linewidths=0)
            (line,) = ax.plot(pos(s["x"]), [y / scale for y in s["y"]], marker="o",
                              markersize=4, color=color, label=s["placer"])
            handles[s["placer"]] = line
            xs_all += s["x"]
        log_x = style_x(ax, axis, xs_all) or log_x
        ax.set_xlabel(axis.label())
        ax.set_ylabel(column_label(column, unit))
        if column != "latency_s":
            ax.yaxis.set_major_formatter(_eng(""))
        ax.grid(True, which="major", alpha=0.3)
    mean = "lines: geometric mean over the other axes, faint markers: single rows; " \
        if others_vary else ""
    fig.suptitle(f"latency and throughput vs {column_label(axis.name, unit='')}")
    fig.text(0.5, 0.01, f"{mean}{note}", ha="center", va="bottom", fontsize=8,
             color="dimgray")
    fig.legend(list(handles.values()), list(handles.keys()), loc="upper center",
               bbox_to_anchor=(0.5, 0.945), ncol=min(len(handles), 4), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.04, 1, 0.89))
    fig.savefig(out_png, dpi=110)
    plt.close(fig)
    return log_x


def _eng(unit):
    from matplotlib.ticker import EngFormatter
    return EngFormatter(unit=unit, sep=" ")


def _unit_of(column):
    return "s" if is_time_column(column) else ("/s" if column.endswith("_per_s") else "")


def draw_pareto(plt, columns, points, front, colors, note, out_png):
    (cx, sx), (cy, sy) = columns
    fig, ax = plt.subplots(figsize=(7.5, 5.5))
    by_placer = {}
    for p in points:
        by_placer.setdefault(p["placer"], []).append(p)
    for placer, pts in by_placer.items():
        ax.scatter([p["x"] for p in pts], [p["y"] for p in pts], s=20, alpha=0.6,
                   color=colors.get(placer, "gray"), label=placer, linewidths=0)
    ax.plot([p["x"] for p in front], [p["y"] for p in front], color="black", linewidth=1.2,
            zorder=3, label="Pareto front")
    ax.scatter([p["x"] for p in front], [p["y"] for p in front], s=60, facecolors="none",
               edgecolors="black", linewidths=1.4, zorder=4)
    with_ids = len(front) <= FEW_FRONT_POINTS
    for p in front:
        text = f"{p['placer']} ({p['point']})" if with_ids else p["placer"]
        ax.annotate(text, (p["x"], p["y"]), textcoords="offset points", xytext=(6, 4),
                    fontsize=7)
    for setter, column in ((ax.xaxis, cx), (ax.yaxis, cy)):
        unit = _unit_of(column)
        if unit:
            setter.set_major_formatter(_eng(unit))
    arrow = {"min": "lower is better", "max": "higher is better"}
    # Ticks with a unit ("2 ms") leave it out of the label.
    ax.set_xlabel(f"{column_label(cx, '' if _unit_of(cx) else None)}, {arrow[sx]}")
    ax.set_ylabel(f"{column_label(cy, '' if _unit_of(cy) else None)}, {arrow[sy]}")
    ax.set_title(f"Pareto front: {sx} {column_label(cx, unit='')}, "
                 f"{sy} {column_label(cy, unit='')}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.text(0.5, 0.01, f"{len(front)} of {len(points)} rows on the front; {note}",
             ha="center", va="bottom", fontsize=8, color="dimgray")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(out_png, dpi=110)
    plt.close(fig)


def heatmap_data(x_axis, y_axis, rows, best):
    """The cells of two axes, each {"x", "y", "points", "value", "speedup", "placer", "wins"}:
    the geometric means over the cell's points with a best placer of its metric and speedup
    (None when no point there has one, e.g. all failed), and the placer best at most of them
    (the first to reach the count on a tie), best at `wins` of them."""
    at = {}  # (x, y) -> points, in order of first appearance
    for row in rows:
        x, y = x_axis.value(row[x_axis.name]), y_axis.value(row[y_axis.name])
        if x is not None and y is not None:
            points = at.setdefault((x, y), [])
            if row["point"] not in points:
                points.append(row["point"])

    def ordered(axis, values):
        return sorted(values) if axis.numeric else [c for c in axis.categories if c in values]

    xs = ordered(x_axis, {k[0] for k in at})
    ys = ordered(y_axis, {k[1] for k in at})
    cells = []
    for y in ys:
        for x in xs:
            points = at.get((x, y), [])
            bests = [best[p] for p in points if p in best]
            cell = {"x": x, "y": y, "points": len(points), "value": None, "speedup": None,
                    "placer": None, "wins": 0}
            if bests:
                cell["value"] = geometric_mean([b["value"] for b in bests])
                speedups = [b["speedup"] for b in bests if b.get("speedup") is not None]
                cell["speedup"] = geometric_mean(speedups) if speedups else None
                wins = {}
                for b in bests:
                    wins[b["placer"]] = wins.get(b["placer"], 0) + 1
                cell["placer"] = max(wins, key=lambda p: wins[p])  # first of the most
                cell["wins"] = wins[cell["placer"]]
            cells.append(cell)
    return xs, ys, cells


def draw_heatmap(plt, x_axis, y_axis, xs, ys, cells, metric, others_vary, note, out_png):
    import numpy as np

    fig_w = max(9.0, 2.0 + 1.3 * len(xs) * 2)
    fig, axes = plt.subplots(1, 2, figsize=(min(fig_w, 16.0), max(3.6, 1.6 + 0.55 * len(ys))))
    latency = metric == "latency_s"
    scale, unit = time_scale([c["value"] for c in cells if c["value"] is not None]) \
        if latency else (1.0, None)
    annotate = len(xs) * len(ys) <= 100
    grids = []
    for key in ("value", "speedup"):
        grid = np.full((len(ys), len(xs)), np.nan)
        for c in cells:
            if c[key] is not None:
                grid[ys.index(c["y"]), xs.index(c["x"])] = c[key] / (scale if key == "value"
                                                                     else 1.0)
        grids.append(grid)
    titles = (f"best {column_label(metric, '')}" + (" (lower is better)" if latency
                                                    else " (higher is better)"),
              "best placer and its speedup over the baseline")
    for ax, grid, title, cmap in zip(axes, grids, titles,
                                     ("viridis_r" if latency else "viridis", "Greens")):
        image = ax.imshow(np.ma.masked_invalid(grid), origin="lower", aspect="auto", cmap=cmap)
        ax.set_facecolor("#e8e8e8")  # cells without a result
        bar = fig.colorbar(image, ax=ax, fraction=0.05, pad=0.02)
        bar.set_label(column_label(metric, unit) if grid is grids[0] else "speedup (\u00d7)")
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([tick_text(x_axis, x) for x in xs],
                           rotation=30 if len(xs) > 5 else 0, ha="right" if len(xs) > 5
                           else "center", fontsize=8)
        ax.set_yticks(range(len(ys)))
        ax.set_yticklabels([tick_text(y_axis, y) for y in ys], fontsize=8)
        ax.set_xlabel(x_axis.label())
        ax.set_ylabel(y_axis.label())
        ax.set_title(title, fontsize=10)
        if not annotate:
            continue
        low, high = (np.nanmin(grid), np.nanmax(grid)) if np.isfinite(grid).any() else (0, 0)
        for c in cells:
            i, j = ys.index(c["y"]), xs.index(c["x"])
            if c["value"] is None:
                ax.text(j, i, "no result", ha="center", va="center", fontsize=7, color="dimgray")
                continue
            if grid is grids[0]:
                text = f"{c['value'] / scale:.3g}"
            else:
                text = c["placer"] + (f"\n{c['speedup']:.2f}\u00d7" if c["speedup"] is not None
                                      else "")
            v = grid[i, j]
            # Dark text on the light end of the colour map, white on the dark end.
            level = (v - low) / (high - low) if high > low else 0.5
            dark_cell = level < 0.4 if (grid is grids[0] and not latency) else level > 0.6
            ax.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="white" if dark_cell else "black")
    mean = "cells: geometric mean over the other axes; names: best at most points; " \
        if others_vary else ""
    fig.suptitle(f"{column_label(y_axis.name, '')} vs {column_label(x_axis.name, '')}")
    fig.text(0.5, 0.01, f"{mean}{note}", ha="center", va="bottom", fontsize=8, color="dimgray")
    fig.tight_layout(rect=(0, 0.04, 1, 0.95))
    fig.savefig(out_png, dpi=110)
    plt.close(fig)


def tick_text(axis, value):
    """A tick label of an axis value: the cell as the CSV writes it ("1 GB/s")."""
    if not axis.numeric:
        return value
    return axis.raw.get(value, f"{value:g}")


# ---------------------------------------------------------------------------------------------

def draw_leaderboards(plt, leaderboard_csv, out_dir):
    """One horizontal bar chart per study of a `hetsim compare` leaderboard: its ok placers
    sorted by result, best at the top. Returns the dump entries {"kind": "leaderboard", "file",
    "study", "metric", "bars": [{"placer", "value"}]}."""
    with open(leaderboard_csv, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    studies = []
    for r in rows:
        if r["study"] not in studies:
            studies.append(r["study"])
    figures = []
    for study in studies:
        ok = [r for r in rows if r["study"] == study and r["status"] == "ok" and r["rank"]]
        if not ok:
            continue
        ok.sort(key=lambda r: int(r["rank"]))
        throughput = ok[0]["objective"] == "throughput"
        metric = "throughput_per_s" if throughput else "latency_s"
        bars = [{"placer": r["placer"], "value": float(r[metric])} for r in ok]
        height = max(2.0, 0.28 * len(bars) + 1.0)
        fig, ax = plt.subplots(figsize=(8, height))
        labels = [b["placer"] for b in bars][::-1]
        values = [b["value"] * (1.0 if throughput else 1e3) for b in bars][::-1]
        ax.barh(labels, values, color=["#c44" if i == len(values) - 1 else "#48a"
                                       for i in range(len(values))])
        ax.set_xlabel("throughput (1/s)" if throughput else "latency (ms)")
        ax.set_title(f"{study}: placers sorted by {'throughput' if throughput else 'latency'}")
        ax.tick_params(axis="y", labelsize=7)
        fig.tight_layout()
        name = f"leaderboard_{file_safe(study)}.png"
        fig.savefig(os.path.join(out_dir, name), dpi=100)
        plt.close(fig)
        figures.append({"kind": "leaderboard", "file": name, "study": study, "metric": metric,
                        "bars": bars})
    return figures


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("input", help="a sweep directory or its results.csv")
    parser.add_argument("--out", help="where the PNGs go (default: DIR/plots)")
    parser.add_argument("--pareto", default="latency_s,throughput_per_s",
                        help="COL_X,COL_Y, each optionally prefixed min: or max:")
    parser.add_argument("--x", metavar="AXIS", help="draw the line figure of this axis only")
    parser.add_argument("--heatmap", metavar="AXIS_X,AXIS_Y",
                        help="a heatmap of the best placer over two axes (needs --context)")
    parser.add_argument("--context", metavar="FILE.json",
                        help="labels and best placers, as `hetsim report` writes them")
    parser.add_argument("--dump-data", metavar="FILE.json",
                        help="write the plotted numbers as JSON")
    args = parser.parse_args(argv)

    csv_path, meta, header, rows = load_sweep(args.input)
    axes = [Axis(name, [r[name] for r in rows]) for name in axis_names(csv_path, meta, header)]
    by_name = {a.name: a for a in axes}
    context = {}
    if args.context:
        try:
            with open(args.context, encoding="utf-8") as f:
                context = json.load(f)
        except (OSError, ValueError) as e:
            raise InputError(f"--context: cannot read {args.context}: {e}") from None
        LABELS.update(context.get("labels", {}))
    accepted = ", ".join(by_name) or "none (the sweep has no axes)"
    if args.x is not None and args.x not in by_name:
        raise InputError(f"--x: unknown axis '{args.x}'; the sweep's axes: {accepted}")
    heatmap_axes = None
    if args.heatmap is not None:
        heatmap_axes = [a.strip() for a in args.heatmap.split(",")]
        if len(heatmap_axes) != 2 or heatmap_axes[0] == heatmap_axes[1]:
            raise InputError(f"--heatmap: expected two different axes AXIS_X,AXIS_Y, got "
                             f"'{args.heatmap}'")
        for name in heatmap_axes:
            if name not in by_name:
                raise InputError(f"--heatmap: unknown axis '{name}'; the sweep's axes: {accepted}")
        if "best" not in context:
            raise InputError("--heatmap: needs --context with each point's best placer")
    columns = parse_pareto(args.pareto)
    for column, _ in columns:
        if column not in header:
            raise InputError(f"{csv_path}: missing column '{column}' (--pareto)")
    if not any(r["status"] == "ok" for r in rows):
        raise InputError(f"{csv_path}: no rows with status ok")
    plotted = [r for r in rows if is_plottable(r)]
    if not plotted:
        raise InputError(f"{csv_path}: no ok rows with a feasible placement")
    skipped = skip_counts(rows)
    note = skip_note(skipped)

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError(f"{sys.executable} cannot import matplotlib (python3-matplotlib)")

    out_dir = args.out or os.path.join(os.path.dirname(csv_path) or ".", "plots")
    os.makedirs(out_dir, exist_ok=True)
    # Placers in order of first appearance in the CSV (the baseline first), so a placer keeps
    # its colour however its rows were skipped.
    placers = []
    plotted_placers = {r["placer"] for r in plotted}
    for r in rows:
        if r["placer"] in plotted_placers and r["placer"] not in placers:
            placers.append(r["placer"])
    colors = placer_colors(placers)

    # Dump layout: {"sweep", "skipped": {...}, "figures": [figure...]}; an axis figure is
    # {"kind": "axis", "file", "axis", "numeric", "unit", "log_x", "others_vary",
    #  "panels": {column: [{"placer", "x", "y", "markers": {"x", "y"} | null}]}}
    # (x in SI units, or category labels), a Pareto figure is {"kind": "pareto", "file",
    #  "x": column, "y": column, "x_sense", "y_sense", "points": [{point, placer, x, y}],
    #  "front": [...] sorted by x}, a heatmap {"kind": "heatmap", "file", "x", "y": axis,
    #  "metric", "others_vary", "x_values", "y_values", "cells": [see heatmap_data]}. When the
    #  rows show no trade-off, "pareto_skipped": {"x", "y", "reason"} replaces the Pareto figure.
    figures = []
    written = []
    pareto_skipped = None
    leaderboard_csv = os.path.join(os.path.dirname(csv_path) or ".", "leaderboard.csv")
    if os.path.exists(leaderboard_csv):
        # `hetsim compare`: its axes are the study and the placer, so a bar chart per study
        # replaces the axis and Pareto plots.
        axes, columns = [], []
        for figure in draw_leaderboards(plt, leaderboard_csv, out_dir):
            written.append(os.path.join(out_dir, figure["file"]))
            figures.append(figure)
    if heatmap_axes and columns:  # not for `hetsim compare` (columns cleared above)
        x_axis, y_axis = by_name[heatmap_axes[0]], by_name[heatmap_axes[1]]
        best = context["best"]
        xs, ys, cells = heatmap_data(x_axis, y_axis, rows, best)
        metric = next(iter(best.values()), {}).get("metric", "latency_s")
        others_vary = any(c["points"] > 1 for c in cells)
        png = os.path.join(out_dir, f"heatmap_{file_safe(x_axis.name)}_vs_"
                                    f"{file_safe(y_axis.name)}.png")
        draw_heatmap(plt, x_axis, y_axis, xs, ys, cells, metric, others_vary, note, png)
        written.append(png)
        figures.append({"kind": "heatmap", "file": os.path.basename(png), "x": x_axis.name,
                        "y": y_axis.name, "metric": metric, "others_vary": others_vary,
                        "x_values": xs, "y_values": ys, "cells": cells})
    for axis in axes:
        if args.x is not None and axis.name != args.x:
            continue
        panels, others_vary = axis_series(axis, plotted, placers)
        png = os.path.join(out_dir, f"axis_{file_safe(axis.name)}.png")
        log_x = draw_axis_figure(plt, axis, panels, others_vary, colors, note, png)
        written.append(png)
        figures.append({"kind": "axis", "file": os.path.basename(png), "axis": axis.name,
                        "numeric": axis.numeric, "unit": axis.unit, "log_x": log_x,
                        "others_vary": others_vary, "panels": panels})
    points, front = pareto_data(plotted, columns) if columns else ([], [])
    reason = pareto_skip_reason(points, front, columns) if points else None
    if reason:
        pareto_skipped = {"x": columns[0][0], "y": columns[1][0], "reason": reason}
    elif points:
        png = os.path.join(out_dir,
                           f"pareto_{file_safe(columns[0][0])}_vs_{file_safe(columns[1][0])}.png")
        draw_pareto(plt, columns, points, front, colors, note, png)
        written.append(png)
        figures.append({"kind": "pareto", "file": os.path.basename(png),
                        "x": columns[0][0], "y": columns[1][0], "x_sense": columns[0][1],
                        "y_sense": columns[1][1], "points": points, "front": front})

    if args.dump_data:
        dump = {"sweep": meta.get("sweep", ""), "skipped": skipped, "note": note,
                "figures": figures, "pareto_skipped": pareto_skipped}
        with open(args.dump_data, "w", encoding="utf-8") as f:
            json.dump(dump, f, indent=1)
    print(note)
    if pareto_skipped:
        print(f"no Pareto plot: {pareto_skipped['reason']}")
    for png in written:
        print(png)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except InputError as e:
        print(f"plot.py: {e}", file=sys.stderr)
        sys.exit(2)
