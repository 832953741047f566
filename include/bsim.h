/* The BSIM skeleton API (Susukita et al., SC2008), as perfcast runs it.
 *
 * A skeleton is an MPI program whose compute is replaced by BSIM_Add_* calls and
 * whose MPI calls that do not steer the control flow are replaced by LMPI_*
 * twins: same arguments as MPI_*, no data moved, NULL buffers allowed, so tens
 * of thousands of ranks need no message memory. Build with `perfcast cc`, run
 * with `perfcast simulate --machine M --np N -- ./skel args` (docs/skeletons.md). */
#ifndef PERFCAST_BSIM_H
#define PERFCAST_BSIM_H 1

#include <mpi.h>

#ifndef PERFCAST_MPI
#error "bsim.h needs perfcast's own mpi.h: build the skeleton with `perfcast cc` (or add $(perfcast cc --cflags))"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A compute burst of `seconds` of simulated time on this rank (times the time scale). */
void BSIM_Add_time(double seconds);
/* Compute bursts given by their counts, priced by the machine model (floating-point
 * operations; bytes moved to and from memory), times the time scale. */
void BSIM_Add_flops(double flops);
void BSIM_Add_bytes(double bytes);

/* Compute from a program model (docs/skeletons.md, "Compute from the static
 * model"): the work of one function of the model (a perfcast analyze output or a
 * hand-written model), for this rank at the given parameters, priced when the
 * burst runs by the rules `perfcast predict` prices the same work with (the
 * machine file, its --set overrides, the ranks sharing the node), times the
 * time scale.
 *
 * BSIM_Model_load reads the model file (a path from the directory perfcast
 * runs in) once per process: every rank gets the same handle. A bad file ends
 * the rank with the loader's message. BSIM_Add_model_work adds the work of
 * `function` (NULL: the model's entry, the whole program) with `names[i]` =
 * `values[i]` for the model's parameters (`perfcast model params MODEL`; the
 * others take their defaults; rank and size are this rank's). Evaluated once
 * per rank and parameter values, so a step loop may call it every step. */
typedef struct BSIM_Model BSIM_Model;
BSIM_Model *BSIM_Model_load(const char *path);
void BSIM_Add_model_work(BSIM_Model *model, const char *function, int nparams, const char *const names[],
                         const double values[]);

/* Scale factors, so that a skeleton run with a small input can stand for the target
 * input: every later compute amount (BSIM_Add_*) is multiplied by the time scale,
 * every later LMPI_* message size by the size scale (MPI_* calls carry real data,
 * so their sizes are what they move). Both start at 1 on every rank. */
void BSIM_Set_time_scale(double factor);
void BSIM_Set_size_scale(double factor);
double BSIM_Get_time_scale(void);
double BSIM_Get_size_scale(void);

/* Names a point of the program (a phase boundary) in the event stream. */
void BSIM_Marker(int id);

/* MPI calls that move no data: same interface as MPI_*. */
PERFCAST_MPI_COMM_CALLS(LMPI_)

#ifdef __cplusplus
}
#endif

#endif /* PERFCAST_BSIM_H */
