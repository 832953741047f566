"""Parameter bindings of nbody's analysed program model, for bench/static_validation.py.

bind(N, R, steps) -> {parameter: (value, how)}: the values `perfcast model params` asks for,
for `nbody --bodies N --steps steps --repeats 1 --seed 12345` on R ranks. Names ending in a
number (argc_440, loop_nbody_c_390_trips, ...) are the analyser's: they carry the source line
of the variable or loop, so an edit to nbody.c or nbody_options.h that moves lines renames
them, and the bench stops with the names the model has instead.
"""

# `perfcast analyze` flags the model needs: --force, --integrator, --steps and --repeats are
# fields of a struct, parameters (p.force, ...) bound below; no branch needs a probability.
ANALYZE_FLAGS = []


def bind(N, R, steps):
    nloc = -(-N // R)  # the first N mod R ranks own one more; rank 0 is the largest
    argc = 9  # nbody --bodies N --steps S --repeats 1 --seed 12345
    return {
        "argc_440": (argc, "argc of `nbody --bodies N --steps S --repeats 1 --seed 12345`"),
        "loop_nbody_options_h_80_trips": ((argc - 1) // 2, "parse_args loop: one iteration per option/value pair"),
        "p.steps": (steps, "--steps"),
        "p.bodies": (N, "--bodies"),
        "p.repeats": (1, "--repeats 1"),
        "p.force": (0, "--force direct (FORCE_DIRECT = 0, the default)"),
        "p.integrator": (0, "--integrator leapfrog (INT_LEAPFROG = 0, the default)"),
        "w.n": (N, "World: n = --bodies"),
        "n": (N, "nbody_blocks(): n = --bodies (the block decomposition, nbody_options.h)"),
        "w.nloc": (nloc, "World: nloc = ceil(N/R) (rank 0)"),
        "w.first": (0, "World: first body of rank 0"),
        "loop_nbody_c_390_trips": (steps, "integrate: leapfrog loop over --steps (its bound is re-read each step)"),
        "loop_nbody_c_511_trips": (1, "main: the repeats loop, --repeats 1"),
        "loop_nbody_c_364_trips": (nloc, "energy: loop over local bodies"),
        "loop_nbody_c_370_trips": (N, "energy: loop over all bodies"),
    }
