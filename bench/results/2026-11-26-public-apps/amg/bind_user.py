# AMG's bound model's required parameters (rows from classify.py) bound as the
# AMG section of fortran_c.md describes: the rank count and rank from the
# launch, printf's flops 0, recursions 1, the rest unread at 8 (0 for names of
# a first index, and for message peers); and the parameters the probe bound to
# 0 "on no path the run took" the same way, so that predict's evaluation of
# code that never runs does not overflow.
# usage: bind_user.py ROWS.json BOUND_MODEL.json NP OUT_ARGS.txt
import json, re, sys, collections
rows = json.load(open(sys.argv[1])); model = json.load(open(sys.argv[2])); np_ = int(sys.argv[3])
def unread(name):
    last = name.split('.')[-1]
    if re.search(r'\.(dest|source|peer|root|src|proc|recv_proc|send_proc)$', name): return 0
    return 0 if re.search(r'(begin|start|first)', last, re.I) else 8
groups = collections.Counter(); values = {}
for kind, function, ran, name, description in rows:
    last = name.split('.')[-1]
    if last in ('num_procs', 'nprocs') and description.startswith('source variable'): g, v = 'ranks', np_
    elif last in ('my_id', 'myid') and description.startswith('source variable'): g, v = 'rank 0', 0
    elif kind == 'library flops': g, v = 'library flops', 0
    elif kind == 'recursion': g, v = 'recursions not entered', 1
    elif name.endswith('datatype_bytes'): g, v = 'datatype sizes', 8
    else: g, v = 'unread', unread(name)
    groups[g] += 1; values[name] = v
for name, p in model['parameters'].items():
    if 'on no path the run took' in p.get('origin', ''):
        groups['on no path the run took'] += 1; values[name] = unread(name)
for g, n in groups.most_common(): print(f'{n:5d}  {g}', file=sys.stderr)
open(sys.argv[4], 'w').write(''.join(f'--param\n{n}={v}\n' for n, v in values.items()))
