#!/usr/bin/python3
# The taxi-like table (../shared/data/gen/generate.py --large --only taxi_like) as .npy files
# that `advi fit --rows N` reads memory-mapped: DIR/taxi.x.npy (N x 100, the trajectory's
# coordinates), DIR/taxi.duration.npy (N) and DIR/taxi.sizes.json (N, D). Needs Debian's
# python3-numpy and python3-pandas.
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
x = np.ascontiguousarray(table[:, :-1])
np.save(f"{out}/taxi.x.npy", x)
np.save(f"{out}/taxi.duration.npy", np.ascontiguousarray(table[:, -1]))
with open(f"{out}/taxi.sizes.json", "w") as f:
    json.dump({"N": int(x.shape[0]), "D": int(x.shape[1])}, f)
print(f"written in {time.time() - start:.0f} s", flush=True)
