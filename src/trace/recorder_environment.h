// Names the tracer library and the command that starts it agree on.
#pragma once

namespace perfcast::trace {

// The directory every rank of a traced run writes its stream and info file into.
inline constexpr const char* kTraceDirVariable = "PERFCAST_TRACE_DIR";
// Overrides where `perfcast trace` finds the tracer library.
inline constexpr const char* kTraceLibraryVariable = "PERFCAST_TRACE_LIBRARY";
inline constexpr const char* kTraceLibraryName = "libperfcast_trace.so";

}  // namespace perfcast::trace
