#!/usr/bin/env python3
"""advi on posteriordb: which models `advi check` accepts, which posteriors fit without an
error, and, where posteriordb has reference draws (NUTS, 10 x 1000), how far the fit is.

    report/posteriordb_compare.py PDB [--advi build/dsl/advi/cli/advi]
        [--algorithm meanfield,fullrank] [--seeds 1,2,3] [--only SUBSTRING]
        [--all] [--timeout 300] [-- EXTRA advi fit OPTIONS]

PDB is a folder holding posteriordb's `posterior_database` (models/stan, data/data/*.json.zip,
posteriors/*.json, reference_posteriors/draws/draws/*.json.zip), e.g. an archive of
stan-dev/posteriordb; nothing is fetched. Without --all only the posteriors with reference
draws are fitted. Per posterior, algorithm and seed it prints the fit's status, final ELBO,
the worst error of a posterior mean in reference sds (max over the reference's parameters of
|mean_q - mean_ref| / sd_ref), the range of sd_q / sd_ref, iterations, whether the fit said
it converged, the verdict line when the CSV has one, and wall time (the whole `advi fit` run,
parse to CSV); then per algorithm the medians over seeds and a count of posteriors whose worst
error is above 0.3 and 1 reference sd.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile


def read_zip_json(path):
    with zipfile.ZipFile(path) as z:
        return json.loads(z.read(z.namelist()[0]))


def csv_name(stan_name):
    """posteriordb's `beta[1]`, `Sigma[2,1]` as CmdStan's CSV columns `beta.1`, `Sigma.2.1`."""
    m = re.fullmatch(r"([^\[]+)\[([^\]]+)\]", stan_name)
    return stan_name if not m else m.group(1) + "." + ".".join(i.strip() for i in m.group(2).split(","))


def read_advi_csv(path):
    """Columns of the draws (the mean row skipped) and the trailer's `key = value` lines."""
    header, rows, trailer, seen_header = None, [], {}, False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                if seen_header:
                    kv = line[1:].strip().split(" = ", 1)
                    if len(kv) == 2:
                        trailer[kv[0].strip()] = kv[1].strip()
                continue
            if header is None:
                header, seen_header = line.split(","), True
                continue
            rows.append([float(x) for x in line.split(",")])
    cols = {h: [r[i] for r in rows[1:]] for i, h in enumerate(header)}
    return cols, trailer


def mean_sd(xs):
    m = sum(xs) / len(xs)
    return m, (sum((x - m) ** 2 for x in xs) / max(len(xs) - 1, 1)) ** 0.5


