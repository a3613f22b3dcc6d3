// regress/variants.cpp: variants from files and -D's, bad combinations,
// finding the baseline, and Spearman's rho.
#include "regress/variants.h"

#include <catch2/catch.hpp>

namespace {

using warpsim::regress::MakeVariants;

TEST_CASE("one file and a define with several values", "[regress]") {
  const auto v =
      MakeVariants({"dir/f.amber"}, {"TRIPS=16", "VARIANT=0,1,2", "FAST"});
  REQUIRE(v.ok());
  REQUIRE(v->size() == 3);
  CHECK((*v)[1].name == "VARIANT=1");
  CHECK((*v)[1].label == "VARIANT=1");
  CHECK((*v)[1].file == "dir/f.amber");
  CHECK((*v)[1].defines ==
        std::vector<std::string>{"TRIPS=16", "FAST=1", "VARIANT=1"});
  REQUIRE((*v)[2].varying.has_value());
  CHECK((*v)[2].varying->first == "VARIANT");
  CHECK((*v)[2].varying->second == "2");
  CHECK(warpsim::regress::FindVariant(*v, "2") == 2u);
  CHECK(warpsim::regress::FindVariant(*v, "VARIANT=0") == 0u);
  CHECK_FALSE(warpsim::regress::FindVariant(*v, "7").has_value());
}

TEST_CASE("several files, labelled by name where unique", "[regress]") {
  const auto v = MakeVariants({"a/x.amber", "b/x.amber", "c/y.amber"}, {"N=3"});
  REQUIRE(v.ok());
  REQUIRE(v->size() == 3);
  CHECK((*v)[0].label == "a/x.amber");
  CHECK((*v)[2].label == "y.amber");
  CHECK((*v)[2].defines == std::vector<std::string>{"N=3"});
  CHECK_FALSE((*v)[2].varying.has_value());
  CHECK(warpsim::regress::FindVariant(*v, "y.amber") == 2u);
}

TEST_CASE("bad variant arguments say what to give", "[regress]") {
  struct Case {
    std::vector<std::string> files, defines;
    const char* message;
  };
  const Case cases[] = {
      {{"f.amber"}, {}, "one file needs a -D NAME=V1,V2"},
      {{"f.amber"}, {"A=1"}, "one file needs a -D NAME=V1,V2"},
      {{}, {"A=1,2"}, "give two or more files"},
      {{"f.amber"}, {"A=1,2", "B=3,4"}, "only one -D may list several values"},
      {{"f.amber", "g.amber"}, {"A=1,2"}, "that is the one-file form"},
      {{"f.amber"}, {"1A=1,2"}, "NAME must be a GLSL identifier"},
      {{"f.amber"}, {"A=1,,2"}, "an empty or multi-line value"},
      {{"f.amber"}, {"A=1,2", "A=3"}, "is given twice"},
  };
  for (const Case& c : cases) {
    INFO(c.message);
    const auto v = MakeVariants(c.files, c.defines);
    REQUIRE_FALSE(v.ok());
    CHECK_THAT(v.error().message, Catch::Contains(c.message));
  }
}

TEST_CASE("Spearman's rank correlation", "[regress]") {
  using warpsim::regress::SpearmanRho;
  CHECK(SpearmanRho({1, 2, 3, 4}, {10, 20, 30, 40}) == Approx(1));
  CHECK(SpearmanRho({1, 2, 3, 4}, {40, 30, 20, 10}) == Approx(-1));
  // Monotone, not linear: still 1.
  CHECK(SpearmanRho({1, 2, 3}, {1, 100, 10000}) == Approx(1));
  // Ties take their mean rank: ranks (1.5, 1.5, 3) against (1, 2, 3).
  CHECK(SpearmanRho({5, 5, 7}, {1, 2, 3}) == Approx(0.8660254));
  CHECK(SpearmanRho({1}, {2}) == 0);
  CHECK(SpearmanRho({3, 3, 3}, {1, 2, 3}) == 0);
}

}  // namespace
