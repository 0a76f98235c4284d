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
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%comm_src", config.comm_src_root))
config.substitutions.append(("%comm_obj", config.comm_obj_root))
config.substitutions.append(("%python", config.python_executable))

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.comm_tools_dir, config.llvm_tools_dir]
tools = ["comm-opt", "comm-topo", "not", "split-file", "count", "FileCheck"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
