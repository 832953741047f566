/* Compute from a program model: BSIM_Add_model_work CALLS times.
 *   model_work MODEL FUNCTION CALLS SPLIT [name=value ...]
 * FUNCTION "-" is the model's entry; SPLIT 1 puts an LMPI_Barrier after each
 * call (one burst per call), 0 lets the calls merge into one burst. Exit codes:
 * 2 bad arguments. */
#include <bsim.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxParams = 16 };

int main(int argc, char **argv) {
  const char *names[kMaxParams];
  double values[kMaxParams];
  char copies[kMaxParams][64];
  int nparams = 0, calls, split, i;
  MPI_Init(&argc, &argv);
  if (argc < 5 || argc - 5 > kMaxParams) return 2;
  calls = atoi(argv[3]);
  split = atoi(argv[4]);
  for (i = 5; i < argc; i++) {
    char *eq;
    strncpy(copies[nparams], argv[i], sizeof copies[nparams] - 1);
    copies[nparams][sizeof copies[nparams] - 1] = '\0';
    eq = strchr(copies[nparams], '=');
    if (eq == NULL) return 2;
    *eq = '\0';
    names[nparams] = copies[nparams];
    values[nparams] = strtod(eq + 1, NULL);
    nparams++;
  }
  BSIM_Model *model = BSIM_Model_load(argv[1]);
  const char *function = strcmp(argv[2], "-") == 0 ? NULL : argv[2];
  for (i = 0; i < calls; i++) {
    BSIM_Add_model_work(model, function, nparams, names, values);
    if (split) LMPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