def run(cmd, timeout):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", "", time.monotonic() - t0
    lines = [l for l in p.stderr.strip().splitlines() if l.strip()] or [""]
    # The error line, not the caret under the source line that follows it.
    message = next((l for l in lines if "error" in l.lower()), lines[0])
    return p.returncode, message.strip(), time.monotonic() - t0


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra, argv = argv[argv.index("--") + 1:], argv[:argv.index("--")]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdb")
    ap.add_argument("--advi", default="build/dsl/advi/cli/advi")
    ap.add_argument("--algorithm", default="meanfield,fullrank")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--only", default="")
    ap.add_argument("--all", action="store_true", help="fit every posterior, not only referenced")
    ap.add_argument("--timeout", type=float, default=300.0)
    args = ap.parse_args(argv)
    root = args.pdb if os.path.basename(args.pdb.rstrip("/")) == "posterior_database" \
        else os.path.join(args.pdb, "posterior_database")
    if not os.path.isdir(os.path.join(root, "posteriors")):
        sys.exit(f"{args.pdb}: no posterior_database/posteriors folder")
    if not os.access(args.advi, os.X_OK):
        sys.exit(f"{args.advi}: not an executable (build the target advi_cli, or pass --advi)")

    posteriors = []
    for f in sorted(os.listdir(os.path.join(root, "posteriors"))):
        if f.endswith(".json") and args.only in f:
            with open(os.path.join(root, "posteriors", f)) as fh:
                posteriors.append(json.load(fh))
    models = sorted({p["model_name"] for p in posteriors})
    model_file = lambda m: os.path.join(root, "models", "stan", m + ".stan")
    checked = {m: run([args.advi, "check", model_file(m)], 60) for m in models}
    ok_models = [m for m in models if checked[m][0] == 0]
    print(f"advi check: {len(ok_models)} of {len(models)} models accepted")
    for m in models:
        if checked[m][0] != 0:
            print(f"  {m}: {checked[m][1]}")

    algorithms = args.algorithm.split(",")
    seeds = args.seeds.split(",")
    summary = {a: [] for a in algorithms}
    fitted, failed = 0, []
    tmp = tempfile.mkdtemp(prefix="pdb_")
    print("\nposterior | algorithm | seed | status | ELBO | worst mean error (ref sds) | "
          "sd ratio min-max | iterations | converged | seconds | verdict")
    for post in posteriors:
        name = post["name"]
        ref_path = os.path.join(root, "reference_posteriors", "draws", "draws", name + ".json.zip")
        has_ref = os.path.exists(ref_path)
        data_path = os.path.join(root, "data", "data", post["data_name"] + ".json.zip")
        if (not has_ref and not args.all) or post["model_name"] not in ok_models:
            continue
        if not os.path.exists(data_path):
            continue
        data_json = os.path.join(tmp, post["data_name"] + ".json")
        with open(data_json, "w") as fh:
            json.dump(read_zip_json(data_path), fh)
        ref = {}
        if has_ref:
            chains = read_zip_json(ref_path)
            for k in chains[0]:
                ref[k] = mean_sd([x for c in chains for x in c[k]])
        for alg in algorithms:
            rows = []
            for seed in seeds:
                out = os.path.join(tmp, "fit.csv")
                if os.path.exists(out):
                    os.remove(out)
                cmd = [args.advi, "fit", model_file(post["model_name"]), "--data", data_json,
                       "--output", out, "--algorithm", alg, "--seed", seed, "--quiet"] + extra
                status, msg, secs = run(cmd, args.timeout)
                fitted += 1
                if status != 0:
                    failed.append((name, alg, seed, status, msg))
                    print(f"{name} | {alg} | {seed} | {'timeout' if status == 'timeout' else 'error'}"
                          f" | | | | | | {secs:.2f} | {msg[:100]}")
                    continue
                cols, trailer = read_advi_csv(out)
                worst, ratios = 0.0, []
                for k, (m_ref, s_ref) in ref.items():
                    c = cols.get(csv_name(k))
                    if c is None or s_ref <= 0:
                        continue
                    m_q, s_q = mean_sd(c)
                    worst = max(worst, abs(m_q - m_ref) / s_ref)
                    ratios.append(s_q / s_ref)
                elbo = float(trailer.get("ELBO", "nan")) if re.fullmatch(
                    r"[-+0-9.eE]+|nan|inf|-inf", trailer.get("ELBO", "nan")) else float("nan")
                rows.append((worst, elbo, secs))
                print(f"{name} | {alg} | {seed} | ok | {elbo:.6g} | "
                      f"{worst:.3g} | {min(ratios, default=float('nan')):.3g}-"
                      f"{max(ratios, default=float('nan')):.3g} | {trailer.get('iterations', '?')} | "
                      f"{trailer.get('converged', '?')} | {secs:.2f} | {trailer.get('verdict', '')}")
            if rows and ref:
                summary[alg].append((name, statistics.median(r[0] for r in rows),
                                     statistics.median(r[1] for r in rows),
                                     statistics.median(r[2] for r in rows)))
    print(f"\nfits: {fitted - len(failed)} of {fitted} without an error")
    for alg in algorithms:
        s = summary[alg]
        if not s:
            continue
        over03 = sum(1 for r in s if r[1] > 0.3)
        over1 = sum(1 for r in s if r[1] > 1.0)
        geo_t = statistics.geometric_mean([max(r[3], 1e-3) for r in s])
        print(f"{alg}: {len(s)} referenced posteriors; median worst mean error "
              f"{statistics.median(r[1] for r in s):.3g} ref sds; > 0.3 sd: {over03}; > 1 sd: "
              f"{over1}; geometric mean wall time {geo_t:.3g} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
