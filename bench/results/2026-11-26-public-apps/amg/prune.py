# A bound model with what the probe run weighed 0 taken out: a branch side of
# probability 0, the body of a loop whose trips are 0 (a literal, or a parameter
# whose default is 0). Its counts are the model's (those parts multiply by 0);
# predict then composes only what the run took.
import json, sys
m = json.load(open(sys.argv[1])); P = m['parameters']
def zero(e):
    e = str(e).strip()
    return e in ('0', '0.0') or str(P.get(e, {}).get('default', '')).strip() in ('0', '0.0')
cut = [0, 0]
def prune(items):
    for it in items:
        k = it.get('kind')
        if k == 'loop':
            if zero(it.get('trip_count', 1)) and it.get('body'): it['body'] = []; cut[0] += 1
            prune(it.get('body', []))
        elif k == 'branch':
            p = it.get('probability')
            if 'condition' not in it and p == 0 and it.get('then'): it['then'] = []; cut[1] += 1
            if 'condition' not in it and p == 1 and it.get('else'): it['else'] = []; cut[1] += 1
            prune(it.get('then', [])); prune(it.get('else', []))
for f in m['functions'].values(): prune(f['body'])
json.dump(m, open(sys.argv[2], 'w'))
print('loops emptied', cut[0], 'sides emptied', cut[1], file=sys.stderr)
