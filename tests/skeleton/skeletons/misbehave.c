/* A skeleton that misbehaves in the way its first argument names, on rank 1:
 *   segv   dereferences a null pointer in fault_here()
 *   segv-static  the same in a function with no dynamic symbol
 *   abort  calls abort()
 *   fpe    divides an integer by zero
 *   exit   calls exit(3) before the barrier every rank makes
 *   print  prints a line to stdout on every rank (and behaves)
 *   endless  every rank exchanges barriers forever */
#include <bsim.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void fault_here(volatile int* p) { *p = 42; }
__attribute__((noinline)) static void fault_in_static(volatile int* p) { *p = 43; }

// Read at run time (volatile; const: read-only, not a global the ranks share),
// so no call below has a constant argument for the compiler to specialise the
// callee on (a specialised copy is a local symbol).
static volatile int* volatile const nowhere = NULL;

__attribute__((noinline)) int divide(volatile int a, volatile int b) { return a / b; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* what = argc > 1 ? argv[1] : "";
  BSIM_Add_time(1e-3);
  if (rank == 1) {
    if (strcmp(what, "segv") == 0) fault_here(nowhere);
    if (strcmp(what, "segv-static") == 0) fault_in_static(nowhere);
    if (strcmp(what, "abort") == 0) abort();
    if (strcmp(what, "fpe") == 0) printf("%d\n", divide(rank, 0));
    if (strcmp(what, "exit") == 0) exit(3);
  }
  if (strcmp(what, "print") == 0) printf("rank %d prints to stdout\n", rank);
  if (strcmp(what, "endless") == 0)
    for (;;) {
      BSIM_Add_time(1e-6);
      MPI_Barrier(MPI_COMM_WORLD);
    }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
