// Writes tests/golden/sampler_steps.json (the path is the first argument,
// default tests/golden/sampler_steps.json): the cases of
// tests/native/sampler_steps_golden.h with their first 1,000 indices from the
// native build.
#include <cstdio>
#include <string>

#include "sampler_steps_golden.h"

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "tests/golden/sampler_steps.json";
  const std::string s = golden_steps::json();
  std::FILE* f = std::fopen(path, "wb");
  if (f == nullptr) {
    std::perror(path);
    return 1;
  }
  const bool ok = std::fwrite(s.data(), 1, s.size(), f) == s.size();
  return std::fclose(f) == 0 && ok ? 0 : 1;
}
