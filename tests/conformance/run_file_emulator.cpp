#include "conformance/run_file.h"

namespace warpsim::conformance {

runner::RunReport RunCorpusFile(const std::string& path, uint32_t threads) {
  runner::RunOptions options;
  options.threads = threads;
  return runner::RunAmberFile(path, options);
}

}  // namespace warpsim::conformance
