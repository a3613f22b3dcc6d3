// Catch2's main, after turning the compiled-shader cache off for this
// process and every `warpsim` it starts: tests never read or write the
// user's cache (~/.cache/warpsim). Cache tests name a temporary directory.
#define CATCH_CONFIG_RUNNER
#include <stdlib.h>

#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
  ::setenv("WARPSIM_SHADER_CACHE", "off", /*overwrite=*/1);
  return Catch::Session().run(argc, argv);
}
