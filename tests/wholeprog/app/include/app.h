/* The application's own interface, shared by its C and C++ units. */
#ifndef APP_H
#define APP_H
#ifdef __cplusplus
extern "C" {
#endif
void solve(double* u, double* v, int n);
void exchange(double* u, int n, int rank, int size);
void report(const double* u, int n, int rank);
#ifdef __cplusplus
}
#endif
#endif
