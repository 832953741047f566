# Runs predict until it evaluates: each time a count fails ("a count must be
# finite", "evaluates to -N", "integer overflow"), the parameters named in the
# error that were set unread (8, by bind_amg.py) are tried at 1, then 0, then 16.
# usage: repair.py MODEL NP ARGS OUT [max_rounds]
import os, sys, subprocess, re, json, time
model, np_, args, out = sys.argv[1:5]; rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 8
def load():
    a = [x for x in open(args).read().split('\n') if x]
    return {a[i+1].split('=')[0]: a[i+1].split('=', 1)[1] for i in range(0, len(a), 2)}
kv = load(); unread = {n for n, v in kv.items() if v == '8'}
tried = {}
log = open(out + '.repair.log', 'a')
for r in range(rounds):
    t = time.time()
    cmd = [os.environ.get('PERFCAST', 'perfcast'), 'predict', model, '--machine', os.environ.get('MACHINE', 'vm.toml'), '--np', np_, '--json']
    for n, v in kv.items(): cmd += ['--param', f'{n}={v}']
    p = subprocess.run(cmd, capture_output=True, text=True)
    print(f'round {r}: rc={p.returncode} {time.time()-t:.0f} s', file=log, flush=True)
    if p.returncode == 0:
        open(out, 'w').write(p.stdout); break
    err = p.stderr; print(err[:400], file=log, flush=True)
    names = re.findall(r'([A-Za-z_][A-Za-z0-9_.]*)=(-?[0-9.e+]+)', err)
    changed = []
    for n, v in names:
        if n in unread:
            nxt = {'8': '1', '1': '0', '0': '16'}.get(kv[n])
            if nxt and n not in [c[0] for c in changed]: kv[n] = nxt; changed.append((n, nxt))
    print('changed', changed, file=log, flush=True)
    if not changed: break
open(args + '.repaired', 'w').write('\n'.join(f'--param\n{n}={v}' for n, v in kv.items()))
