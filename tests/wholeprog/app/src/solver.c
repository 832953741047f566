/* The solver: SOLVER_SWEEPS Jacobi sweeps, a constant only this unit's flags define. */
#include "app.h"
#include "solver_config.h"

#ifndef SOLVER_SWEEPS
#error "SOLVER_SWEEPS comes from the solver's own -D"
#endif

void solve(double* restrict u, double* restrict v, int n) {
  for (int sweep = 0; sweep < SOLVER_SWEEPS; ++sweep) {
    for (int i = 1; i <= n; ++i) v[i] = SOLVER_WEIGHT * (u[i - 1] + 2.0 * u[i] + u[i + 1]);
    for (int i = 1; i <= n; ++i) u[i] = v[i];
  }
}
