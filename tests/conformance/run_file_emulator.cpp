#include "conformance/run_file.h"

namespace warpsim::conformance {

runner::RunReport RunCorpusFile(const std::string& path) {
  return runner::RunAmberFile(path, runner::RunOptions{});
}

}  // namespace warpsim::conformance
