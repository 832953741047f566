/* A call into code the analysis cannot see (a library routine), in a loop:
 * priced from the library-cost table the user extends with --library-costs. */
void my_kernel(int n, double *x);

void driver(int steps, int n, double *x) {
  for (int s = 0; s < steps; s++) my_kernel(n, x);
}

int main(void) { return 0; }
