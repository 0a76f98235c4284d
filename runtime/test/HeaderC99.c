/*===- test/HeaderC99.c - commrt.h compiles as strict C99 ----------*- C -*-===*
 *
 * Part of the comm project: a compiler for communication between GPUs.
 *
 *===----------------------------------------------------------------------===*
 *
 * Built with -std=c99 -pedantic -Werror: the header must stay plain C. At
 * run time it checks a few calls that need no MPI.
 *
 *===----------------------------------------------------------------------===*/

#include "commrt.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  commrt_options opts;
  commrt_piece piece;
  float x[2] = {1.0f, 2.0f};
  unsigned short h[2];
  if (commrt_options_default(&opts) != COMMRT_SUCCESS)
    return 1;
  if (opts.struct_size != (int64_t)sizeof(commrt_options))
    return 2;
  if (strcmp(commrt_status_string(COMMRT_ERROR_REMOTE), "COMMRT_ERROR_REMOTE"))
    return 3;
  piece.data = h;
  piece.count = 2;
  piece.offset = 0;
  piece.dtype = COMMRT_F32;
  (void)piece;
  if (commrt_convert(h, COMMRT_BF16, x, COMMRT_F32, 2, COMMRT_HOST, NULL) !=
          COMMRT_SUCCESS ||
      h[0] != 0x3f80 || h[1] != 0x4000)
    return 4;
  if (commrt_init(NULL, NULL, NULL, NULL) != COMMRT_ERROR_INVALID_ARGUMENT ||
      !strstr(commrt_last_error(), "ctx is NULL"))
    return 5;
  printf("header compiles as C99 and links: ok\n");
  return 0;
}
