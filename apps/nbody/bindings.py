"""Parameter bindings of nbody's analysed program model, for bench/static_validation.py.

bind(N, R, steps) -> {parameter: (value, how)}: the values `perfcast model params` asks for,
for `nbody --bodies N --steps steps --repeats 1 --seed 12345` on R ranks. The names are the
source's (p.steps, w.nloc) or a loop's function and its ordinal there (energy.loop2.trips:
energy's second loop); they stay when lines move (docs/program-model.md, "Parameter names").
"""

# `perfcast analyze` flags the model needs: --force, --integrator, --steps and --repeats are
# fields of a struct, parameters (p.force, ...) bound below; no branch needs a probability.
ANALYZE_FLAGS = []


def bind(N, R, steps):
    nloc = -(-N // R)  # the first N mod R ranks own one more; rank 0 is the largest
    argc = 9  # nbody --bodies N --steps S --repeats 1 --seed 12345
    return {
        "argc": (argc, "argc of `nbody --bodies N --steps S --repeats 1 --seed 12345`"),
        "nbody_parse_args.loop1.trips": ((argc - 1) // 2, "parse_args loop: one iteration per option/value pair"),
        "p.steps": (steps, "--steps"),
        "p.bodies": (N, "--bodies"),
        "p.repeats": (1, "--repeats 1"),
        "p.force": (0, "--force direct (FORCE_DIRECT = 0, the default)"),
        "p.integrator": (0, "--integrator leapfrog (INT_LEAPFROG = 0, the default)"),
        "w.n": (N, "World: n = --bodies"),
        "n": (N, "nbody_blocks(): n = --bodies (the block decomposition, nbody_options.h)"),
        "w.nloc": (nloc, "World: nloc = ceil(N/R) (rank 0)"),
        "w.first": (0, "World: first body of rank 0"),
        "integrate.loop1.trips": (steps, "integrate: leapfrog loop over --steps (its bound is re-read each step)"),
        "main.loop1.trips": (1, "main: the repeats loop, --repeats 1"),
        "energy.loop1.trips": (nloc, "energy: loop over local bodies"),
        "energy.loop2.trips": (N, "energy: loop over all bodies"),
    }
