# quotient_add_test(NAME name SOURCES a_test.cc ... LIBS lib ...): one GoogleTest binary, its
# tests registered with CTest one by one so failures name the test.
function(quotient_add_test)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;LIBS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main
                        quotient_warnings)
  include(GoogleTest)
  gtest_discover_tests(${ARG_NAME} PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60
                       DISCOVERY_MODE PRE_TEST)
endfunction()
