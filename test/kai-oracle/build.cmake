# Builds the KAI oracle, or runs its Go unit tests (cmake -P, from test/kai-oracle/CMakeLists.txt):
#   -DGO=<go> -DMODULE_DIR=<test/kai-oracle> -DKAI_SOURCE=<KAI v0.17.0 checkout>
#   -DWORK_DIR=<a folder of the build tree> and either -DOUTPUT=<binary> (build) or -DTEST=ON
# The module's go.mod replaces KAI's module with ../../../shared/kai-scheduler. A checkout
# elsewhere is used through a copy of go.mod (and go.sum) whose replace names KAI_SOURCE, passed
# with -modfile; the module's own files are never changed.
cmake_minimum_required(VERSION 3.25)
foreach(var GO MODULE_DIR KAI_SOURCE WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "build.cmake: -D${var}=... is required")
  endif()
endforeach()

if(NOT EXISTS "${KAI_SOURCE}/go.mod" OR NOT EXISTS "${KAI_SOURCE}/pkg/scheduler")
  message(FATAL_ERROR
    "KAI Scheduler v0.17.0 source not found: expected a checkout of "
    "github.com/kai-scheduler/KAI-scheduler at tag v0.17.0 in\n  ${KAI_SOURCE}\n"
    "(the CMake cache variable QUOTIENT_KAI_SOURCE; default <repo>/../shared/kai-scheduler). "
    "Put the checkout there, point QUOTIENT_KAI_SOURCE at it, or configure with "
    "-DQUOTIENT_KAI_ORACLE=OFF.")
endif()

set(modfile_args "")
get_filename_component(default_source "${MODULE_DIR}/../../../shared/kai-scheduler" REALPATH)
get_filename_component(kai_source "${KAI_SOURCE}" REALPATH)
if(NOT kai_source STREQUAL default_source)
  file(MAKE_DIRECTORY "${WORK_DIR}")
  file(READ "${MODULE_DIR}/go.mod" gomod)
  string(REGEX REPLACE
    "replace github.com/kai-scheduler/KAI-scheduler => [^\n]*"
    "replace github.com/kai-scheduler/KAI-scheduler => ${kai_source}" gomod "${gomod}")
  file(WRITE "${WORK_DIR}/go.mod" "${gomod}")
  file(COPY_FILE "${MODULE_DIR}/go.sum" "${WORK_DIR}/go.sum" ONLY_IF_DIFFERENT)
  set(modfile_args "-modfile=${WORK_DIR}/go.mod")
endif()

if(TEST)
  set(go_args test -count=1 -trimpath -buildvcs=false ${modfile_args} ./...)
elseif(DEFINED OUTPUT)
  set(go_args build -trimpath -buildvcs=false "-ldflags=-s -w" ${modfile_args} -o ${OUTPUT} .)
else()
  message(FATAL_ERROR "build.cmake: give -DOUTPUT=<binary> or -DTEST=ON")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env CGO_ENABLED=0 ${GO} ${go_args}
  WORKING_DIRECTORY ${MODULE_DIR}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "go ${go_args}: failed (${result})")
endif()
