# -*- Python -*-
# lit configuration of the comm test suite.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "COMM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".xml", ".yaml", ".json"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.comm_obj_root, "test")
config.excludes = ["Inputs", "lib", "CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py", "CostModelTest.cpp",
                   "FlowNetworkTest.cpp", "SimulatorTest.cpp"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%comm_src", config.comm_src_root))
config.substitutions.append(("%comm_obj", config.comm_obj_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%ctest", config.ctest_command))
config.substitutions.append(("%cxx", config.cxx))
config.substitutions.append(("%commrt_include", config.commrt_include))
config.substitutions.append(("%commrt_lib", config.commrt_lib))

# Features that gate integration tests.
if config.commrt_built == "ON" and config.mpirun and os.path.exists(config.mpirun):
    config.available_features.add("mpi")
    config.substitutions.append(("%mpirun", config.mpirun))
if config.nvcc and os.path.exists(config.nvcc):
    config.available_features.add("cuda")
    config.substitutions.append(("%nvcc", config.nvcc))
    config.substitutions.append(("%ptxas_dir", os.path.dirname(config.nvcc)))
if os.path.exists("/dev/nvidia0") or os.path.exists("/dev/nvidiactl"):
    config.available_features.add("gpu")
if os.path.isdir("/sys/class/infiniband") and os.listdir("/sys/class/infiniband"):
    config.available_features.add("rdma")
if os.path.exists(os.path.join(config.comm_obj_root, "bin", "comm-unittests")):
    config.available_features.add("unittests")
config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.comm_tools_dir, config.llvm_tools_dir]
tools = ["comm-opt", "comm-topo", "comm-sim", "comm-translate", "comm-compile", "not", "split-file", "count", "FileCheck"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
