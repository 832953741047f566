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
// function's blocks): its stores, anywhere (a count a loop increments is read
// after the loop), and the calls it is passed to, which may write it. Each
// reads the value the last assignment left, whichever ran. None where its
// address goes anywhere else (a store of it, a cast, an offset: writes the
// function's code does not show), and none where a load outside loops reads
// a merge of some of them only (`n = a; if (c) n = b; f(n); if (d) n = e;`):
// the model may read that earlier merge, which the others are not.
std::vector<llvm::LoadInst*> merged_reads(llvm::AllocaInst& local, const llvm::LoopInfo& loops);

}  // namespace perfcast::features
