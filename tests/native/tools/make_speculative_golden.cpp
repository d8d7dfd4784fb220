// Writes tests/golden/speculative.json (the path is the first argument,
// default tests/golden/speculative.json): the token-mask and draft-verification
// cases of tests/native/speculative_golden.h with their results from the
// native build.
#include "speculative_golden.h"
#include "tools/write_file.h"

int main(int argc, char** argv) {
  return write_file(argc, argv, "tests/golden/speculative.json", golden_spec::json());
}
