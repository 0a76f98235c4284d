// RUN: not comm-opt %s --convert-comm-to-emitc="target=tpu" 2>&1 | FileCheck %s
// CHECK: error: convert-comm-to-emitc: unknown target 'tpu' (expected cpu or cuda)
module {
}
