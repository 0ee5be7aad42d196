# QUOTIENT_SANITIZE=address;undefined (asan preset) or thread (tsan preset).
set(QUOTIENT_SANITIZE "" CACHE STRING "Sanitizers to build with, e.g. address;undefined")
if(QUOTIENT_SANITIZE)
  string(REPLACE ";" "," _quotient_sanitizers "${QUOTIENT_SANITIZE}")
  add_compile_options(-fsanitize=${_quotient_sanitizers} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_quotient_sanitizers})
endif()
