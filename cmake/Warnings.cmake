# Warnings are errors for our own targets. Third-party headers come in as SYSTEM includes.
add_library(quotient_warnings INTERFACE)
target_compile_options(quotient_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual -Wnull-dereference
  -Werror)
