# Which required parameters can change the model's flops: read by a compute item's
# flops, a trip count of a loop holding flops, a condition over flops, or a call's
# argument into a callee holding flops; on the paths the probe run took.
import json, re, sys, collections
m = json.load(open(sys.argv[1])); rows = json.load(open(sys.argv[2]))
fns, P = m['functions'], m['parameters']
tok = lambda e: set(re.findall(r'[A-Za-z_][A-Za-z0-9_.]*', str(e)))
def zero(e):
    e = str(e).strip()
    if e in ('0', '0.0'): return True
    d = P.get(e, {}).get('default'); return d is not None and str(d).strip() in ('0', '0.0')
memo = {}
def has_flops(f, stack=()):
    if f in memo: return memo[f]
    if f not in fns or f in stack: return False
    memo[f] = items_flops(fns[f]['body'], stack + (f,)); return memo[f]
def items_flops(items, stack):
    for it in items:
        k = it.get('kind')
        if k == 'compute' and (it.get('flops_double') not in (None, '0') or it.get('flops_single') not in (None, '0') or it.get('math_calls')): return True
        if k == 'loop' and not zero(it.get('trip_count', 1)) and items_flops(it.get('body', []), stack): return True
        if k == 'branch':
            p = it.get('probability')
            if p != 0 and items_flops(it.get('then', []), stack): return True
            if p != 1 and items_flops(it.get('else', []), stack): return True
        if k == 'call' and it.get('function') and has_flops(it['function'], stack): return True
    return False
names, walked, todo = set(), set(), [m['entry']]
def walk(items):
    for it in items:
        k = it.get('kind')
        if k == 'compute':
            for f in ('flops_double', 'flops_single'): names.update(tok(it.get(f, '')))
            names.update(tok(json.dumps(it.get('math_calls', {}))))
        elif k == 'loop':
            if zero(it.get('trip_count', 1)): continue
            if items_flops(it.get('body', []), ()): names.update(tok(it.get('trip_count', '')))
            walk(it.get('body', []))
        elif k == 'branch':
            p = it.get('probability')
            sides = ([it.get('then', [])] if p != 0 else []) + ([it.get('else', [])] if p != 1 else [])
            if 'condition' in it and any(items_flops(s, ()) for s in sides): names.update(tok(it['condition']))
            for s in sides: walk(s)
        elif k == 'call' and it.get('function'):
            if has_flops(it['function']): names.update(tok(json.dumps(it.get('args', {}))))
            todo.append(it['function'])
while todo:
    f = todo.pop()
    if f in walked or f not in fns: continue
    walked.add(f); walk(fns[f]['body'])
# defaults naming others
for _ in range(5):
    for n in list(names):
        d = P.get(n, {}).get('default')
        if d is not None: names |= tok(d)
c = collections.Counter(); ex = collections.defaultdict(list)
for k, f, ran, name, d in rows:
    fl = name in names; c[(k, fl)] += 1
    if fl: ex[k].append(name)
for k in sorted({k for k, _ in c}): print(f'{k:18s} can change flops {c[(k, True)]:4d}   cannot {c[(k, False)]:4d}')
print('total can', sum(v for (k, f), v in c.items() if f), 'of', len(rows))
json.dump(ex, open(sys.argv[3], 'w'), indent=1)
