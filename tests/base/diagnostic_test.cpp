// Diagnostic formatting (base/diagnostic.cpp).
#include "base/diagnostic.h"

#include <catch2/catch.hpp>

using warpsim::InvalidInput;
using warpsim::LimitExceeded;
using warpsim::SourcePos;
using warpsim::Unsupported;

TEST_CASE("diagnostics name their position", "[base]") {
  CHECK(InvalidInput("expected END", SourcePos{"a.amber", 12}).ToString() ==
        "a.amber:12: error: expected END");
  CHECK(InvalidInput("type mismatch", SourcePos{"s.spv", 0, 42, "OpIAdd"})
            .ToString() == "s.spv: word 42 (OpIAdd): error: type mismatch");
  CHECK(Unsupported("geometry shaders").ToString() ==
        "unsupported: geometry shaders");
}

TEST_CASE("a limit stop is its own kind and carries the work done", "[base]") {
  const warpsim::Diagnostic d = LimitExceeded(
      "stopped after 12 warp instructions", 12, 340, SourcePos{"a.amber", 7});
  CHECK(d.kind == warpsim::ErrorKind::kLimitExceeded);
  CHECK(d.warp_instructions == 12);
  CHECK(d.lane_instructions == 340);
  CHECK(d.ToString() ==
        "a.amber:7: limit exceeded: stopped after 12 warp instructions");
}
