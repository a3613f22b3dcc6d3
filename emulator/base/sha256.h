// SHA-256 (FIPS 180-4), for content-addressed keys such as the compiled-shader
// cache's. Written here rather than taken from a library: none of the Debian
// packages warpsim depends on exposes a hash, and OpenSSL or libgcrypt would
// be a new dependency for ~100 lines of well-specified code.
#ifndef WARPSIM_BASE_SHA256_H_
#define WARPSIM_BASE_SHA256_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace warpsim {

// Incremental SHA-256: Update() any number of times, then Finish() once.
class Sha256 {
 public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();
  void Update(const void* data, size_t size);
  void Update(std::string_view text) { Update(text.data(), text.size()); }
  Digest Finish();

  // One-shot helpers.
  static Digest Of(const void* data, size_t size);
  static Digest Of(std::string_view text) {
    return Of(text.data(), text.size());
  }

 private:
  void Compress(const uint8_t block[64]);

  std::array<uint32_t, 8> state_;
  uint8_t buffer_[64];
  size_t buffered_ = 0;  // bytes in buffer_
  uint64_t total_bytes_ = 0;
};

// Lower-case hexadecimal, two characters per byte.
std::string ToHex(const Sha256::Digest& digest);

}  // namespace warpsim

#endif  // WARPSIM_BASE_SHA256_H_
