# Classify a bound model's required parameters: kind, function, and whether
# that function ran in callgrind's run (counts --json functions[]).
import json, re, sys, collections
params = json.load(open(sys.argv[1]))
counts = json.load(open(sys.argv[2]))
ran = {f['function']: f for f in counts['per_rank'][0]['functions'] if f['instructions'] > 0}
req = [p for p in params if 'default' not in p]
def kind(p):
    n, d = p['name'], p['description']
    if n.endswith('.trips'): return 'loop trips'
    if re.search(r'\.mem(set|cpy|move)\d+\.bytes$', n): return 'mem bytes'
    if n.startswith('lib_'): return 'library flops'
    if n.endswith('calls_per_entry'): return 'recursion'
    for k in ('source variable', 'field', 'argument'):
        if d.startswith(k): return k
    return 'other'
def function(p):
    d = p['description']
    m = re.search(r' of (?:the call of \S+ at \S+ |the loop at \S+ )?', d)
    m = re.search(r'\bof ([A-Za-z_][A-Za-z0-9_]*) \(', d)
    if m: return m.group(1)
    return p['name'].split('.')[0]
tab = collections.Counter(); fnran = collections.Counter()
rows = []
for p in req:
    k = kind(p); f = function(p); r = f in ran
    tab[(k, r)] += 1
    rows.append((k, f, r, p['name'], p['description']))
for k in sorted({k for k, _ in tab}):
    print(f"{k:18s} ran:{tab[(k,True)]:5d}  not run:{tab[(k,False)]:5d}")
print('total', len(req), 'in functions that ran', sum(1 for r in rows if r[2]))
json.dump(rows, open(sys.argv[3], 'w'), indent=0)
