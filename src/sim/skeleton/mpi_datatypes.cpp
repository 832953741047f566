// Datatype and reduction-operation entry points: sizes and extents, derived
// types, user operations, and MPI_Get_count. They need no rank (datatypes.h
// holds the types), so they also work outside a rank's fiber.
#include "sim/skeleton/mpi_entry.h"

using namespace perfcast::sim::skeleton;  // datatypes.h

extern "C" {

int MPI_Type_size(MPI_Datatype t, int* size) {
  if (!type_valid(t)) return MPI_ERR_TYPE;
  *size = static_cast<int>(type_size(t));
  return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype t, MPI_Aint* lb, MPI_Aint* extent) {
  if (!type_valid(t)) return MPI_ERR_TYPE;
  *lb = 0;
  *extent = type_extent(t);
  return MPI_SUCCESS;
}

int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype* newtype) {
  *newtype = type_contiguous(count, old);
  return *newtype == MPI_DATATYPE_NULL ? MPI_ERR_TYPE : MPI_SUCCESS;
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype old, MPI_Datatype* newtype) {
  *newtype = type_vector(count, blocklength, stride, old);
  return *newtype == MPI_DATATYPE_NULL ? MPI_ERR_TYPE : MPI_SUCCESS;
}

int MPI_Type_commit(MPI_Datatype* t) { return t && type_valid(*t) ? MPI_SUCCESS : MPI_ERR_TYPE; }

int MPI_Type_free(MPI_Datatype* t) {
  if (!t) return MPI_ERR_TYPE;
  type_free(*t);
  *t = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

int MPI_Op_create(MPI_User_function* fn, int commute, MPI_Op* op) {
  *op = op_create(reinterpret_cast<UserFunction*>(fn), commute != 0);
  return MPI_SUCCESS;
}

int MPI_Op_free(MPI_Op* op) {
  op_free(*op);
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status* status, MPI_Datatype t, int* count) {
  std::size_t size = type_size(t);
  if (!status || size == 0) return MPI_ERR_ARG;
  auto bytes = static_cast<std::size_t>(status->perfcast_bytes);
  *count = bytes % size ? MPI_UNDEFINED : static_cast<int>(bytes / size);
  return MPI_SUCCESS;
}

}  // extern "C"
