// regress/child_pool.cpp: results, crashes, timeouts and output tails of
// jobs run in children.
#include "regress/child_pool.h"

#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

using warpsim::regress::ChildOutcome;

TEST_CASE("jobs run in children: results, crashes and timeouts", "[regress]") {
  warpsim::regress::PoolOptions opts;
  opts.jobs = 3;
  opts.timeout_s = 2;
  size_t finished = 0;
  const auto outcomes = warpsim::regress::RunInChildren(
      5,
      [](size_t i) -> std::string {
        switch (i) {
          case 1:
            std::fprintf(stderr, "about to crash\n");
            std::fflush(stderr);
            signal(SIGSEGV, SIG_DFL);  // not Catch's handler
            raise(SIGSEGV);
            return "";
          case 2:
            sleep(30);  // past the timeout
            return "late";
          case 3:
            std::printf("said something\n");
            std::fflush(stdout);
            std::_Exit(3);  // exits without a result
          default:
            return "job " + std::to_string(i) + std::string(100000, 'x');
        }
      },
      opts, [&](size_t, const ChildOutcome&) { ++finished; });
  REQUIRE(outcomes.size() == 5);
  CHECK(finished == 5);
  for (size_t i : {0u, 4u}) {
    INFO(i);
    CHECK(outcomes[i].ended == ChildOutcome::Ended::kResult);
    CHECK(outcomes[i].result ==
          "job " + std::to_string(i) + std::string(100000, 'x'));
  }
  CHECK(outcomes[1].ended == ChildOutcome::Ended::kCrashed);
  CHECK_THAT(outcomes[1].message,
             Catch::Contains("signal 11") && Catch::Contains("about to crash"));
  CHECK(outcomes[2].ended == ChildOutcome::Ended::kTimeout);
  CHECK_THAT(outcomes[2].message, Catch::Contains("timeout (over 2 s)"));
  CHECK(outcomes[3].ended == ChildOutcome::Ended::kCrashed);
  CHECK_THAT(outcomes[3].message,
             Catch::Contains("exit status 3 without a result") &&
                 Catch::Contains("said something"));
}

TEST_CASE("last lines of captured output", "[regress]") {
  CHECK(warpsim::regress::LastLines("a\n\nb\n  \nc\n", 2) == "b\nc\n");
  CHECK(warpsim::regress::LastLines("", 2).empty());
}

}  // namespace
