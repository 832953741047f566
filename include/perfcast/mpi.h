/* perfcast's own mpi.h, for skeletons run by `perfcast simulate` (include it as
 * <mpi.h>; `perfcast cc` puts this directory first on the include path).
 *
 * Why a header of our own: MPICH and Open MPI differ in ABI (MPI_Comm is an int in
 * one, a pointer in the other), and a skeleton runs inside perfcast, not against a
 * system MPI. Handles here are the event-stream's own numbers (events/event.h):
 * MPI_Comm is the rank's communicator handle (0 world, 1 self, then one per
 * communicator the rank creates), MPI_Request a per-rank request id never reused.
 *
 * MPI_* calls move their data between ranks in memory; LMPI_* (bsim.h) have the
 * same interface but move none and accept NULL buffers. */
#ifndef PERFCAST_MPI_H
#define PERFCAST_MPI_H 1

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PERFCAST_MPI 1
#define MPI_VERSION 3
#define MPI_SUBVERSION 1

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef long long MPI_Request;
typedef long MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;

typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int perfcast_reserved;
  long long perfcast_bytes; /* bytes received, for MPI_Get_count */
} MPI_Status;

typedef void MPI_User_function(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype);

/* Communicators (event.h: kCommWorld, kCommSelf). */
#define MPI_COMM_NULL (-1)
#define MPI_COMM_WORLD 0
#define MPI_COMM_SELF 1

/* Special ranks, tags and values (event.h: kAnySource, kProcNull, kAnyTag, kUndefinedColor). */
#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_TAG_UB 32767
#define MPI_REQUEST_NULL 0LL
#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_STATUSES_IGNORE ((MPI_Status*)0)
#define MPI_IN_PLACE ((void*)1)
#define MPI_BOTTOM ((void*)0)
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256
#define MPI_ERRORS_ARE_FATAL 1
#define MPI_ERRORS_RETURN 2

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Error classes. Errors end the simulation with a message naming the rank and the
 * call (as MPI_ERRORS_ARE_FATAL would); the codes exist for code that names them. */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_OP 9
#define MPI_ERR_ARG 12
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_LASTCODE 100

/* Datatypes. */
#define MPI_DATATYPE_NULL 0
#define MPI_CHAR 1
#define MPI_SIGNED_CHAR 2
#define MPI_UNSIGNED_CHAR 3
#define MPI_BYTE 4
#define MPI_SHORT 5
#define MPI_UNSIGNED_SHORT 6
#define MPI_INT 7
#define MPI_UNSIGNED 8
#define MPI_LONG 9
#define MPI_UNSIGNED_LONG 10
#define MPI_LONG_LONG_INT 11
#define MPI_LONG_LONG 11
#define MPI_UNSIGNED_LONG_LONG 12
#define MPI_FLOAT 13
#define MPI_DOUBLE 14
#define MPI_LONG_DOUBLE 15
#define MPI_C_BOOL 16
#define MPI_INT8_T 17
#define MPI_INT16_T 18
#define MPI_INT32_T 19
#define MPI_INT64_T 20
#define MPI_UINT8_T 21
#define MPI_UINT16_T 22
#define MPI_UINT32_T 23
#define MPI_UINT64_T 24
#define MPI_WCHAR 25
#define MPI_PACKED 26
#define MPI_AINT 27
#define MPI_OFFSET 28
#define MPI_COUNT 29
#define MPI_FLOAT_INT 30
#define MPI_DOUBLE_INT 31
#define MPI_LONG_INT 32
#define MPI_2INT 33
#define MPI_SHORT_INT 34
#define MPI_LONG_DOUBLE_INT 35
#define MPI_C_FLOAT_COMPLEX 36
#define MPI_C_DOUBLE_COMPLEX 37
#define MPI_CXX_BOOL 38
#define MPI_UNSIGNED_SHORT_INT MPI_UNSIGNED_SHORT

