// Writes tests/golden/speculative.json (the path is the first argument,
// default tests/golden/speculative.json): the token-mask and draft-verification
// cases of tests/native/speculative_golden.h with their results from the
// native build.
#include <cstdio>
#include <string>

#include "speculative_golden.h"

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "tests/golden/speculative.json";
  const std::string s = golden_spec::json();
  std::FILE* f = std::fopen(path, "wb");
  if (f == nullptr) {
    std::perror(path);
    return 1;
  }
  const bool ok = std::fwrite(s.data(), 1, s.size(), f) == s.size();
  return std::fclose(f) == 0 && ok ? 0 : 1;
}
