//===- QuietThread.h - diagnostics one thread does not report ---*- C++ -*-===//
//
// A context's diagnostic handlers are the context's, not a thread's: a pass
// that quiets the diagnostics of its trial runs with a handler that
// swallows everything also swallows what passes on other threads report
// meanwhile (comm-plan's comparison plans candidates while comm's own
// pipeline runs, whose remarks are the user's).
//
//===----------------------------------------------------------------------===//

#ifndef COMM_SUPPORT_QUIETTHREAD_H
#define COMM_SUPPORT_QUIETTHREAD_H

#include "mlir/IR/Diagnostics.h"

#include <thread>

namespace mlir {
namespace comm {

/// While it lives, swallows the diagnostics emitted on the thread that made
/// it (or, with `othersOnly`, those emitted on every other thread); the rest
/// go on to the handlers before it.
class QuietThread : public ScopedDiagnosticHandler {
public:
  explicit QuietThread(MLIRContext *context, bool othersOnly = false)
      : ScopedDiagnosticHandler(context, [here = std::this_thread::get_id(),
                                          othersOnly](Diagnostic &) {
          return success((std::this_thread::get_id() == here) != othersOnly);
        }) {}
};

} // namespace comm
} // namespace mlir

#endif // COMM_SUPPORT_QUIETTHREAD_H
