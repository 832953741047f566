# Adds to ARGS a whole value for each parameter the probe bound to a mean that is
# not whole and that the model reads inside a width conversion (trunc, zext,
# sext), which predict evaluates only on integers: the mean rounded to nearest.
# A value ARGS already gives is rounded the same way where it is not whole.
# usage: whole.py MODEL ARGS (rewritten in place)
import json, re, sys
model, args = sys.argv[1:3]
text = open(model).read(); P = json.loads(text)['parameters']
a = [x for x in open(args).read().split('\n') if x]
kv = {a[i + 1].split('=')[0]: a[i + 1].split('=', 1)[1] for i in range(0, len(a), 2)}
inside = set()
for m in re.finditer(r'\b(?:trunc|zext|sext)\(', text):
    depth, i = 1, m.end()
    while depth and i < len(text):
        depth += {'(': 1, ')': -1}.get(text[i], 0); i += 1
    inside |= set(re.findall(r'[A-Za-z_][A-Za-z0-9_.]*', text[m.end():i]))
changed = []
for n in sorted(inside):
    d = kv.get(n, P.get(n, {}).get('default'))
    if d is None: continue
    try: v = float(d)
    except ValueError: continue
    if v != int(v): kv[n] = str(int(v + 0.5)); changed.append(f'{n}: {d} -> {kv[n]}')
open(args, 'w').write('\n'.join(f'--param\n{n}={v}' for n, v in kv.items()))
print(len(changed), 'rounded', *changed, sep='\n', file=sys.stderr)
