"""Parameter bindings of nbody's analysed program model, for bench/static_validation.py.

bind(N, R, steps) -> {parameter: (value, how)}: the values `perfcast model params` asks for,
for `nbody --bodies N --steps steps --repeats 1 --seed 12345` on R ranks. The names are the
source's (p.steps, w.nloc), a loop's or call's function and its ordinal there
(plummer.loop2.trips: plummer's second loop; main.MPI_Allgatherv1.count); they stay when lines
move (docs/program-model.md, "Parameter names"). apps/nbody/validate.toml binds the same names
the same way for `perfcast validate`.

Values may be expressions of `rank` and `size`, which `perfcast predict` evaluates per rank.
Not bound: the Barnes-Hut tree's loops (tree_accel.*, tree_insert.*, tree_moments.*) and the
ranges of evaluate's tree walk, which only --force bh runs (these runs are --force direct).
"""

# `perfcast analyze` flags the model needs: --force, --integrator, --steps and --repeats are
# fields of a struct, parameters (p.force, ...) bound below; no branch needs a probability.
ANALYZE_FLAGS = []


def bind(N, R, steps):
    # nbody_blocks: the first mod(N, size) ranks own one body more.
    nloc = f"(floordiv({N}, size) + select(rank < mod({N}, size), 1, 0))"
    first = f"(rank * floordiv({N}, size) + min(rank, mod({N}, size)))"
    argc = 9  # nbody --bodies N --steps S --repeats 1 --seed 12345: the program name and four pairs
    return {
        "argc": (argc, "argc of `nbody --bodies N --steps S --repeats 1 --seed 12345`"),
        "nbody_parse_args.loop1.trips": ((argc - 1) // 2, "parse_args loop: one iteration per option/value pair"),
        # nbody_parse_args writes the options through a pointer and the model keeps none of the
        # source's defaults for them, so even those the runs leave alone are bound.
        "p.steps": (steps, "--steps"),
        "p.bodies": (N, "--bodies"),
        "p.repeats": (1, "--repeats 1"),
        "p.force": (0, "--force direct (FORCE_DIRECT = 0, the default)"),
        "p.integrator": (0, "--integrator leapfrog (INT_LEAPFROG = 0, the default)"),
        "w.n": (N, "World: n = --bodies"),
        "n": (N, "nbody_blocks(): n = --bodies"),
        "w.nloc": (nloc, "World: the rank's bodies"),
        "w.first": (first, "World: the rank's first body"),
        "w.tree.cap": (0, "no tree with --force direct: World is zeroed and stays so"),
        "main.MPI_Allgatherv1.count": (nloc, "the masses: w.nloc doubles"),
        "main.MPI_Allgatherv2.count": (f"3 * {nloc}", "the positions: 3 w.nloc doubles"),
        "main.memcpy1.bytes": (f"24 * {nloc}", "the rank's positions out of the Plummer sphere"),
        "main.memcpy2.bytes": (f"24 * {nloc}", "its velocities"),
        "main.memcpy3.bytes": (f"8 * {nloc}", "its masses"),
        "main.loop3.trips": (1, "the times printed: one per repeat (--repeats 1)"),
        # plummer's rejection sampling (set-up): expected draws per body, from its constants.
        "plummer.loop2.trips": ("1.01 ^ 1.5", "r = (x1^(-2/3) - 1)^(-1/2) > 10 rejects x1 > 1.01^(-3/2)"),
        "plummer.loop3.trips": (0, "x1 <= 1e-10 (probability 1e-10): no redraw in practice"),
        "plummer.loop4.trips": (2.3282, "g ~ U(0, 0.1) <= q^2 (1 - q^2)^(7/2) accepts with probability "
                                        "10 B(3/2, 9/2) / 2 = 0.4295"),
    }
