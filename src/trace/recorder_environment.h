// Names the tracer library and the command that starts it agree on.
#pragma once

namespace perfcast::trace {

// The directory every rank of a traced run writes its stream and info file into.
inline constexpr const char* kTraceDirVariable = "PERFCAST_TRACE_DIR";
// "1": each rank folds its repeated loops of events (events/loop_fold.h: the
// sequence exact, times as per-position statistics); unset: every time exact.
inline constexpr const char* kTraceFoldVariable = "PERFCAST_TRACE_FOLD_LOOPS";
// Overrides where `perfcast trace` finds the tracer library.
inline constexpr const char* kTraceLibraryVariable = "PERFCAST_TRACE_LIBRARY";
inline constexpr const char* kTraceLibraryName = "libperfcast_trace.so";
// Set: the tracer's signature mode. It names the phase patterns file
// (events/phase_patterns.h); each rank then writes no stream, only its phase
// measurements, into PERFCAST_TRACE_DIR.
// The longest a traced rank keeps events only in memory: a rank killed
// mid-run (SIGKILL, no chance to write) loses at most this much of its stream.
inline constexpr double kFlushIntervalS = 0.25;
inline constexpr const char* kSignaturePhasesVariable = "PERFCAST_SIGNATURE_PHASES";

}  // namespace perfcast::trace
