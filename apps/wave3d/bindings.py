"""Parameter bindings of wave3d's analysed program model, for bench/static_validation.py.

bind(n, R, steps) -> {parameter: (value, how)}: the values `perfcast model params` asks for,
for `wave3d --n n --steps steps --repeats 1` on R ranks. Names ending in a number
(argc_187, loop_wave3d_c_101_trips, sy_173, ...) are the analyser's: they carry the source
line of the variable or loop, so an edit to wave3d.c or wave3d_options.h that moves lines
renames them, and the bench stops with the names the model has instead.
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
        "argc_187": (argc, "argc of `wave3d --n N --steps S --repeats 1`"),
        "loop_wave3d_options_h_54_trips": ((argc - 1) // 2, "parse_args loop: one iteration per option/value pair"),
        "opt.steps": (steps, "--steps"),
        "opt.repeats": (1, "--repeats 1"),
        "opt.ny": (n, "--n"),
        "lx": (lx, "n/px, px from MPI_Dims_create(R,3)"),
        "ly": (ly, "n/py"),
        "lz": (lz, "n/pz"),
        "count_1": (ly * lz, "count[XHI] = ly*lz (x faces)"),
        "count_3": (lx * lz, "count[YHI] = lx*lz (y faces)"),
        "count_5": (lx * ly, "count[ZHI] = lx*ly (z faces)"),
        "c_123": (0, "block(): coordinate along y (0: py = 1)"),
        "p_123": (py, "block(): ranks along y"),
        "loop_wave3d_c_101_trips": (lz, "pack_faces inner loop over k: lz"),
        "loop_wave3d_c_94_trips": (lz, "pack_faces inner loop over k: lz"),
        "sy_173": (lz + 2, "sy = lz + 2 (leapfrog_step)"),
        "sx_172": ((ly + 2) * (lz + 2), "sx = (ly + 2) * (lz + 2) (leapfrog_step; the footprint uses it)"),
    }
    # The halo peers nbr_0 .. nbr_5 are left to their defaults: MPI_Cart_shift's neighbours
    # per rank with every dim chosen by MPI_Dims_create (no --px/--py/--pz), -1 off the grid.
    return b
