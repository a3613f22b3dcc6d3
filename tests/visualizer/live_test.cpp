// Tests of visualizer/model/live.cpp: a scene run live in timing mode,
// paused, stepped by a cycle, a warp instruction and a draw, played to the
// end, and stopped.
#include "model/live.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

namespace warpsim::viz {
namespace {

const std::string kScene = std::string(WARPSIM_SOURCE_DIR) +
                           "/samples/graphics/divergent_branches.amber";

runner::RunOptions Options() {
  runner::RunOptions o;
  o.trace_detail = trace::Detail::kInstructions;
  o.threads = 1;
  return o;
}

// Polls `session` into `data` until `done(data)` (or 60 s pass).
template <typename F>
bool WaitUntil(LiveSession& session, RunData& data, F done) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < until) {
    session.Sync(&data);
    if (done(data)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

uint64_t Issued(const RunData& d) {
  uint64_t n = 0;
  for (const trace::WarpSpan& w : d.trace.warps) n += w.instructions;
  return n;
}

TEST_CASE("a live run pauses, steps and plays to the end", "[viz][live]") {
  LiveSession s(kScene, Options(), /*start_paused=*/true);
  RunData d;
  // Paused at its first observation: a draw begun, warps resident.
  REQUIRE(
      WaitUntil(s, d, [](const RunData& x) { return !x.trace.runs.empty(); }));
  CHECK(s.paused());
  const uint64_t c0 = s.cycle();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(s.cycle() == c0);  // paused means paused
  bool resident = false;
  for (const trace::WarpSpan& w : d.trace.warps) {
    resident |= w.end == trace::kStillResident;
  }
  CHECK(resident);

  s.StepCycles(5);
  REQUIRE(WaitUntil(
      s, d, [&](const RunData& x) { return x.now >= c0 + 5 && s.paused(); }));
  CHECK(d.now >= c0 + 5);
  CHECK(!d.finished);

  // One warp instruction: the clock moves, a few cycles at most.
  const size_t events = d.trace.instructions.size();
  const uint64_t c1 = d.now;
  s.StepInstructions(1);
  REQUIRE(WaitUntil(s, d, [&](const RunData& x) {
    return x.trace.instructions.size() > events && s.paused();
  }));
  CHECK(d.now > c1);

  // To the end of the first draw.
  s.StepRun();
  REQUIRE(WaitUntil(s, d, [&](const RunData& x) {
    return s.paused() && !x.trace.runs.empty() &&
           x.trace.runs[0].end == x.now && x.now > c1;
  }));
  CHECK(d.trace.runs.size() == 1);

  // Play to the end: the report, the image, every span closed.
  s.Play();
  s.Wait();
  REQUIRE(WaitUntil(s, d, [](const RunData& x) { return x.finished; }));
  CHECK(d.error.empty());
  REQUIRE(d.report.is_object());
  CHECK(d.report["result"] == "pass");
  CHECK(d.trace.runs.size() == 2);
  REQUIRE(!d.images.empty());
  CHECK(d.images[0].rgba.size() ==
        size_t{d.images[0].width} * d.images[0].height * 4);
  for (const trace::WarpSpan& w : d.trace.warps) {
    CHECK(w.end != trace::kStillResident);
  }
  CHECK(Issued(d) ==
        d.report["draws"][0]["warp_instructions"].get<uint64_t>() +
            d.report["draws"][1]["warp_instructions"].get<uint64_t>() -
            d.report["draws"][0]["fused_instructions"].get<uint64_t>() -
            d.report["draws"][1]["fused_instructions"].get<uint64_t>() -
            d.report["draws"][0]["layout_branches"].get<uint64_t>() -
            d.report["draws"][1]["layout_branches"].get<uint64_t>() -
            d.report["draws"][0]["unrolled_loop_instructions"].get<uint64_t>() -
            d.report["draws"][1]["unrolled_loop_instructions"].get<uint64_t>() -
            d.report["draws"][0]["redundant_instructions"].get<uint64_t>() -
            d.report["draws"][1]["redundant_instructions"].get<uint64_t>() -
            d.report["draws"][0]["register_moves"].get<uint64_t>() -
            d.report["draws"][1]["register_moves"].get<uint64_t>() -
            d.report["draws"][0]["predicated_branches"].get<uint64_t>() -
            d.report["draws"][1]["predicated_branches"].get<uint64_t>());
}

TEST_CASE("a live run that is stopped ends with a message", "[viz][live]") {
  LiveSession s(kScene, Options(), /*start_paused=*/true);
  RunData d;
  REQUIRE(
      WaitUntil(s, d, [](const RunData& x) { return !x.trace.runs.empty(); }));
  s.Stop();
  s.Wait();
  REQUIRE(WaitUntil(s, d, [](const RunData& x) { return x.finished; }));
  CHECK(d.error.find("stopped") != std::string::npos);
}

}  // namespace
}  // namespace warpsim::viz
