# Loop indices named outside their loop (an analyser bug): each such name in an
# item outside the loop replaced by that loop's trip count (the index once it exits).
import json, re, sys
m = json.load(open(sys.argv[1])); fixed = []
def walk(items, loops, trips, fn):
    for it in items:
        k = it.get('kind')
        for key in ('condition', 'trip_count', 'flops_double', 'loads', 'load_bytes', 'stores', 'store_bytes'):
            if key in it and isinstance(it[key], str):
                for v in set(re.findall(r'\biter_[0-9A-Za-z_]+', it[key])):
                    if v not in loops and v in trips:
                        it[key] = re.sub(r'\b' + v + r'\b', '(' + trips[v] + ')', it[key]); fixed.append((fn, it.get('line'), v))
        if k == 'loop':
            trips[it.get('var')] = it.get('trip_count')
            walk(it.get('body', []), loops | {it.get('var')}, trips, fn)
        if k == 'branch':
            walk(it.get('then', []), loops, trips, fn); walk(it.get('else', []), loops, trips, fn)
for fn, f in m['functions'].items(): walk(f['body'], set(), {}, fn)
json.dump(m, open(sys.argv[2], 'w')); print(fixed, file=sys.stderr)
