# Warnings are errors for our own targets. Third-party headers come in as SYSTEM includes.
add_library(quotient_warnings INTERFACE)
target_compile_options(quotient_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual
  -Werror
  # GCC 12 reports false -Wrestrict errors inside std::string concatenation at -O2/-O3
  # (GCC bug 105329); the warning stays on for everything else.
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>)
