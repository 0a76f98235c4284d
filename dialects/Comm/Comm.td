//===- Comm.td - comm dialect umbrella ---------------------*- tablegen -*-===//
//
// Includes every ODS source of the comm dialect so one tablegen invocation
// sees the whole dialect.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_DIALECT_COMM_COMM_TD
#define COMM_DIALECT_COMM_COMM_TD

include "Comm/CommDialect.td"
include "Comm/CommAttrs.td"
include "Comm/CommTypes.td"
include "Comm/CommInterfaces.td"
include "Comm/CommOps.td"
include "Comm/CommBufferOps.td"

#endif // COMM_DIALECT_COMM_COMM_TD
