# Warnings are errors for our own targets. Third-party headers come in as SYSTEM includes.
add_library(quotient_warnings INTERFACE)
target_compile_options(quotient_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual
  -Werror
  # GCC 12 reports false -Wrestrict errors inside std::string concatenation at -O2/-O3
  # (GCC bug 105329); the warning stays on for everything else.
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
  # GCC 12 at -O3 also reports members of a std::variant alternative as maybe-uninitialized when
  # a test's scripted answers are moved (api_error.h's ApiError, every member initialised):
  # kept as a warning in optimised builds, not an error, so `cmake --build --preset release`
  # builds every target.
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<CONFIG:Release>>:-Wno-error=maybe-uninitialized>)
