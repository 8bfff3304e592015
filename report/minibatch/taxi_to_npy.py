#!/usr/bin/python3
# The taxi-like table (../shared/data/gen/generate.py --large --only taxi_like) as the files the
# pipeline of report/minibatch/taxi_pipeline.sh reads: DIR/taxi.x.npy (N x 100, the trajectory's
# coordinates, centred by column), DIR/taxi.duration.npy (N), DIR/taxi.sizes.json (N, D) for
# `advi fit --rows N`, and DIR/taxi.ppca.json (N, D, M = 20 and S = X' X of the centred rows,
# the sufficient statistic of report/minibatch/taxi_ppca.stan). Needs Debian's python3-numpy
# and python3-pandas.
#   /usr/bin/python3 report/minibatch/taxi_to_npy.py DIR/taxi_like_large.csv DIR
import json
import sys
import time

import numpy as np
import pandas as pd

source, out = sys.argv[1], sys.argv[2]
start = time.time()
table = pd.read_csv(source, dtype=np.float64, engine="c").to_numpy()
print(f"read {table.shape[0]} x {table.shape[1]} in {time.time() - start:.0f} s", flush=True)
x = table[:, :-1]
x = np.ascontiguousarray(x - x.mean(axis=0))
np.save(f"{out}/taxi.x.npy", x)
np.save(f"{out}/taxi.duration.npy", np.ascontiguousarray(table[:, -1]))
n, d = x.shape
with open(f"{out}/taxi.sizes.json", "w") as f:
    json.dump({"N": n, "D": d}, f)
s = x.T @ x
with open(f"{out}/taxi.ppca.json", "w") as f:
    json.dump({"N": n, "D": d, "M": 20, "S": [[float(v) for v in row] for row in s]}, f)
print(f"written in {time.time() - start:.0f} s", flush=True)
