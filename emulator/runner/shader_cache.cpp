#include "runner/shader_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "spirv/compile.h"

namespace warpsim::runner {
namespace {

constexpr char kMagic[8] = {'W', 'S', 'P', 'V', 'C', 'A', 'C', 'H'};
constexpr uint32_t kByteOrderMark = 0x01020304u;
constexpr size_t kHeaderBytes = 88;
// Larger entries are not SPIR-V anyone compiles by hand; refuse to read them.
constexpr uint64_t kMaxWords = uint64_t{1} << 28;

void AppendU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

// Reads the whole file, or nothing when it cannot be read.
std::optional<std::string> ReadAll(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string data;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (data.size() > kHeaderBytes + 4 * kMaxWords) break;  // rejected later
  }
  ::close(fd);
  return data;
}

bool WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

ShaderCacheKey::ShaderCacheKey(std::string_view step) { Add("step", step); }

ShaderCacheKey& ShaderCacheKey::Add(std::string_view name,
                                    std::string_view value) {
  AppendU64(&bytes_, name.size());
  bytes_.append(name);
  AppendU64(&bytes_, value.size());
  bytes_.append(value);
  return *this;
}

ShaderCacheKey& ShaderCacheKey::Add(std::string_view name,
                                    std::span<const uint32_t> words) {
  return Add(name, std::string_view(reinterpret_cast<const char*>(words.data()),
                                    words.size_bytes()));
}

ShaderCacheKey& ShaderCacheKey::AddFlag(std::string_view name, bool value) {
  return Add(name, std::string_view(value ? "1" : "0"));
}

ShaderCache::ShaderCache(std::string dir, std::string versions)
    : dir_(std::move(dir)), versions_(std::move(versions)) {}

std::string ShaderCache::DefaultVersions() {
  return "warpsim shader cache " + std::to_string(kShaderCacheFormatVersion) +
         "; " + spirv::ToolVersions();
}

Sha256::Digest ShaderCache::KeyDigest(const ShaderCacheKey& key) const {
  Sha256 h;
  ShaderCacheKey versions("versions");
  versions.Add("tools", versions_);
  h.Update(versions.bytes());
  h.Update(key.bytes());
  return h.Finish();
}

std::string ShaderCache::EntryPath(const ShaderCacheKey& key) const {
  return (std::filesystem::path(dir_) / ToHex(KeyDigest(key))).string();
}

std::optional<ShaderCache::Words> ShaderCache::Load(
    const std::string& path, const Sha256::Digest& key) const {
  const std::optional<std::string> data = ReadAll(path);
  if (!data || data->size() < kHeaderBytes) return std::nullopt;
  const char* p = data->data();
  uint32_t version = 0, bom = 0;
  uint64_t count = 0;
  std::memcpy(&version, p + 8, 4);
  std::memcpy(&bom, p + 12, 4);
  std::memcpy(&count, p + 16, 8);
  if (std::memcmp(p, kMagic, 8) != 0 || version != kShaderCacheFormatVersion ||
      bom != kByteOrderMark || count > kMaxWords ||
      data->size() != kHeaderBytes + 4 * count ||
      std::memcmp(p + 24, key.data(), key.size()) != 0) {
    return std::nullopt;
  }
  const Sha256::Digest sum = Sha256::Of(p + kHeaderBytes, 4 * count);
  if (std::memcmp(p + 56, sum.data(), sum.size()) != 0) return std::nullopt;
  Words words(count);
  std::memcpy(words.data(), p + kHeaderBytes, 4 * count);
  return words;
}

void ShaderCache::Store(const std::string& path, const Sha256::Digest& key,
                        const Words& words) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (write_failed_) return;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    Warn("cannot create " + dir_ + ": " + ec.message());
    return;
  }
  std::string header(kMagic, sizeof(kMagic));
  const uint32_t version = kShaderCacheFormatVersion;
  const uint32_t bom = kByteOrderMark;
  const uint64_t count = words.size();
  header.append(reinterpret_cast<const char*>(&version), 4);
  header.append(reinterpret_cast<const char*>(&bom), 4);
  header.append(reinterpret_cast<const char*>(&count), 8);
  header.append(reinterpret_cast<const char*>(key.data()), key.size());
  const Sha256::Digest sum = Sha256::Of(words.data(), 4 * words.size());
  header.append(reinterpret_cast<const char*>(sum.data()), sum.size());

  // A private temporary name per writer; rename() replaces the entry
  // atomically, so no reader sees a partial entry.
  std::string tmp = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    Warn("cannot write to " + dir_ + ": " + std::strerror(errno));
    return;
  }
  const bool written = WriteAll(fd, header.data(), header.size()) &&
                       WriteAll(fd, words.data(), 4 * words.size());
  const int saved_errno = errno;
  const bool closed = ::close(fd) == 0;
  if (!written || !closed || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = !written ? saved_errno : errno;
    ::unlink(tmp.c_str());
    Warn("cannot write to " + dir_ + ": " + std::strerror(err));
  }
}

void ShaderCache::Warn(const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (write_failed_) return;
  write_failed_ = true;  // one warning per cache, then run uncached
  const std::string text =
      "shader cache: " + message + " (continuing without writing the cache)";
  if (warn_) {
    warn_(text);
  } else {
    std::cerr << "warpsim: warning: " << text << "\n";
  }
}

Result<ShaderCache::Words> ShaderCache::GetOrCompute(const ShaderCacheKey& key,
                                                     const Compute& compute) {
  if (!enabled()) return compute();
  const Sha256::Digest digest = KeyDigest(key);
  const std::string path =
      (std::filesystem::path(dir_) / ToHex(digest)).string();
  if (std::optional<Words> words = Load(path, digest)) {
    ++hits_;
    return std::move(*words);
  }
  ++misses_;
  Result<Words> words = compute();
  // Failures are not cached: recomputing gives the same diagnostic.
  if (words.ok()) Store(path, digest, *words);
  return words;
}

std::string DefaultShaderCacheDir() {
  if (const char* env = std::getenv("WARPSIM_SHADER_CACHE")) {
    const std::string_view v(env);
    return v == "off" ? std::string() : std::string(v);
  }
  // XDG Base Directory: a relative XDG_CACHE_HOME is invalid and ignored.
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/') {
    return (std::filesystem::path(xdg) / "warpsim").string();
  }
  if (const char* home = std::getenv("HOME"); home && home[0] != '\0') {
    return (std::filesystem::path(home) / ".cache" / "warpsim").string();
  }
  return "";
}

}  // namespace warpsim::runner
