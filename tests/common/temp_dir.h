// A fresh directory under the system temp dir for one test, removed when
// the object goes out of scope.
#ifndef WARPSIM_TESTS_COMMON_TEMP_DIR_H_
#define WARPSIM_TESTS_COMMON_TEMP_DIR_H_

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace warpsim::testing {

class TempDir {
 public:
  // `prefix` names the test in the directory's name.
  explicit TempDir(const std::string& prefix) {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            (prefix + "_" + std::to_string(::getpid()) + "_" +
             std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string str() const { return path_.string(); }
  std::string Sub(const std::string& name) const {
    return (path_ / name).string();
  }
  // The names of the files in the directory, sorted.
  std::vector<std::string> Files() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_)) {
      names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace warpsim::testing

#endif  // WARPSIM_TESTS_COMMON_TEMP_DIR_H_
