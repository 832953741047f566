# Writes ARGS with the overflow_scan hits (a value below a vector loop's width)
# set to that width, to OUT: not the launch values (rank, ranks), nor
# num_levels, nor a nonzero value the probe run measured on a path it took.
# usage: overrides.py MODEL ARGS OUT
import os, sys, subprocess
model, args, out = sys.argv[1:4]
hits = subprocess.run(['python3', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'overflow_scan.py'), model, args], capture_output=True, text=True).stdout
a = [x for x in open(args).read().split('\n') if x]
kv = {}
for i in range(0, len(a), 2): kv[a[i+1].split('=')[0]] = a[i+1].split('=', 1)[1]
import json
P = json.load(open(model))['parameters']
changed = []
for line in hits.splitlines():
    n, v, k = line.split()[:3]
    origin = P.get(n, {}).get('origin', '')
    measured = origin.startswith('probe run') and 'no path' not in origin and 'never reached' not in origin
    if measured and float(v) != 0 and n not in kv: continue  # a value the run measured at a path it took
    if n.split('.')[-1] in ('my_id', 'myid', 'nprocs', 'num_procs', 'num_levels'): continue
    kv[n] = k; changed.append(f'{n}: {v} -> {k}')
open(out, 'w').write('\n'.join(f'--param\n{n}={v}' for n, v in kv.items()))
print('\n'.join(changed), file=sys.stderr)
