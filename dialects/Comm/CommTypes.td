//===- CommTypes.td - comm types ---------------------------*- tablegen -*-===//

#ifndef COMM_DIALECT_COMM_COMMTYPES_TD
#define COMM_DIALECT_COMM_COMMTYPES_TD

include "Comm/CommDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Comm_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Comm_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Comm_TokenType : Comm_Type<"Token", "token"> {
  let summary = "handle of a transfer in flight";
  let description = [{
    Yielded by `comm.start` and consumed by `comm.wait`. The results of an
    asynchronous transfer are only available from the `comm.wait` on its
    token.

    ```mlir
    %t = comm.start {
      %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<4xf32>
      comm.yield %0 : tensor<4xf32>
    }
    %r = comm.wait %t : tensor<4xf32>
    ```
  }];
}

#endif // COMM_DIALECT_COMM_COMMTYPES_TD
