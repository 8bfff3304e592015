# max |estimate - mode| / posterior sd of beta in a CSV (the first row), for run.sh.
import json, sys, csv
ref=json.load(open(sys.argv[1])); f=sys.argv[2]
rows=[r for r in csv.reader(l for l in open(f) if not l.startswith('#'))]
hdr=rows[0]; row=[float(v) for v in rows[1]]
beta=[row[hdr.index('beta.%d'%(k+1))] for k in range(len(ref['mode']))]
err=max(abs(b-m)/s for b,m,s in zip(beta,ref['mode'],ref['sd']))
rel=max(abs(b-m)/abs(m) for b,m in zip(beta,ref['mode']))
print("max |error| / posterior sd = %.3g ; max relative error = %.3g" % (err, rel))
