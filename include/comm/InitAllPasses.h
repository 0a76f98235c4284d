//===- InitAllPasses.h - register comm and upstream passes ------*- C++ -*-===//

#ifndef COMM_INITALLPASSES_H
#define COMM_INITALLPASSES_H

namespace mlir {
namespace comm {

/// Registers comm's passes and pipelines and the upstream passes that are
/// useful around them (canonicalize, cse, inline, ...).
void registerAllPasses();

} // namespace comm
} // namespace mlir

#endif // COMM_INITALLPASSES_H
