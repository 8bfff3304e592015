#!/usr/bin/env python3
# Writes the simulated data sets of the reference models (report/references/*.data.json) with the
# standard library only (no NumPy), seeded, so that a rerun writes the same bytes:
#   python3 report/references/simulate.py report/references
import json
import math
import random
import sys


def write(folder, name, data):
    with open(f"{folder}/{name}.data.json", "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")


def r6(x):
    return float(f"{x:.6g}")


def main(folder):
    rng = random.Random(19)
    # Linear regression on raw predictors (income in dollars, age in years): the posterior's
    # scales differ by 4 orders of magnitude and intercept and slopes are correlated, the case
    # whitened coordinates are for. The standardised version has the same y.
    N = 100
    income = [rng.gauss(50000.0, 15000.0) for _ in range(N)]
    age = [rng.gauss(40.0, 12.0) for _ in range(N)]
    y = [r6(3.0 + 4e-5 * a + 0.05 * b + rng.gauss(0.0, 1.0)) for a, b in zip(income, age)]
    X_raw = [[1.0, r6(a), r6(b)] for a, b in zip(income, age)]
    write(folder, "linreg_raw", {"N": N, "K": 3, "y": y, "X": X_raw})
    mi, si = sum(income) / N, math.sqrt(sum((a - sum(income) / N) ** 2 for a in income) / N)
    ma, sa = sum(age) / N, math.sqrt(sum((b - sum(age) / N) ** 2 for b in age) / N)
    X_std = [[1.0, r6((a - mi) / si), r6((b - ma) / sa)] for a, b in zip(income, age)]
    write(folder, "linreg_std", {"N": N, "K": 3, "y": y, "X": X_std})

    # Logistic regression, N = 300, intercept + 3 predictors.
    N = 300
    beta = [-0.5, 1.0, -0.7, 0.3]
    X = [[1.0] + [r6(rng.gauss(0.0, 1.0)) for _ in range(3)] for _ in range(N)]
    yl = []
    for row in X:
        eta = sum(b * x for b, x in zip(beta, row))
        yl.append(1 if rng.random() < 1.0 / (1.0 + math.exp(-eta)) else 0)
    write(folder, "logistic_glm", {"N": N, "K": 4, "X": X, "y": yl, "prior_sd": 2.5})

    # Poisson GLM with a log link, N = 200, intercept + 2 predictors.
    N = 200
    beta = [1.0, 0.4, -0.3]
    X = [[1.0] + [r6(rng.gauss(0.0, 1.0)) for _ in range(2)] for _ in range(N)]
    yp = []
    for row in X:
        lam = math.exp(sum(b * x for b, x in zip(beta, row)))
        # Knuth's method: lam is small here.
        k, p, L = 0, 1.0, math.exp(-lam)
        while True:
            p *= rng.random()
            if p <= L:
                break
            k += 1
        yp.append(k)
    write(folder, "poisson_glm", {"N": N, "K": 3, "X": X, "y": yp})

    # Eight schools (Rubin 1981; Gelman et al. BDA 5.5): the data every funnel test uses.
    schools = {"J": 8, "y": [28, 8, -3, 7, -1, 1, 18, 12],
               "sigma": [15, 10, 16, 11, 9, 11, 10, 18]}
    write(folder, "eight_schools_nc", schools)
    write(folder, "eight_schools_c", schools)

    # Hierarchical logistic regression: 8 groups of 50, varying intercepts, 2 common slopes.
    J, per = 8, 50
    a = [rng.gauss(0.0, 0.8) for _ in range(J)]
    g, X1, X2, yh = [], [], [], []
    for j in range(J):
        for _ in range(per):
            x1, x2 = r6(rng.gauss(0.0, 1.0)), r6(rng.gauss(0.0, 1.0))
            eta = 0.2 + a[j] + 0.8 * x1 - 0.5 * x2
            g.append(j + 1)
            X1.append(x1)
            X2.append(x2)
            yh.append(1 if rng.random() < 1.0 / (1.0 + math.exp(-eta)) else 0)
    write(folder, "hier_logistic_small",
          {"N": J * per, "J": J, "group": g, "x1": X1, "x2": X2, "y": yh})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
