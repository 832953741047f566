# Parameters under a vector loop's `zext(k * ... (P ...) - k, 64)` (its trips or
# footprint), whose bound value is below the vector width: predict evaluates
# such code where its guard would skip it and overflows (not fixed).
# usage: overflow_scan.py fixed.json args.txt -> prints NAME VALUE
import json, re, sys
m = json.load(open(sys.argv[1])); P = m['parameters']
vals = {n: p.get('default') for n, p in P.items()}
a = open(sys.argv[2]).read().split('\n')
for x in a:
    if '=' in x: n, v = x.split('=', 1); vals[n] = v
hits = {}
def scan(s):
    for mm in re.finditer(r'zext\(', s):
        # the zext's argument up to its ", 64)"
        depth = 0; i = mm.end(); start = i
        while i < len(s):
            c = s[i]
            if c == '(': depth += 1
            elif c == ')':
                if depth == 0: break
                depth -= 1
            i += 1
        arg = s[start:i]
        if re.search(r'- \d+, 64$', arg) or re.search(r'- \d+$', arg.rsplit(',', 1)[0]):
            for n in set(re.findall(r'[A-Za-z_][A-Za-z0-9_.]*', arg)):
                if n in vals and n not in ('zext', 'trunc', 'floordiv', 'select', 'min', 'max', 'mod'):
                    try: v = float(vals[n])
                    except Exception: continue
                    k = re.findall(r'- (\d+), 64$', arg) or re.findall(r'- (\d+)$', arg.rsplit(',', 1)[0])
                    k = int(k[0]) if k else 8
                    if v < k and not any(w in n.lower() for w in ('begin', 'start', 'first')):
                        hits[n] = max(hits.get(n, (0, 0))[0], k), v, arg[:90]
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if isinstance(v, str): scan(v)
            else: walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
walk(m['functions'])
for n, (k, v, a) in sorted(hits.items()): print(n, int(v), k, '|', a)
