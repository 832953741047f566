// Where a local's value is the merge of several assignments, for the feature
// probes (feature_pass.cpp): `n = a; if (c) n = b;` and then a read of `n`.
// The optimised code the analyser prices reads one value there (a phi of the
// two), which no single assignment's probe measures; the reads after the
// merge do.
#pragma once
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Instructions.h>

#include <vector>

namespace perfcast::features {

// The loads of the scalar local `local` outside loops that every one of its
// definitions may reach, two or more (reaching definitions over the
// function's blocks): its stores, and the calls it is passed to, which may
// write it. None where a definition is inside a loop, or where its address
// goes anywhere else (a store of it, a cast, an offset): writes the
// function's code does not show. Each such load reads the value the last
// assignment left, whichever ran: where two assignments merge, one value per
// run of the function; with three or more, a load may follow a merge of all
// of them that an earlier merge of some (which no such load reads) did not.
std::vector<llvm::LoadInst*> merged_reads(llvm::AllocaInst& local, const llvm::LoopInfo& loops);

}  // namespace perfcast::features
