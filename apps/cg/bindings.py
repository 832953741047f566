"""Parameter bindings of cg's analysed program model, for bench/static_validation.py.

bind(n, R, iters) -> {parameter: (value, how)}: the values `perfcast model params` asks for,
for `cg --n n --iters iters --repeats 1 --dot ordered` on R ranks. The names are the source's
(o.iters, p.nloc) or a loop's function and its ordinal there (spmv.loop2.trips: spmv's second
loop); they stay when lines move (docs/program-model.md, "Parameter names").
ANALYZE_FLAGS and KERNEL_SITES name lines of cg.c. apps/cg/validate.toml binds the same names
the same way for `perfcast validate`.
"""

# `perfcast analyze` flags the model needs. No early return before the iterations (cg.c:220:
# `rr <= tol2` is data; its other side holds the solve). Options and sizes are struct fields
# (o.iters, p.nloc, ...): parameters bound below, so loop guards are conditions.
ANALYZE_FLAGS = ["--branch-probability", "cg.c:220=1"]

# bench/cg_kernels.py: the model's site (its loop's line in cg.c) of each kernel, and the
# kernel's calls per cg iteration.
KERNEL_SITES = {"spmv": (139, 1), "dot": (162, 2), "axpy": (227, 1)}


# Per rank, as `perfcast predict` evaluates an expression of `rank` and `size`: cg_slab gives the
# first mod(n, size) ranks one plane more; neighbours are -1 past the global boundary.
NZL = "(floordiv({n}, size) + select(rank < mod({n}, size), 1, 0))"
DOWN = "select(rank > 0, rank - 1, -1)"
UP = "select(rank < size - 1, rank + 1, -1)"


def bind(n, R, iters):
    nzl = NZL.format(n=n)
    plane = n * n
    nloc = f"{plane} * {nzl}"
    # Entries of the rank's rows: 7 per row, less those past the global boundary: the x and
    # y faces of every owned plane (4 n per plane) and the z = 0 and z = n - 1 planes.
    entries = f"(7 * {nloc} - {4 * n} * {nzl} - {plane} * (select(rank < 1, 1, 0) + select(rank > size - 2, 1, 0)))"
    per_row = f"{entries} / ({nloc})"
    # SpMV's gathers xe[col[e]] reach the owned rows and the neighbours' ghost planes.
    reach = f"8 * {plane} * ({nzl} + select(rank > 0, 1, 0) + select(rank < size - 1, 1, 0))"
    argc = 9  # cg --n N --iters K --repeats 1 --dot ordered: the program name and four pairs
    # Left to the source's defaults, which are these runs' values: o.dot (ordered = 0),
    # o.precond (none = 0), o.max_iters (10000; --iters overrides it).
    return {
        "argc": (argc, "argc of `cg --n N --iters K --repeats 1 --dot ordered`"),
        "cg_parse_args.loop1.trips": ((argc - 1) // 2, "parse_args loop: one iteration per option/value pair"),
        "o.iters": (iters, "--iters (a fixed count)"),
        "o.repeats": (1, "--repeats 1 (the source's default is 3)"),
        "o.nx": (n, "--n"),
        "o.ny": (n, "--n"),
        "o.nz": (n, "--n"),
        "p.nz": (n, "Problem: --n"),
        "p.nzl": (nzl, "Problem: owned planes of the rank"),
        "p.plane": (plane, "Problem: points per plane n*n"),
        "p.nloc": (nloc, "Problem: rows nloc = n*n*nzl"),
        "p.down": (DOWN, "Problem: lower neighbour (none on rank 0)"),
        "p.up": (UP, "Problem: upper neighbour (none on the last rank)"),
        "main.loop5.trips": (per_row, "main: the Jacobi set-up's entries per row (as spmv's)"),
        "spmv.loop2.trips": (per_row, "spmv: entries per row, the mean over the rank's rows (7 inside, fewer on "
                                      "the boundary; the counts are linear in it, so the mean is exact)"),
        # cg_solve's ordinal counts its loops up to the iteration loop, among them the --precond
        # jacobi branch's and the vector loops': how the analyser reads those moves it.
        "cg_solve.loop2.trips": (iters, "cg_solve: the iteration loop runs --iters times (fixed count)"),
        **{f"spmv.loop1.{v}.range": (reach, f"spmv's gather from {v}: distinct bytes = owned rows + the "
                                            "neighbours' ghost planes, x 8")
           for v in ("pe", "xs", "ee")},
    }
