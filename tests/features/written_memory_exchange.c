/* The other unit of written_memory.c: the exchange that writes the count, and
 * a call the caller cannot see into, after which it reads the count again. */
void exchange(int n, int *count) { *count = 2 * n; }

void note(double *v) { v[0] = 1.0; }
