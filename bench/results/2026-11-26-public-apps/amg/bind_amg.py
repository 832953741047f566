# The parameters a probed AMG model still leaves to the user, bound without
# reading AMG: the launch (ranks N, rank 0), printf's flops 0, a recursion not
# entered 1, the sequential build's datatype sizes 8, and every other one set
# unread to 8 (0 for *begin*/*start*/*first* and message peers). Those the
# probe bound to 0 "on no path the run took" are set the same way: predict
# evaluates unexecuted code before a 0 multiplies it, and some of its
# footprints overflow at 0 (fortran_c.md, AMG section, item 1).
# usage: bind_amg.py bound.json NP args.txt
import json, sys, collections
m = json.load(open(sys.argv[1])); np_ = int(sys.argv[2])
groups = collections.Counter(); args = []
for name, p in m['parameters'].items():
    d = p.get('description', ''); origin = p.get('origin', '')
    required = 'default' not in p
    no_path = 'on no path the run took' in origin
    if not required and not no_path: continue
    var = name.split('.')[-1]
    low = name.lower()
    if var in ('num_procs', 'nprocs', 'num_procs_P', 'P_num_procs') and 'source variable' in d: g, v = 'ranks', np_
    elif var in ('my_id', 'myid', 'my_rank') and 'source variable' in d: g, v = 'rank', 0
    elif name.startswith('lib_'): g, v = 'library flops', 0
    elif name.endswith('calls_per_entry'): g, v = 'recursion', 1
    elif name.endswith('datatype_bytes'): g, v = 'datatype sizes', 8
    elif any(w in var.lower() for w in ('begin', 'start', 'first')): g, v = 'begin/start/first: 0', 0
    elif name.endswith('.dest') or name.endswith('.source'): g, v = 'message peers: 0', 0
    else: g, v = 'unread: 8', 8
    groups[('required ' if required else 'no-path ') + g] += 1
    args += ['--param', f'{name}={v}']
for g, n in sorted(groups.items()): print(f'{n:5d}  {g}', file=sys.stderr)
open(sys.argv[3], 'w').write('\n'.join(args))
