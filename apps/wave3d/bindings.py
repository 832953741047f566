"""Parameter bindings of wave3d's analysed program model, for bench/static_validation.py.

bind(n, R, steps) -> {parameter: (value, how)}: the values `perfcast model params` asks for,
for `wave3d --n n --steps steps --repeats 1` on R ranks. The names are the source's (opt.steps,
leapfrog_step.sx), a loop's function and ordinal there (wave3d_parse_args.loop1.trips), or an
inlined call's (main.wave3d_block2.c: c of main's second call of wave3d_block); they stay
when lines move (docs/program-model.md, "Parameter names").
"""

# `perfcast analyze` flags the model needs (none: no branch needs a probability).
ANALYZE_FLAGS = []


def dims3(R):
    """MPI_Dims_create(R, 3) with all dims free, for the rank counts the benches run (1, 2; 4-16
    on one node in bench/sharing_whatif.py): as balanced as it gets, in non-increasing order."""
    return {1: (1, 1, 1), 2: (2, 1, 1), 4: (2, 2, 1), 8: (2, 2, 2), 16: (4, 2, 2)}[R]


def bind(n, R, steps):
    px, py, pz = dims3(R)
    lx, ly, lz = n // px, n // py, n // pz
    argc = 7  # wave3d --n N --steps S --repeats 1
    b = {
        "argc": (argc, "argc of `wave3d --n N --steps S --repeats 1`"),
        "wave3d_parse_args.loop1.trips": ((argc - 1) // 2, "parse_args loop: one iteration per option/value pair"),
        "opt.steps": (steps, "--steps"),
        "opt.repeats": (1, "--repeats 1"),
        "opt.ny": (n, "--n"),
        "opt.nz": (n, "--n"),
        "lx": (lx, "n/px, px from MPI_Dims_create(R,3)"),
        "ly": (ly, "n/py"),
        "lz": (lz, "n/pz"),
        "count_1": (ly * lz, "count[XHI] = ly*lz (x faces)"),
        "count_3": (lx * lz, "count[YHI] = lx*lz (y faces)"),
        "count_5": (lx * ly, "count[ZHI] = lx*ly (z faces)"),
        "main.wave3d_block2.c": (0, "block(): coordinate along y (0: py = 1)"),
        "main.wave3d_block2.p": (py, "block(): ranks along y"),
        "main.wave3d_block3.c": (0, "block(): coordinate along z (0: pz = 1)"),
        "main.wave3d_block3.p": (pz, "block(): ranks along z"),
        "leapfrog_step.sy": (lz + 2, "sy = lz + 2 (leapfrog_step)"),
        "leapfrog_step.sx": ((ly + 2) * (lz + 2), "sx = (ly + 2) * (lz + 2) (leapfrog_step; the footprint uses it)"),
    }
    # The halo peers nbr_0 .. nbr_5 are left to their defaults: MPI_Cart_shift's neighbours
    # per rank with every dim chosen by MPI_Dims_create (no --px/--py/--pz), -1 off the grid.
    return b
