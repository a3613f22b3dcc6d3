// SHA-256 (base/sha256.cpp) against the FIPS 180-4 / NIST example vectors.
#include "base/sha256.h"

#include <catch2/catch.hpp>
#include <string>

using warpsim::Sha256;
using warpsim::ToHex;

TEST_CASE("SHA-256 of the NIST example messages", "[base][sha256]") {
  struct Case {
    std::string message;
    const char* digest;
  };
  const Case cases[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc",
       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {std::string(1000000, 'a'),
       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.message.size());
    CHECK(ToHex(Sha256::Of(c.message)) == c.digest);
  }
}

TEST_CASE("SHA-256 fed in pieces equals the one-shot digest",
          "[base][sha256]") {
  std::string message;
  for (int i = 0; i < 1000; ++i) message += static_cast<char>(i * 7 + 3);
  const Sha256::Digest whole = Sha256::Of(message);
  // Piece sizes that straddle the 64-byte block and the 56-byte padding edge.
  for (size_t piece : {1u, 7u, 55u, 56u, 63u, 64u, 65u, 200u}) {
    CAPTURE(piece);
    Sha256 h;
    for (size_t at = 0; at < message.size(); at += piece) {
      h.Update(std::string_view(message).substr(at, piece));
    }
    CHECK(h.Finish() == whole);
  }
}
