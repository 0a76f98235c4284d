//===- mpi/MpiBackend.cpp - MPI backend setup and requests ------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Set-up of the mpi backend (the f16/bf16 reduction ops), the mapping of
// commrt types and ops to MPI's, and the polling of MPI requests.
//
//===----------------------------------------------------------------------===//

#include "MpiBackend.h"
#include "../lib/Kernels.h"

using namespace commrt;
using namespace commrt::mpi;

namespace {

/// MPI_User_function for f16/bf16: inout[i] = in[i] op inout[i], computed
/// in f32 and rounded to nearest even once per combining step.
template <commrt_dtype Type, commrt_redop Op>
void halfReduction(void *in, void *inout, int *len, MPI_Datatype *) {
  cpu::reduce(inout, in, static_cast<size_t>(*len), Type, Op);
}

template <commrt_dtype Type> commrt_status createHalfOps(MPI_Op (&ops)[4]) {
  MPI_User_function *fns[4] = {
      halfReduction<Type, COMMRT_SUM>, halfReduction<Type, COMMRT_PROD>,
      halfReduction<Type, COMMRT_MIN>, halfReduction<Type, COMMRT_MAX>};
  for (int i = 0; i < 4; ++i) {
    int err = MPI_Op_create(fns[i], /*commute=*/1, &ops[i]);
    if (err != MPI_SUCCESS)
      return setError(COMMRT_ERROR_BACKEND,
                      "mpi backend: " + mpiErrorString("MPI_Op_create", err));
  }
  return COMMRT_SUCCESS;
}

} // namespace

commrt_status commrt::createMpiBackend(commrt_context *ctx,
                                       std::unique_ptr<Backend> &out) {
  out = std::make_unique<MpiBackend>(ctx);
  return COMMRT_SUCCESS;
}

MpiBackend::~MpiBackend() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    return;
  for (auto &row : halfOps)
    for (MPI_Op &op : row)
      if (op != MPI_OP_NULL)
        MPI_Op_free(&op);
}

commrt_status MpiBackend::init() {
  if (commrt_status s = createHalfOps<COMMRT_F16>(halfOps[0]))
    return s;
  return createHalfOps<COMMRT_BF16>(halfOps[1]);
}

commrt_status MpiBackend::createComm(commrt_comm *) {
  // The group's MPI communicator from the core's split is all it needs.
  return COMMRT_SUCCESS;
}

void MpiBackend::destroyComm(commrt_comm *) {}

MPI_Datatype MpiBackend::datatype(commrt_dtype dtype) {
  switch (dtype) {
  case COMMRT_F32:
    return MPI_FLOAT;
  case COMMRT_F64:
    return MPI_DOUBLE;
  case COMMRT_F16:
  case COMMRT_BF16:
    return MPI_UINT16_T;
  case COMMRT_I8:
    return MPI_INT8_T;
  case COMMRT_U8:
    return MPI_UINT8_T;
  case COMMRT_I32:
    return MPI_INT32_T;
  case COMMRT_U32:
    return MPI_UINT32_T;
  case COMMRT_I64:
    return MPI_INT64_T;
  case COMMRT_U64:
    return MPI_UINT64_T;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op MpiBackend::reduction(commrt_dtype dtype, commrt_redop op) const {
  if (dtype == COMMRT_F16 || dtype == COMMRT_BF16) {
    int row = dtype == COMMRT_BF16 ? 1 : 0;
    switch (op) {
    case COMMRT_SUM:
    case COMMRT_AVG:
      return halfOps[row][0];
    case COMMRT_PROD:
      return halfOps[row][1];
    case COMMRT_MIN:
      return halfOps[row][2];
    case COMMRT_MAX:
      return halfOps[row][3];
    default:
      return MPI_OP_NULL;
    }
  }
  switch (op) {
  case COMMRT_SUM:
  case COMMRT_AVG:
    return MPI_SUM;
  case COMMRT_PROD:
    return MPI_PROD;
  case COMMRT_MIN:
    return MPI_MIN;
  case COMMRT_MAX:
    return MPI_MAX;
  case COMMRT_BAND:
    return MPI_BAND;
  case COMMRT_BOR:
    return MPI_BOR;
  case COMMRT_BXOR:
    return MPI_BXOR;
  }
  return MPI_OP_NULL;
}

MpiRequest::~MpiRequest() {
  if (expecting)
    backend.forget(this);
}

void MpiRequest::abandon() {
  // A receive still waiting for its message has nothing in MPI to give up.
  if (expecting)
    backend.forget(this);
}

commrt_status MpiRequest::poll(bool &done) {
  done = false;
  if (expecting) {
    backend.match(expected.comm, expected.source, expected.tag);
    if (expecting)
      return COMMRT_SUCCESS;
  }
  if (refusal)
    return setError(refusal, refusalMessage);
  statuses.resize(requests.size());
  int flag = 0;
  int err = MPI_Testall(static_cast<int>(requests.size()), requests.data(),
                        &flag, statuses.data());
  if (err != MPI_SUCCESS) {
    if (err == MPI_ERR_IN_STATUS)
      for (const MPI_Status &status : statuses)
        if (status.MPI_ERROR != MPI_SUCCESS &&
            status.MPI_ERROR != MPI_ERR_PENDING)
          err = status.MPI_ERROR;
    return setError(COMMRT_ERROR_BACKEND,
                    "mpi backend: " + mpiErrorString("MPI_Testall", err));
  }
  if (!flag)
    return COMMRT_SUCCESS;
  if (onComplete)
    onComplete();
  onComplete = nullptr;
  scratch.clear();
  done = true;
  return COMMRT_SUCCESS;
}
