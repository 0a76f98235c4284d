//===- comm-sim.cpp - predict and simulate communication -------*- C++ -*-===//
//
// comm-sim bench     an nccl-tests style table of predicted times
// comm-sim run       simulate a whole comm program
// comm-sim calibrate fit the cost model on measured figures
//
//===----------------------------------------------------------------------===//

#include "comm/Sim/Commands.h"
#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  return mlir::comm::sim::runCommSim(argc, argv);
}
