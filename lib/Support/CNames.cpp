//===- CNames.cpp - names the generated C code can take ---------*- C++ -*-===//

#include "comm/Support/CNames.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

std::string mlir::comm::whyNotCName(StringRef name, bool entryPoint) {
  auto isStart = [](char c) { return llvm::isAlpha(c) || c == '_'; };
  if (name.empty() || !isStart(name.front()) ||
      !llvm::all_of(name,
                    [&](char c) { return isStart(c) || llvm::isDigit(c); }))
    return "is not a C identifier (letters, digits and '_', not starting "
           "with a digit)";
  if (!entryPoint)
    return "";
  static const llvm::StringSet<> reserved = {
      // C and C++ keywords.
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
      "bool", "break", "case", "catch", "char", "char8_t", "char16_t",
      "char32_t", "class", "compl", "concept", "const", "consteval",
      "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
      "float", "for", "friend", "goto", "if", "inline", "int", "long",
      "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
      "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "restrict", "return", "short", "signed",
      "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
      "template", "this", "thread_local", "throw", "true", "try", "typedef",
      "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
      "volatile", "wchar_t", "while", "xor", "xor_eq",
      // The program's entry.
      "main",
      // Common C library functions (stdlib.h, stdio.h, string.h, math.h,
      // time.h, unistd.h).
      "abort", "abs", "atexit", "atof", "atoi", "atol", "bsearch", "calloc",
      "div", "exit", "free", "getenv", "labs", "malloc", "qsort", "quick_exit",
      "rand", "realloc", "srand", "strtod", "strtof", "strtol", "strtoul",
      "system", "clearerr", "fclose", "feof", "ferror", "fflush", "fgetc",
      "fgets", "fopen", "fprintf", "fputc", "fputs", "fread", "freopen",
      "fscanf", "fseek", "ftell", "fwrite", "getc", "getchar", "perror",
      "printf", "putc", "putchar", "puts", "remove", "rename", "rewind",
      "scanf", "snprintf", "sprintf", "sscanf", "tmpfile", "ungetc", "vfprintf",
      "vprintf", "vsnprintf", "vsprintf", "memchr", "memcmp", "memcpy",
      "memmove", "memset", "strcat", "strchr", "strcmp", "strcpy", "strcspn",
      "strdup", "strerror", "strlen", "strncat", "strncmp", "strncpy",
      "strrchr", "strstr", "strtok", "acos", "asin", "atan", "atan2", "ceil",
      "cos", "cosh", "erf", "exp", "exp2", "fabs", "floor", "fmax", "fmin",
      "fmod", "frexp", "hypot", "ldexp", "log", "log10", "log2", "modf", "nan",
      "pow", "round", "sin", "sinh", "sqrt", "tan", "tanh", "trunc", "clock",
      "time", "sleep", "usleep", "close", "read", "write", "open", "fork",
      "pipe", "dup", "dup2", "getpid", "kill", "signal", "raise", "select",
      "poll", "wait", "send", "recv",
      // More of what glibc's headers declare by default (strings.h,
      // math.h's Bessel and other functions, unistd.h, sys/socket.h):
      // `index` or `y1` as an entry point conflicts with their
      // declarations in a program that includes them.
      "index", "rindex", "bcmp", "bcopy", "bzero", "ffs", "strcasecmp",
      "strncasecmp", "j0", "j1", "jn", "y0", "y1", "yn", "gamma", "lgamma",
      "tgamma", "drem", "finite", "scalb", "significand", "log1p", "expm1",
      "cbrt", "remainder", "logb", "ilogb", "rint", "nearbyint", "lrint",
      "lround", "fdim", "fma", "copysign", "nextafter", "isnan", "isinf",
      "signbit", "access", "alarm", "chdir", "chown", "link", "unlink", "rmdir",
      "sync", "pause", "stat", "fstat", "lseek", "mmap", "munmap", "socket",
      "connect", "bind", "listen", "accept", "shutdown", "environ", "getopt",
      "optarg", "optind", "random", "srandom",
      // What GCC predefines as macros in its default GNU modes (`linux`
      // is 1 there: an entry point named so breaks the header).
      "linux", "unix", "i386",
      // What CUDA's headers declare with C++ linkage for the cuda targets
      // (an extern "C" max collides with their overloads: nvcc says "more
      // than one instance of overloaded function "max" has "C" linkage").
      "max", "min", "umax", "umin", "llmax", "llmin", "ullmax", "ullmin",
      "fmaxf", "fminf", "rsqrt", "saturate", "mul24", "umul24",
      // Macros and objects of the C headers the generated code includes,
      // and CUDA's built-in variables and types (dim3, float4, ...).
      "NULL", "EOF", "offsetof", "errno", "stdin", "stdout", "stderr",
      "va_list", "assert", "INFINITY", "NAN", "HUGE_VAL", "CHAR_BIT", "INT_MAX",
      "INT_MIN", "SIZE_MAX", "RAND_MAX", "EXIT_SUCCESS", "EXIT_FAILURE",
      "blockIdx", "threadIdx", "blockDim", "gridDim", "warpSize", "dim3"};
  if (reserved.contains(name))
    return "is a C or C++ keyword, `main`, or a C library or CUDA function "
           "or macro, "
           "which its C entry point would collide with";
  // The names of the C++ standard library's namespace and of the types
  // the generated code declares its buffers with.
  static const llvm::StringSet<> types = {"std", "FILE", "half", "bfloat16",
                                           "nv_bfloat16", "__half"};
  if (types.contains(name))
    return "is a namespace or type the generated code uses";
  // CUDA's vector types: char1-4, uchar1-4, short, ushort, int, uint, long,
  // ulong, longlong, ulonglong, float, double with 1 to 4 lanes.
  if (!name.empty() && name.back() >= '1' && name.back() <= '4' &&
      llvm::is_contained({"char", "uchar", "short", "ushort", "int", "uint",
                          "long", "ulong", "longlong", "ulonglong", "float",
                          "double"},
                         name.drop_back(1)))
    return "is a CUDA vector type";
  // POSIX reserves the names ending in _t for types (int32_t, size_t).
  if (name.ends_with("_t"))
    return "ends with '_t', which POSIX reserves for type names (int32_t, "
           "size_t)";
  // What the generated code itself defines (comm-compile's reference
  // entry points, comm_ref_<name>, are public functions like the user's),
  // and what the libraries it links define: an entry point named like one
  // of MPI's functions (MPI_Comm_rank) takes its place in the link, and
  // the program calling it hangs or crashes.
  for (StringRef prefix :
       {"comm_impl_", "comm_compute_", "comm_tensor", "comm_last_error",
        "commrt",     "commgen",       "commharness", "COMMRT_",
        "COMMGEN_",   "CUDA_",         "NCCL_",       "pthread_",
        "sched_",     "MPI_",          "PMPI_",       "MPIX_",
        "ompi_",      "OMPI_",         "mpi_",        "pmpi_",
        "opal_",      "orte_",         "pmix_",       "PMIx_",
        "nccl",       "pnccl",         "ibv_",        "rdma_",
        "cuda",       "cublas",        "nvtx"})
    if (name.starts_with(prefix))
      return ("starts with '" + prefix +
              "', which the runtime, the generated code, MPI, NCCL, CUDA, "
              "the verbs library or the C library use")
          .str();
  // CUDA's driver API (cuInit, cuMemAlloc).
  if (name.size() > 2 && name.starts_with("cu") && llvm::isUpper(name[2]))
    return "starts with 'cu' and a capital, like CUDA's driver API (cuInit)";
  if (name.contains("__") ||
      (name.size() > 1 && name[0] == '_' && llvm::isUpper(name[1])))
    return "is reserved in C and C++ (a '__' anywhere, or a leading '_' and "
           "a capital)";
  // C reserves every name with a leading '_' at file scope, where entry
  // points are (`_start` is the program's own entry, `_init` and `_fini`
  // its constructors' hooks).
  if (entryPoint && name.starts_with("_"))
    return "starts with '_', which C reserves for names at file scope "
           "(_start is where a program starts)";
  return "";
}
