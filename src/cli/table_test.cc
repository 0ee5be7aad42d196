#include "cli/table.h"

#include <gtest/gtest.h>

namespace quotient::cli {
namespace {

TEST(Table, AlignsColumnsAndTrimsTheLastOne) {
  Table t({"NAME", "STATUS", "REASON"});
  t.AddRow({"a", "Running", ""});
  t.AddRow({"longer-name", "Pending", "no room"});
  EXPECT_EQ(t.Render(),
            "NAME         STATUS   REASON\n"
            "a            Running\n"
            "longer-name  Pending  no room\n");
}

TEST(Table, SaysNoneWhenEmpty) {
  Table t({"A", "B"});
  EXPECT_EQ(t.Render(), "A  B\n(none)\n");
}

}  // namespace
}  // namespace quotient::cli
