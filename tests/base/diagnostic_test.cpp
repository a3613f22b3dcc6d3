// Diagnostic formatting (base/diagnostic.cpp).
#include "base/diagnostic.h"

#include <catch2/catch.hpp>

using warpsim::InvalidInput;
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
