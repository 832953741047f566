// MPI datatypes and reduction operations of perfcast's mpi.h: sizes, packing
// into contiguous bytes, and the standard reductions on packed data.
//
// Data moves between ranks packed: a sender's buffer is packed when the call is
// made (MPI lets a sender reuse it as soon as the call returns, and the engine may
// let it run on before the receiver arrives), and unpacked into the receiver's
// layout when the engine matches the operation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace perfcast::sim::skeleton {

using Datatype = int;  // MPI_Datatype
using Op = int;        // MPI_Op

// Size in bytes of one packed element, or 0 when the handle is no valid datatype.
std::size_t type_size(Datatype t);
// Distance in bytes between consecutive elements in a user buffer.
std::ptrdiff_t type_extent(Datatype t);
bool type_valid(Datatype t);
// The basic type a (possibly derived) type is made of, for reductions.
Datatype type_basic(Datatype t);
std::string type_name(Datatype t);

// Derived types (MPI_Type_contiguous/vector); return MPI_DATATYPE_NULL on bad arguments.
Datatype type_contiguous(int count, Datatype old);
Datatype type_vector(int count, int blocklength, int stride, Datatype old);
void type_free(Datatype t);

void pack(const void* buf, std::size_t count, Datatype t, std::byte* out);
// Unpacks `bytes` packed bytes (whole elements of t) into buf.
void unpack(const std::byte* in, std::size_t bytes, void* buf, Datatype t);

using UserFunction = void(void* in, void* inout, int* len, int* datatype);
Op op_create(UserFunction* fn, bool commute);
void op_free(Op op);
bool op_valid(Op op);

// inout[i] = in[i] op inout[i] over packed elements of t's basic type.
// Returns false (and leaves inout) when op does not apply to the type.
bool reduce(Op op, Datatype t, const std::byte* in, std::byte* inout, std::size_t bytes);

}  // namespace perfcast::sim::skeleton
