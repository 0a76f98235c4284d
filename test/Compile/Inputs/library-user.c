/* A C program of a user's calling a library comm-compile wrote from
 * library-user.mlir: three rounds of commrt_init, a call and
 * commrt_finalize, while a first context keeps MPI up (the second round
 * once reused the communicators the first round's finalize freed, at the
 * same context address, and crashed). Prints each round's check, or the
 * error. */
#include "library-user.h"

#include <stdio.h>

static commrt_context *init(int *argc, char ***argv) {
  commrt_options opts;
  commrt_options_default(&opts);
  commrt_context *ctx = NULL;
  if (commrt_init(argc, argv, &opts, &ctx) != COMMRT_SUCCESS) {
    fprintf(stderr, "commrt_init: %s\n", commrt_last_error());
    return NULL;
  }
  return ctx;
}

int main(int argc, char **argv) {
  commrt_context *outer = init(&argc, &argv);
  if (!outer)
    return 2;
  int64_t rank = 0;
  commrt_rank(outer, &rank);
  int failures = 0;
  for (int round = 0; round < 3; ++round) {
    commrt_context *ctx = init(&argc, &argv);
    if (!ctx)
      return 2;
    float x[8], sum[8];
    for (int i = 0; i < 8; ++i)
      x[i] = (float)(rank * 10 + i + round);
    if (sum4(ctx, x, sum) != COMMRT_SUCCESS) {
      fprintf(stderr, "rank %lld: %s\n", (long long)rank, comm_last_error());
      return 3;
    }
    /* Ranks 0..3 add 10 * (0 + 1 + 2 + 3) + 4 * (i + round). */
    int wrong = 0;
    for (int i = 0; i < 8; ++i)
      wrong += sum[i] != (float)(60 + 4 * (i + round));
    if (rank == 0)
      printf("round %d: %s\n", round, wrong ? "wrong" : "right");
    failures += wrong;
    commrt_finalize(ctx);
  }
  commrt_finalize(outer);
  return failures != 0;
}
