"""Parameter bindings of cg's analysed program model, for bench/static_validation.py.

bind(n, R, iters) -> {parameter: (value, how)}: the values `perfcast model params` asks for,
for `cg --n n --iters iters --repeats 1 --dot ordered` on R ranks. The names are the source's
(o.iters, p.nloc) or a loop's function and its ordinal there (spmv.loop2.trips: spmv's second
loop); they stay when lines move (docs/program-model.md, "Parameter names").
ANALYZE_FLAGS and KERNEL_SITES name lines of cg.c.
"""

# `perfcast analyze` flags the model needs. No early return before the iterations (322:
# `rr <= tol2` is data; its other side holds the solve). Options and sizes are struct fields
# (o.iters, p.nloc, ...): parameters bound below, so loop guards are conditions.
ANALYZE_FLAGS = ["--branch-probability", "cg.c:220=1"]

# bench/cg_kernels.py: the model's site (its loop's line in cg.c) of each kernel, and the
# kernel's calls per cg iteration.
KERNEL_SITES = {"spmv": (139, 1), "dot": (162, 2), "axpy": (227, 1)}


def bind(n, R, iters):
    nzl = -(-n // R)  # z-planes of rank 0 (the first nz mod R ranks own one more)
    plane = n * n
    nloc = plane * nzl
    # Entries of rank 0's rows (planes 0..nzl-1): 7 per row but for the missing
    # neighbours on the global boundary: the z = 0 plane (and z = nz-1 if rank 0
    # owns it), and the x and y faces of every owned plane.
    missing = plane + (plane if nzl == n else 0) + 2 * n * nzl + 2 * n * nzl
    entries = (7 * nloc - missing) / nloc
    argc = 9  # cg --n N --iters K --repeats 1 --dot ordered
    return {
        "argc": (argc, "argc of `cg --n N --iters K --repeats 1 --dot ordered`"),
        "cg_parse_args.loop1.trips": ((argc - 1) // 2, "parse_args loop: one iteration per option/value pair"),
        "o.iters": (iters, "--iters (a fixed count)"),
        "o.max_iters": (10000, "--max-iters not given (its default)"),
        "o.repeats": (1, "--repeats 1"),
        "o.dot": (0, "--dot ordered (DOT_ORDERED = 0)"),
        "main.loop1.trips": (nzl, "main: the set-up loop over owned planes, p.nzl"),
        "main.loop5.trips": (entries, "main: the Jacobi set-up's entries per row (as spmv's)"),
        "o.nx": (n, "--n"),
        "o.ny": (n, "--n"),
        "o.nz": (n, "--n"),
        "o.precond": (0, "--precond not given (PRECOND_NONE = 0)"),
        "cg_solve.loop2.trips": (iters, "cg_solve: the iteration loop runs --iters times (fixed count)"),
        "spmv.loop2.trips": (entries, "spmv: entries per row, the mean over rank 0's rows (7 inside, fewer on the "
                                         "boundary; the model is linear in it, so the mean is exact)"),
        "p.nloc": (nloc, "Problem: rows nloc = n*n*nzl"),
        "p.nx": (n, "Problem: --n"),
        "p.ny": (n, "Problem: --n"),
        "p.nz": (n, "Problem: --n"),
        "p.nzl": (nzl, "Problem: owned planes of rank 0"),
        "p.plane": (plane, "Problem: points per plane n*n"),
        # SpMV's gather xe[col[e]] reaches the owned rows and the ghost planes of its neighbours:
        # at R = 1 none, at R = 2 one on either rank (the analyser's default counts every access).
        **{f"spmv.loop1.{v}.range": (8 * (nloc + plane * (1 if R > 1 else 0)),
                                   f"spmv's gather from {v}: distinct bytes = owned rows + ghost planes read, x 8")
           for v in ("pe", "xs", "ee")},
        # Per rank (an expression of rank and size), so the simulated calls pair up.
        "p.down": ("select(rank > 0, rank - 1, -1)", "Problem: lower neighbour (none on rank 0)"),
        "p.up": ("select(rank < size - 1, rank + 1, -1)", "Problem: upper neighbour (none on the last rank)"),
    }
