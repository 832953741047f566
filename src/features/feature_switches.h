// A switch's sides as the feature probes count them (feature_pass.cpp,
// `file:line:switch.runs`, `switch#2.runs`, ..., the default first, with the
// code fact `.side_line`: the line each side starts at), by which a probe run
// prices the model's tests of a selector that varied: the optimiser's switch,
// or the analyser's `sel == k` chain (probe_selectors.h).
#pragma once
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

namespace perfcast::features {

// An i1, built before `sw`, true where the switch goes to `dest`: for its
// default, where no case that goes elsewhere matches; for another side, where
// one of the cases that go there does.
llvm::Value* switch_goes_to(llvm::IRBuilder<>& b, llvm::SwitchInst& sw, llvm::BasicBlock* dest);

}  // namespace perfcast::features
