// regress/table.cpp: column widths, alignment, UTF-8 widths.
#include "regress/table.h"

#include <catch2/catch.hpp>

namespace {

TEST_CASE("a text table aligns numbers right and text left", "[regress]") {
  warpsim::regress::TextTable t({"name", "count"});
  t.AddRow({"alpha", "7"});
  t.AddRow({"b", "1234 -> 12 (-99.0 %)"});
  t.AddRow({"short"});  // missing cells are empty
  CHECK(t.rows() == 3);
  CHECK(t.Render() ==
        "name   count\n"
        "-----  --------------------\n"
        "alpha                     7\n"
        "b      1234 -> 12 (-99.0 %)\n"
        "short\n");
}

TEST_CASE("a text table counts UTF-8 characters, not bytes", "[regress]") {
  warpsim::regress::TextTable t({"变体", "x"});
  t.AddRow({"ab", "1"});
  CHECK(t.Render() == "变体  x\n--  -\nab  1\n");
}

}  // namespace
