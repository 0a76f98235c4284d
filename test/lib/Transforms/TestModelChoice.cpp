//===- TestModelChoice.cpp - write the cost model's choices -----*- C++ -*-===//
//
// test-comm-model-choice writes, on every collective and point-to-point op,
// the algorithm and protocol the cost model predicts fastest for the
// module's topology. Without `backend`, the model searches every algorithm
// it knows: this is how a planner that ignored the one algorithm table
// would emit plans the lowering rejects, which
// test/Pipelines/model-choice-lowers.test shows (the planner itself,
// comm-select-algorithm, always names a backend).
//
//===----------------------------------------------------------------------===//

#include "comm/Analysis/CollectiveCost.h"
#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Pipelines/CompileOptions.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::comm;

namespace {
struct TestModelChoicePass
    : public PassWrapper<TestModelChoicePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestModelChoicePass)

  TestModelChoicePass() = default;
  TestModelChoicePass(const TestModelChoicePass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "test-comm-model-choice"; }
  StringRef getDescription() const final {
    return "Write the cost model's fastest algorithm and protocol into every "
           "op's plan (test only)";
  }

  Option<std::string> backend{
      *this, "backend",
      llvm::cl::desc("mpi, nccl or verbs: search only what it realizes; "
                     "empty: every algorithm the model knows"),
      llvm::cl::init("")};

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<Backend> searched;
    if (!backend.empty()) {
      searched = symbolizeBackend(backend);
      if (!searched) {
        module.emitError() << "unknown backend '" << backend << "'";
        return signalPassFailure();
      }
    }
    FailureOr<std::shared_ptr<const Topology>> topology =
        getTopologyFor(module);
    if (failed(topology))
      return signalPassFailure();
    CostModel model(**topology);
    WalkResult result = module.walk([&](Operation *op) -> WalkResult {
      std::optional<CollectiveRequest> request = getCollectiveRequest(op);
      if (!request || request->kind == CollectiveKind::Copy)
        return WalkResult::advance();
      request->backend = searched;
      request->algorithm.reset();
      request->protocol.reset();
      llvm::Expected<Prediction> prediction = model.predict(*request);
      if (!prediction)
        return op->emitError()
               << "cannot predict: " << llvm::toString(prediction.takeError());
      // A barrier takes no algorithm: the model's is the backend's own.
      bool named = !searched ||
                   isRealized(request->kind, prediction->algorithm, *searched);
      auto old = op->getAttrOfType<PlanAttr>("plan");
      auto plan = PlanAttr::get(
          op->getContext(),
          named ? std::optional<Algorithm>(prediction->algorithm)
                : std::nullopt,
          prediction->protocol, old ? old.getChannels() : std::nullopt,
          old ? old.getChunkBytes() : std::nullopt,
          old ? old.getPrecision() : Type(),
          old ? old.getRoute() : std::nullopt,
          old ? old.getStream() : std::nullopt);
      op->setAttr("plan", plan);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

namespace mlir {
namespace comm {
namespace test {
void registerTestModelChoicePass() { PassRegistration<TestModelChoicePass>(); }
} // namespace test
} // namespace comm
} // namespace mlir
