"""Parameter bindings of wave3d's analysed program model, for bench/static_validation.py.

bind(n, R, steps) -> {parameter: (value, how)}: the values `perfcast model params` asks for,
for `wave3d --n n --steps steps --repeats 1` on R ranks. The names are the source's (opt.steps,
leapfrog_step.sx), a loop's function and ordinal there (wave3d_parse_args.loop1.trips), or an
inlined call's (main.wave3d_block2.c: c of main's second call of wave3d_block); they stay
when lines move (docs/program-model.md, "Parameter names"). apps/wave3d/validate.toml binds
the same names the same way for `perfcast validate`.

A value may be an expression that `perfcast predict` evaluates per rank: `rank`, `size`, and
dims3_0 x dims3_1 x dims3_2, the grid MPI_Dims_create(size, 3) chooses with every dimension
free (wave3d's grid when --px/--py/--pz are not given), so one binding holds at every rank
count and on every rank, the first mod(n, p) blocks of an axis one point longer.
"""

# `perfcast analyze` flags the model needs (none: no branch needs a probability).
ANALYZE_FLAGS = []

# A rank's coordinates on the grid (row-major, as MPI_Cart_create numbers it with reorder 0).
COORD = {"x": "floordiv(rank, dims3_1 * dims3_2)", "y": "mod(floordiv(rank, dims3_2), dims3_1)",
         "z": "mod(rank, dims3_2)"}
DIM = {"x": "dims3_0", "y": "dims3_1", "z": "dims3_2"}


def block(n, axis):
    """wave3d_block: n points over the axis' ranks, the first mod(n, p) one more."""
    p, c = DIM[axis], COORD[axis]
    return f"(floordiv({n}, {p}) + select({c} < mod({n}, {p}), 1, 0))"


def bind(n, R, steps):
    lx, ly, lz = block(n, "x"), block(n, "y"), block(n, "z")
    argc = 7  # wave3d --n N --steps S --repeats 1: the program name and three option/value pairs
    return {
        "argc": (argc, "argc of `wave3d --n N --steps S --repeats 1`"),
        "wave3d_parse_args.loop1.trips": ((argc - 1) // 2, "parse_args loop: one iteration per option/value pair"),
        "opt.steps": (steps, "--steps"),
        "opt.repeats": (1, "--repeats 1 (the source's default is 3)"),
        "opt.ny": (n, "--n (the source's default is 64)"),
        "opt.nz": (n, "--n"),
        "lx": (lx, "x block of the rank: n over dims3_0"),
        "ly": (ly, "y block: n over dims3_1"),
        "lz": (lz, "z block: n over dims3_2"),
        "count_1": (f"{ly} * {lz}", "count[XHI] = ly*lz (x faces)"),
        "count_3": (f"{lx} * {lz}", "count[YHI] = lx*lz (y faces)"),
        "count_5": (f"{lx} * {ly}", "count[ZHI] = lx*ly (z faces)"),
        "main.wave3d_block2.c": (COORD["y"], "wave3d_block for y: the rank's coordinate along y"),
        "main.wave3d_block2.p": ("dims3_1", "wave3d_block for y: ranks along y"),
        "main.wave3d_block3.c": (COORD["z"], "wave3d_block for z: the rank's coordinate along z"),
        "main.wave3d_block3.p": ("dims3_2", "wave3d_block for z: ranks along z"),
        "leapfrog_step.sy": (f"{lz} + 2", "sy = lz + 2 (leapfrog_step)"),
        "leapfrog_step.sx": (f"({ly} + 2) * ({lz} + 2)", "sx = (ly + 2) * (lz + 2) (leapfrog_step; the footprint uses it)"),
    }
    # The halo peers nbr_0 .. nbr_5 are left to their defaults: MPI_Cart_shift's neighbours
    # per rank with every dim chosen by MPI_Dims_create (no --px/--py/--pz), -1 off the grid.
