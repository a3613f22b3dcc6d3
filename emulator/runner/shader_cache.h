// A cache of compiled shaders on disk, so that re-running a scene does not
// re-run glslang and spirv-opt.
//
// An entry holds the SPIR-V words one expensive step produced (GLSL compile,
// SPIR-V assembly, or validate + SHADER_OPTIMIZATION + legalize), under the
// SHA-256 of everything that determines those words: the step, its inputs
// (source text or input words, stage, target environment, options, pass
// lists) and the tool versions (glslang, SPIRV-Tools, and this cache's format
// version). File names are not part of the key: they only appear in
// diagnostics, and failed steps are never cached, so a failure is recomputed
// and reported exactly as without the cache.
//
// Entry file `DIR/<64 hex digits of the key>`:
//
//   offset  size  field
//        0     8  magic "WSPVCACH"
//        8     4  kShaderCacheFormatVersion
//       12     4  0x01020304 (byte order of the writer)
//       16     8  word count N
//       24    32  SHA-256 of the key (guards against a misnamed file)
//       56    32  SHA-256 of the payload
//       88    4N  the words
//
// An entry that does not match this layout exactly (short, long, wrong magic,
// version, key or checksum) is ignored, recomputed and rewritten; it is never
// trusted. Writers create a private temporary file in DIR and rename() it
// over the entry, so readers see a whole entry or none, and concurrent
// writers of the same key (which write the same bytes) are harmless. A
// directory that cannot be created or written is reported once as a warning
// and the run goes on uncached.
#ifndef WARPSIM_RUNNER_SHADER_CACHE_H_
#define WARPSIM_RUNNER_SHADER_CACHE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostic.h"
#include "base/sha256.h"

namespace warpsim::runner {

// Bump when warpsim changes how it calls the tools (glslang options, the
// handling around the passes) in a way the other key fields do not capture.
inline constexpr uint32_t kShaderCacheFormatVersion = 1;

// The inputs of one cached step, as an ordered list of named fields. Each
// field is length-prefixed, so ("ab", "c") and ("a", "bc") differ.
class ShaderCacheKey {
 public:
  explicit ShaderCacheKey(std::string_view step);
  ShaderCacheKey& Add(std::string_view name, std::string_view value);
  ShaderCacheKey& Add(std::string_view name, std::span<const uint32_t> words);
  ShaderCacheKey& AddFlag(std::string_view name, bool value);
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

class ShaderCache {
 public:
  using Words = std::vector<uint32_t>;
  using Compute = std::function<Result<Words>()>;
  using WarningSink = std::function<void(const std::string&)>;

  // `dir` empty: the cache is off (every lookup computes; nothing is read
  // or written, nothing counted). `versions` names the tools; tests change
  // it to simulate an upgrade.
  explicit ShaderCache(std::string dir,
                       std::string versions = DefaultVersions());

  // "warpsim shader cache <format>; glslang ...; SPIRV-Tools ...".
  static std::string DefaultVersions();

  // The entry for `key` if a valid one exists (a hit); otherwise runs
  // `compute` (a miss) and stores its words if it succeeded.
  Result<Words> GetOrCompute(const ShaderCacheKey& key, const Compute& compute);

  bool enabled() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  // Where the path of the entry for `key` is (it may not exist).
  std::string EntryPath(const ShaderCacheKey& key) const;
  // Warnings (an unwritable directory) go here; default: stderr.
  void set_warning_sink(WarningSink sink) { warn_ = std::move(sink); }

 private:
  Sha256::Digest KeyDigest(const ShaderCacheKey& key) const;
  std::optional<Words> Load(const std::string& path,
                            const Sha256::Digest& key) const;
  void Store(const std::string& path, const Sha256::Digest& key,
             const Words& words);
  void Warn(const std::string& message);

  std::string dir_;
  std::string versions_;
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> misses_{0};
  std::mutex mutex_;           // guards the two fields below
  bool write_failed_ = false;  // after one failure, stop trying
  WarningSink warn_;
};

// The cache directory `warpsim run` uses without --shader-cache:
// $WARPSIM_SHADER_CACHE if set ("off" or empty: no cache), else
// $XDG_CACHE_HOME/warpsim, else $HOME/.cache/warpsim; "" (off) when none
// of them is set.
std::string DefaultShaderCacheDir();

}  // namespace warpsim::runner

#endif  // WARPSIM_RUNNER_SHADER_CACHE_H_
