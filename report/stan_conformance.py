#!/usr/bin/env python3
"""How much of the Stan language `advi check` covers, measured on stanc3's own test programs.

    report/stan_conformance.py CORPUS [--advi build/dsl/advi/cli/advi] [--timeout 20]
                               [--reasons N] [--list] [--lower]

CORPUS is a folder holding stanc3's `test/integration/good` and `test/integration/bad` (or a
folder with `good/` and `bad/` directly): e.g. a checkout or an archive of stan-dev/stanc3.
Nothing is fetched here. Every .stan file under good/ should be accepted and every one under
bad/ refused; each run of `advi check` is classified as

    accepted   exit status 0
    refused    exit status 1 with an error message (the message's first line is the reason)
    crashed    killed by a signal, or any other exit status (a bug whatever the program)
    timeout    no answer within --timeout seconds (a bug too)

With --lower, the good programs are also lowered with made-up data (`advi check --lower`: each
data variable a value of its declared type and constraints), which finds what `check` accepts
but the lowering refuses without seeing the data; bad programs are only checked.
The script prints the counts per folder, the refused good programs grouped by reason (the
message with names, numbers and quoted text masked, so that one missing feature is one group)
the unknown function names by count and, with --list, every good program refused and every bad program accepted.
"""
import argparse
import collections
import os
import re
import subprocess
import sys


def find_folders(corpus):
    for sub in ("test/integration", "."):
        good = os.path.join(corpus, sub, "good")
        bad = os.path.join(corpus, sub, "bad")
        if os.path.isdir(good) and os.path.isdir(bad):
            return good, bad
    sys.exit(f"{corpus}: no good/ and bad/ folders (looked in test/integration/ and the folder)")


def stan_files(folder):
    out = []
    for root, _, files in os.walk(folder):
        out += [os.path.join(root, f) for f in files if f.endswith(".stan")]
    return sorted(out)


def check(advi, path, timeout, lower=False):
    try:
        command = [advi, "check"] + (["--lower"] if lower else []) + [path]
        p = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", f"no answer in {timeout} s"
    text = (p.stderr.strip() or p.stdout.strip()).splitlines()
    first = text[0] if text else ""
    if p.returncode == 0:
        return "accepted", first
    if p.returncode == 1 and first:
        return "refused", first
    return "crashed", f"exit status {p.returncode}: {first}"


def reason_key(message):
    """The message without its file:line:col, names and numbers: one group per cause."""
    m = re.sub(r"^.*?\.stan:\d+:\d+:\s*", "", message)
    m = re.sub(r"^error:\s*", "", m)
    m = re.sub(r"`[^`]*`", "`_`", m)
    m = re.sub(r"'[^']*'", "'_'", m)
    m = re.sub(r"\b\d+(\.\d+)?\b", "N", m)
    return m[:120]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus")
    ap.add_argument("--advi", default="build/dsl/advi/cli/advi")
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--reasons", type=int, default=25, help="reason groups to print")
    ap.add_argument("--list", action="store_true", help="list every misjudged program")
    ap.add_argument("--lower", action="store_true",
                    help="lower the good programs too, with made-up data")
    args = ap.parse_args()
    if not os.access(args.advi, os.X_OK):
        sys.exit(f"{args.advi}: not an executable (build the target advi_cli, or pass --advi)")
    good, bad = find_folders(args.corpus)

    results = {}
    for name, folder in (("good", good), ("bad", bad)):
        lower = args.lower and name == "good"
        results[name] = [(f, *check(args.advi, f, args.timeout, lower)) for f in stan_files(folder)]

    for name, expected in (("good", "accepted"), ("bad", "refused")):
        rows = results[name]
        counts = collections.Counter(r[1] for r in rows)
        right = counts[expected]
        print(f"{name}: {right} of {len(rows)} {expected} ({100.0 * right / max(len(rows), 1):.1f}%)"
              f"; " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for name in ("good", "bad"):
        for f, status, msg in results[name]:
            if status in ("crashed", "timeout"):
                print(f"  {status}: {os.path.relpath(f, args.corpus)}: {msg}")

    groups = collections.Counter(reason_key(m) for _, s, m in results["good"] if s == "refused")
    print(f"\nrefused good programs by reason (top {args.reasons} of {len(groups)}):")
    for key, n in groups.most_common(args.reasons):
        print(f"  {n:5d}  {key}")
    # "unknown function `tan`" is one group above; which names are missing is the to-do list.
    names = collections.Counter()
    for _, s, m in results["good"]:
        hit = re.search(r"unknown (function|identifier|distribution) `([^`]*)`", m)
        if s == "refused" and hit:
            names[hit.group(2)] += 1
    print(f"\nunknown names in refused good programs (top {args.reasons} of {len(names)}):")
    print("  " + ", ".join(f"{k} {v}" for k, v in names.most_common(args.reasons)))
    if args.list:
        print("\ngood programs refused:")
        for f, s, m in results["good"]:
            if s != "accepted":
                print(f"  {os.path.relpath(f, args.corpus)}: {m}")
        print("\nbad programs accepted:")
        for f, s, _ in results["bad"]:
            if s == "accepted":
                print(f"  {os.path.relpath(f, args.corpus)}")
    failed = any(s in ("crashed", "timeout") for rows in results.values() for _, s, _ in rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
