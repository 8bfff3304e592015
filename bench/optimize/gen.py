# Regressions whose mode is analytic (the ridge solution), for bench/optimize/run.sh: writes
# year.json / dollars.json and their reference mode and posterior sds (*.ref.json), computed
# here in plain Python, independently of advi.
import json, random, math, sys
def solve(A, b):
    n=len(b); M=[row[:]+[b[i]] for i,row in enumerate(A)]
    for c in range(n):
        p=max(range(c,n), key=lambda r: abs(M[r][c])); M[c],M[p]=M[p],M[c]
        for r in range(n):
            if r!=c:
                f=M[r][c]/M[c][c]
                for k in range(c,n+1): M[r][k]-=f*M[c][k]
    return [M[i][n]/M[i][i] for i in range(n)]
def inv_diag(A):
    n=len(A); return [solve(A,[1.0 if j==i else 0.0 for j in range(n)])[i] for i in range(n)]
def make(name, shift, scale, noise, prior, n=200, seed=1):
    rng=random.Random(seed)
    X=[];y=[]
    for i in range(n):
        x1=shift+rng.gauss(0,1); x2=0.5*(x1-shift)+rng.gauss(0,1)
        X.append([1.0,x1,x2]); y.append(scale*(0.7+0.3*(x1-shift)-0.2*x2)+noise*rng.gauss(0,1))
    K=3
    A=[[sum(X[i][a]*X[i][b] for i in range(n))/noise**2+(1/prior**2 if a==b else 0) for b in range(K)] for a in range(K)]
    rhs=[sum(X[i][a]*y[i] for i in range(n))/noise**2 for a in range(K)]
    mode=solve(A,rhs); sd=[math.sqrt(v) for v in inv_diag(A)]
    json.dump({"N":n,"K":K,"X":X,"y":y,"s":noise,"t":prior}, open(name+".json","w"))
    json.dump({"mode":mode,"sd":sd}, open(name+".ref.json","w"))
make("year", 2000.0, 1.0, 0.8, 100.0)
make("dollars", 0.0, 1e4, 5e3, 1e5)
