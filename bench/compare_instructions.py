#!/usr/bin/env python3
"""Instructions per gradient of two builds, counted by callgrind: a noise-free comparison.

The wall-clock medians of gradient_bench move by 5-15% (up to 2x under load) on the shared
2-core machines; the number of instructions one Program::run executes does not move at all.
Usage: bench/compare_instructions.py OLD_BUILD_DIR NEW_BUILD_DIR [model ...]
Prints, per model, the instructions of one compiled gradient (1 thread) in each build and
their ratio. Needs valgrind; takes about a minute for the seven models.
"""
import os
import re
import subprocess
import sys
import tempfile

MODELS = ["linreg", "linreg_ard", "hier_logistic", "gamma_poisson", "gmm", "stochvol", "ppca_ard"]


def instructions_per_run(build, model, workdir):
    out = os.path.join(workdir, f"{model}.{abs(hash(build))}.callgrind")
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
         os.path.join(build, "bench", "gradient_bench"),
         f"--benchmark_filter=BM_{model}_compiled/threads:1/", "--benchmark_min_time=0.001"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    lines = open(out).read().splitlines()
    # Callgrind names a function once, "(id) name", then by "(id)" alone.
    ids = set(re.findall(r"\((\d+)\) advi::Program::run\(Eigen", "\n".join(lines)))
    calls = cost = 0
    for i, line in enumerate(lines):
        m = re.match(r"cfn=\((\d+)\)", line)
        if m and m.group(1) in ids and lines[i + 1].startswith("calls="):
            calls += int(lines[i + 1].split("=")[1].split()[0])
            cost += int(lines[i + 2].split()[1])  # inclusive cost of those calls
    if calls == 0:
        sys.exit(f"{build}: no call of Program::run recorded for {model}")
    return cost / calls


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    old, new = sys.argv[1], sys.argv[2]
    models = sys.argv[3:] or MODELS
    with tempfile.TemporaryDirectory() as workdir:
        print(f"{'model':15s} {'old':>14s} {'new':>14s}  new/old")
        for m in models:
            a = instructions_per_run(old, m, workdir)
            b = instructions_per_run(new, m, workdir)
            print(f"{m:15s} {a:14.0f} {b:14.0f}  {b / a:.3f}")


if __name__ == "__main__":
    main()
