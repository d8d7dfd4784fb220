// Writes tests/golden/sampler.json (the path is the first argument, default
// tests/golden/sampler.json): the cases of tests/native/sampler_golden.h with
// their first 1,000 indices from the native build.
#include "sampler_golden.h"
#include "tools/write_file.h"

int main(int argc, char** argv) {
  return write_file(argc, argv, "tests/golden/sampler.json", golden::json());
}
