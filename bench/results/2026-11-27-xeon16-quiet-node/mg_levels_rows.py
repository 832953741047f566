"""usage: mg_levels_rows.py BEFORE_JSON AFTER_JSON (quiet_node.py --reprice outputs)

mg's rows of two quiet-node repricings side by side: each estimate's error against the
measured median, and the naive baseline (the same size's 1-rank median over the ranks)."""
import json, sys
before, after = (json.load(open(p)) for p in sys.argv[1:3])
def key(r): return (r['size'], r['ranks'])
def rows(doc): return {key(r): r for r in doc['runs'] if r['app'] == 'mg'}
b, a = rows(before), rows(after)
one = {r['size']: r['measured']['median_s'] for r in b.values() if r['ranks'] == 1}
def err(pred, meas): return f"{100 * (pred / meas - 1):+.0f} %" if pred else "-"
print("| size | ranks | measured | refined before | after | noisy before | after | simulated-noisy before | after | naive |")
print("|---|---|---|---|---|---|---|---|---|---|")
for k in sorted(b, key=lambda k: (k[0], k[1])):
    m = b[k]['measured']['median_s']
    eb, ea = b[k]['prediction']['estimates'], a[k]['prediction']['estimates']
    naive = err(one[k[0]] / k[1], m) if k[1] > 1 else "-"
    print(f"| {k[0]} | {k[1]} | {m * 1e3:.2f} ms | " + " | ".join(
        f"{err(eb.get(n), m)} | {err(ea.get(n), m)}" for n in ("refined", "noisy", "simulated-noisy")) + f" | {naive} |")
same = all(b[k]['prediction']['estimates'] == a[k]['prediction']['estimates'] for k in b)
print(f"\nevery estimate identical: {same}")
