# The values set by hand after bind_amg.py and overrides.py (fortran_c.md, AMG
# section): the additive cycle's levels off (addlvl = num_levels, add_end =
# num_levels - 1, as hypre's set-up leaves them; the probe saw each assigned at
# two places), every `num_vectors` field still required 1 (the value the
# matvec's local num_vectors held in every call), the coarse solve's
# global_num_rows the rows the probe measured there (hypre_GaussElimSolve.n),
# and at 2 ranks the probe's 8.5 for a size a cast needs whole, 8, and
# hypre_build_interp_colmap.j 4 (as the first comparison did).
# usage: hand_values.py BOUND.json NP ARGS (rewritten in place)
import json, sys
model, np_, args = sys.argv[1:4]
P = json.load(open(model))['parameters']
a = [x for x in open(args).read().split('\n') if x]
kv = {a[i + 1].split('=')[0]: a[i + 1].split('=', 1)[1] for i in range(0, len(a), 2)}
levels = int(float(P['hypre_BoomerAMGSetup.num_levels']['default']))
kv['hypre_BoomerAMGSetup.addlvl'] = str(levels)
kv['hypre_BoomerAMGSetup.add_end'] = str(levels - 1)
for n, p in P.items():
    if n.endswith('.num_vectors') and 'default' not in p: kv[n] = '1'
for n in ('A.global_num_rows', 'hypre_GaussElimSolve.A.global_num_rows'):
    if n in kv: kv[n] = P['hypre_GaussElimSolve.n']['default']
if np_ == '2':
    kv['hypre_build_interp_colmap.P_offd_size'] = '8'
    kv['hypre_build_interp_colmap.j'] = '4'  # 3 measured: a vector body's trips below its width (aux_interp.c:806)
open(args, 'w').write('\n'.join(f'--param\n{n}={v}' for n, v in kv.items()))
