/* Reached only through the solver's -I: its weights. */
#define SOLVER_WEIGHT 0.25
