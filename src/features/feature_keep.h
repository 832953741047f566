// The features a build keeps: PERFCAST_FEATURES_KEEP names a file of
// feature names, one a line (`#` comments), or a learned model's JSON, whose
// inputs its kept columns use; the feature pass probes only those.
#pragma once
#include <llvm/ADT/StringSet.h>

#include <optional>

namespace llvm {
class LLVMContext;
}

namespace perfcast::features {

// The features PERFCAST_FEATURES_KEEP lists, or nothing (keep all). A file
// that cannot be read is a compile error naming it.
std::optional<llvm::StringSet<>> keep_list(llvm::LLVMContext& ctx);

}  // namespace perfcast::features
