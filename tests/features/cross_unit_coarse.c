// The coarse solver of cross_unit_recursion.c, in a file of its own: it sets
// up the next level by calling that file's `setup`.
void setup(const double* v, int n, int level, int levels);

void coarse_solver(const double* v, int n, int level, int levels) { setup(v, n, level, levels); }