/* Reduction operations. */
#define MPI_OP_NULL 0
#define MPI_MAX 1
#define MPI_MIN 2
#define MPI_SUM 3
#define MPI_PROD 4
#define MPI_LAND 5
#define MPI_BAND 6
#define MPI_LOR 7
#define MPI_BOR 8
#define MPI_LXOR 9
#define MPI_BXOR 10
#define MPI_MAXLOC 11
#define MPI_MINLOC 12
#define MPI_REPLACE 13

/* Environment. */
int MPI_Init(int* argc, char*** argv);
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided);
int MPI_Initialized(int* flag);
int MPI_Finalize(void);
int MPI_Finalized(int* flag);
/* A tool's hook: level 1 starts the timed region, 0 ends it (an event; costs nothing). */
int MPI_Pcontrol(const int level, ...);
int MPI_Abort(MPI_Comm comm, int errorcode);
double MPI_Wtime(void); /* the rank's simulated clock, in seconds */
double MPI_Wtick(void);
int MPI_Get_processor_name(char* name, int* resultlen);
int MPI_Get_version(int* version, int* subversion);
int MPI_Error_string(int errorcode, char* string, int* resultlen);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Query_thread(int* provided);

/* Communicators and Cartesian topologies. */
int MPI_Comm_rank(MPI_Comm comm, int* rank);
int MPI_Comm_size(MPI_Comm comm, int* size);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm);
int MPI_Comm_free(MPI_Comm* comm);
int MPI_Dims_create(int nnodes, int ndims, int dims[]);
int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm* comm_cart);
int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest);
int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank);
int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
int MPI_Cartdim_get(MPI_Comm comm, int* ndims);

/* Datatypes and operations. */
int MPI_Type_size(MPI_Datatype datatype, int* size);
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent);
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype);
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype);
int MPI_Type_commit(MPI_Datatype* datatype);
int MPI_Type_free(MPI_Datatype* datatype);
int MPI_Op_create(MPI_User_function* function, int commute, MPI_Op* op);
int MPI_Op_free(MPI_Op* op);
int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count);

/* The communication calls; bsim.h declares the LMPI_* twin of each. */
#define PERFCAST_MPI_COMM_CALLS(P)                                                                              \
  int P##Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);           \
  int P##Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);          \
  int P##Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,           \
               MPI_Request* request);                                                                          \
  int P##Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,          \
                MPI_Request* request);                                                                         \
  int P##Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,                \
              MPI_Status* status);                                                                             \
  int P##Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,               \
               MPI_Request* request);                                                                          \
  int P##Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,           \
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, \
                  MPI_Status* status);                                                                         \
  int P##Probe(int source, int tag, MPI_Comm comm, MPI_Status* status);                                       \
  int P##Wait(MPI_Request* request, MPI_Status* status);                                                      \
  int P##Waitall(int count, MPI_Request requests[], MPI_Status statuses[]);                                   \
  int P##Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status);                          \
  int P##Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]);  \
  int P##Test(MPI_Request* request, int* flag, MPI_Status* status);                                           \
  int P##Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]);                        \
  int P##Barrier(MPI_Comm comm);                                                                              \
  int P##Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);                      \
  int P##Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,    \
                MPI_Comm comm);                                                                                \
  int P##Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,           \
                   MPI_Comm comm);                                                                             \
  int P##Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,      \
                MPI_Datatype recvtype, int root, MPI_Comm comm);                                               \
  int P##Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,                    \
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);  \
  int P##Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,     \
                 MPI_Datatype recvtype, int root, MPI_Comm comm);                                              \
  int P##Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,     \
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);               \
  int P##Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,   \
                   MPI_Datatype recvtype, MPI_Comm comm);                                                      \
  int P##Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,                 \
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);         \
  int P##Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,    \
                  MPI_Datatype recvtype, MPI_Comm comm);                                                       \
  int P##Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,   \
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,          \
                   MPI_Comm comm);                                                                             \
  int P##Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,    \
                        MPI_Op op, MPI_Comm comm);                                                             \
  int P##Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,       \
                              MPI_Op op, MPI_Comm comm);                                                       \
  int P##Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm); \
  int P##Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

PERFCAST_MPI_COMM_CALLS(MPI_)

#ifdef __cplusplus
}
#endif

#endif /* PERFCAST_MPI_H */
