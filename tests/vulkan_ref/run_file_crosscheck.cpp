// RunCorpusFile for vkref_crosscheck_runner: `warpsim-vkref crosscheck` of
// the file against the Vulkan device $WARPSIM_VKREF_DEVICE names (default
// lavapipe), without a shader cache. The verdict becomes the status the
// conformance runner judges:
//   agree -> pass;  differ -> fail, with the crosscheck summary as message;
//   invalid / unsupported / limit -> the same status, naming the side.
// An *expect_fail* file is one both sides should fail alike, and the runner
// inverts its outcome (a "pass" counts as failed), so for those files agree
// is reported as a failed expectation and differ as a pass.
#include <cstdlib>
#include <filesystem>

#include "conformance/run_file.h"
#include "vulkan_ref/crosscheck.h"

namespace warpsim::conformance {

runner::RunReport RunCorpusFile(const std::string& path, uint32_t threads) {
  vkref::CrosscheckOptions options;
  const char* device = std::getenv("WARPSIM_VKREF_DEVICE");
  options.device = device != nullptr ? device : "lavapipe";
  options.threads = threads;
  const vkref::CrosscheckReport r = vkref::CrosscheckFile(path, options);
  runner::RunReport out;
  out.file = path;
  const bool expect_fail = std::filesystem::path(path).filename().string().find(
                               "expect_fail") != std::string::npos;
  switch (r.verdict) {
    case vkref::Verdict::kAgree:
      out.status =
          expect_fail ? runner::RunStatus::kFail : runner::RunStatus::kPass;
      if (expect_fail) {
        out.expectations.push_back(
            {0, false, "crosscheck: both sides agree (expect_fail file)"});
      }
      break;
    case vkref::Verdict::kDiffer:
      out.status =
          expect_fail ? runner::RunStatus::kPass : runner::RunStatus::kFail;
      out.expectations.push_back({0, false, "crosscheck: " + r.Summary()});
      break;
    case vkref::Verdict::kInvalid:
      out.status = runner::RunStatus::kInvalid;
      out.diagnostic = InvalidInput(r.reason);
      break;
    case vkref::Verdict::kUnsupported:
      out.status = runner::RunStatus::kUnsupported;
      out.diagnostic = Unsupported(r.reason);
      break;
    case vkref::Verdict::kLimit:
      out.status = runner::RunStatus::kLimitExceeded;
      out.diagnostic = InvalidInput(r.reason);
      break;
  }
  return out;
}

}  // namespace warpsim::conformance
