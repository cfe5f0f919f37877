#!/usr/bin/python3
"""Prints a sweep axis that sets the number of chiplets of configs/platforms/mcm36.yaml.

    /usr/bin/python3 tools/mcm_chip_bundles.py 12 24 36

mcm36.yaml lists its 36 chips, ring links and output links one by one, so a ring of K chips is
the platform with chips K..35, their ring and output links set to null (removed), the ring
closed from chip K-1 back to chip0, and the relays cut to the chips left. This prints that as a
bundle axis (`values: {K: {path: value, ...}}`) to paste under a sweep's `axes:`; the sweep
file says which command made it.
"""
import sys

TOTAL = 36


def bundle(k):
    sets = {}
    for c in range(k, TOTAL):
        sets[f"platform.components.chip{c}"] = "~"
        sets[f"platform.components.out{c}"] = "~"
    for r in range(k, TOTAL):
        sets[f"platform.components.ring{r}"] = "~"
    if k < TOTAL:
        sets[f"platform.components.ring{k - 1}.endpoints"] = f"[chip{k - 1}, chip0]"
        sets["platform.relays"] = "[" + ", ".join(f"chip{c}" for c in range(k)) + "]"
    return sets


def main():
    counts = [int(a) for a in sys.argv[1:]] or [12, 24, 36]
    if any(not 2 <= k <= TOTAL for k in counts):
        sys.exit(f"mcm_chip_bundles.py: error: chip counts must be in 2..{TOTAL}")
    print("  chips:")
    print("    values:")
    for k in counts:
        sets = bundle(k)
        if not sets:
            print(f"      {k}: {{}}")
            continue
        print(f"      {k}:")
        for path, value in sets.items():
            print(f"        {path}: {value}")


if __name__ == "__main__":
    main()
