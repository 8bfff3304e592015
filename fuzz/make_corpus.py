#!/usr/bin/env python3
"""Rebuilds the seed corpora fuzz/corpus/<target>/ from the repository (fuzz/README.md).

stan_program: every .stan under examples/ and tests/; stan_model: the test programs with small
data, and the programs without a data block in the Stan front end's tests; the data readers: the text literals of
their unit tests (tests/io/*_test.cpp) and small files from ../shared/data (the first lines of
the larger CSV tables). Every seed stays under 20 KB: libFuzzer mutates small inputs faster.
Run from anywhere: python3 fuzz/make_corpus.py
"""
import hashlib
import itertools
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
CORPUS = ROOT / "fuzz" / "corpus"
LIMIT = 20 * 1024

# A C++ string literal, plain or raw, and adjacent literals joined (as the compiler does).
LITERAL = re.compile(r'R"([^(\s]*)\((.*?)\)\1"|"((?:[^"\\\n]|\\.)*)"', re.S)
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "0": "\0"}


def unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            c = s[i + 1]
            if c == "x":
                m = re.match(r"[0-9a-fA-F]+", s[i + 2:])
                out.append(chr(int(m.group(0), 16)))
                i += 2 + len(m.group(0))
                continue
            out.append(ESCAPES.get(c, c))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def literals(path):
    """The string literals of a C++ file, adjacent ones joined."""
    text = path.read_text()
    result, last_end, current = [], None, None
    for m in LITERAL.finditer(text):
        value = m.group(2) if m.group(2) is not None else unescape(m.group(3))
        if current is not None and text[last_end:m.start()].strip() == "":
            current += value
        else:
            if current is not None:
                result.append(current)
            current = value
        last_end = m.end()
    if current is not None:
        result.append(current)
    return result


def add(target, data):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    if not data or len(data) >= LIMIT:
        return
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def head(path, limit=LIMIT - 1):
    """The first whole lines of a file, under `limit` bytes."""
    data = path.read_bytes()
    if len(data) < limit:
        return data
    cut = data.rfind(b"\n", 0, limit)
    return data[:cut + 1]


def rdump_of(value, name):
    """A JSON value as R dump text (arrays of rows as structure(c(...), .Dim = ...))."""
    if isinstance(value, (int, float)):
        return f"{name} <- {value}\n"
    dims, v = [], value
    while isinstance(v, list):
        dims.append(len(v))
        v = v[0] if v else None
    flat = []
    for idx in itertools.product(*[range(d) for d in reversed(dims)]):
        y = value
        for i in reversed(idx):  # column-major: the first index fastest
            y = y[i]
        flat.append(y)
    body = "c(" + ", ".join(str(x) for x in flat) + ")"
    if len(dims) == 1:
        return f"{name} <- {body}\n"
    return f"{name} <- structure({body}, .Dim = c({', '.join(map(str, dims))}))\n"


def stan_csv_text(rows, special):
    """A small fit in CmdStan's variational layout, as the CLI writes it (lib/advi/io/cmdstan_csv.hpp)."""
    lines = ["# model = seed_model", "# method = variational", "#   variational",
             "#     algorithm = meanfield (Default)", "#     iter = 10000 (Default)",
             "lp__,log_p__,log_g__,mu,sigma,theta.1,theta.2",
             "# Stepsize adaptation complete.", "# eta = 1",
             "0,0,0,0.12,1.5,0.3,-0.7"]
    for i in range(rows):
        values = [0, -10.5 - i, -2.25 + i, 0.1 * i, 1.0 + i, -1e-3, 2.5e10]
        if special and i == 1:
            values[1], values[6] = "nan", "-inf"
        lines.append(",".join(str(v) for v in values))
    lines += ["# ", "#  Elapsed Time: 0.01 seconds (Total)", "# converged = 1"]
    return "\n".join(lines) + "\n"


# Small data for the test programs, for stan_model (a program, "\n@data\n", its JSON data).
PROGRAM_DATA = {
    "eight_schools_centered": {"J": 3, "y": [28, 8, -3], "sigma": [15, 10, 16]},
    "eight_schools_noncentered": {"J": 3, "y": [28, 8, -3], "sigma": [15, 10, 16]},
    "gamma_poisson_factorization": {"U": 2, "I": 3, "K": 2, "y": [[1, 0, 4], [2, 3, 0]],
                                    "a": 1, "b": 1},
    "logistic_regression": {"N": 3, "K": 2, "X": [[1, 0.5], [1, -1], [1, 2]], "y": [1, 0, 1]},
    "mixture": {"N": 4, "K": 2, "y": [-1.5, -1, 1, 2]},
    "radon_varying_intercept": {"N": 4, "J": 2, "county": [1, 2, 2, 1], "x": [0, 1, 0, 1],
                                "y": [1.2, 0.5, 0.9, 1.1]},
    "stochastic_volatility": {"T": 4, "y": [0.1, -0.3, 0.2, 0.05]},
}
DATA_SEPARATOR = "\n@data\n"


def main():
    for p in sorted(list((ROOT / "examples").rglob("*.stan")) + list((ROOT / "tests").rglob("*.stan"))):
        add("stan_program", p.read_bytes())
        if p.stem in PROGRAM_DATA:
            add("stan_model", p.read_text() + DATA_SEPARATOR + json.dumps(PROGRAM_DATA[p.stem]))
    for p in sorted((ROOT / "tests" / "dsl" / "stan").glob("*_test.cpp")):
        for s in literals(p):
            if any(b in s for b in ("model {", "data {", "parameters {")):
                add("stan_program", s)
                if "data {" not in s:
                    add("stan_model", s)

    for s in literals(ROOT / "tests" / "io" / "json_reader_test.cpp"):
        if s.lstrip().startswith("{") or s.lstrip().startswith("["):
            add("json_data", s)
    for s in literals(ROOT / "tests" / "io" / "rdump_reader_test.cpp"):
        if "<-" in s or "=" in s:
            add("rdump_data", s)
    for s in literals(ROOT / "tests" / "io" / "csv_reader_test.cpp"):
        if "," in s and "\n" in s:
            add("stan_csv" if s.lstrip().startswith("#") else "csv_data", s)
            add("csv_data", s)
    for rows, special in ((3, False), (5, True), (0, False)):
        add("stan_csv", stan_csv_text(rows, special))
    if SHARED.is_dir():
        for p in sorted(SHARED.rglob("*.json")):
            if p.stat().st_size < LIMIT and "gen" not in p.parts:
                add("json_data", p.read_bytes())
                try:
                    data = json.loads(p.read_text())
                    if all(isinstance(v, (int, float, list)) for v in data.values()):
                        add("rdump_data", "".join(rdump_of(v, k) for k, v in data.items()))
                except (ValueError, IndexError, TypeError):
                    pass
        for p in sorted((SHARED / "real").glob("*.csv")):
            add("csv_data", head(p, 4096))


if __name__ == "__main__":
    main()
