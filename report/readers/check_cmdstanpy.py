#!/usr/bin/env python3
"""Reads advi's CSVs (make_csvs.sh) with cmdstanpy's own from_csv and checks what it reads
against the files: the method's class, the draws' count and the means of `beta`.

Usage: python3 check_cmdstanpy.py CSV_DIR [CMDSTANPY_SOURCE_DIR]
cmdstanpy needs numpy and pandas (Debian: python3-pandas python3-tqdm); give the folder that
holds the `cmdstanpy` and `stanio` packages when they are not installed. Prints a line per file
and exits 1 when any check fails."""
import logging
import os
import sys

if len(sys.argv) > 2:
    sys.path.insert(0, sys.argv[2])
import cmdstanpy  # noqa: E402

cmdstanpy.utils.get_logger().setLevel(logging.ERROR)
os.chdir(sys.argv[1])


def body(path, skip_first_row):
    """The rows of numbers of a Stan CSV, as floats, and its column names."""
    rows = [l.strip() for l in open(path) if l.strip() and not l.startswith("#")]
    names = rows[0].split(",")
    values = [[float(v) for v in r.split(",")] for r in rows[1:]]
    return names, values[1:] if skip_first_row else values


def mean_of(names, values, column):
    k = names.index(column)
    return sum(r[k] for r in values) / len(values)


expected = {"fit_meanfield.csv": ("CmdStanVB", True), "fit_fullrank.csv": ("CmdStanVB", True),
            "optimize.csv": ("CmdStanMLE", False), "laplace.csv": ("CmdStanLaplace", False),
            "pathfinder.csv": ("CmdStanPathfinder", False)}
failed = 0
print("cmdstanpy", cmdstanpy.__version__)
for f, (cls, mean_row) in expected.items():
    try:
        fit = cmdstanpy.from_csv(f)
        names, values = body(f, mean_row)
        if cls == "CmdStanMLE":
            got = list(fit.stan_variable("beta"))
            n = 1
        elif cls == "CmdStanVB":
            got = list(fit.variational_sample_pd[["beta[1]", "beta[2]"]].mean())
            n = fit.variational_sample.shape[0]
        else:
            draws = fit.stan_variable("beta")
            got = list(draws.mean(axis=0))
            n = draws.shape[0]
        want = [mean_of(names, values, "beta.1"), mean_of(names, values, "beta.2")]
        ok = (type(fit).__name__ == cls and n == len(values)
              and all(abs(a - b) < 1e-9 * max(1, abs(b)) for a, b in zip(got, want)))
        print(f"{'ok  ' if ok else 'FAIL'} {f}: {type(fit).__name__}, {n} draws, "
              f"beta means {got[0]:.6f} {got[1]:.6f} (file: {want[0]:.6f} {want[1]:.6f})")
        failed += not ok
    except Exception as e:  # a reader's failure is what this script reports
        print(f"FAIL {f}: {type(e).__name__}: {e}")
        failed += 1
sys.exit(1 if failed else 0)
