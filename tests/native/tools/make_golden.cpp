// Writes tests/golden/softmax.json from the native build. Run after a change
// that is meant to change output bits, and say why in the commit.
#include <fstream>

#include "golden_softmax.h"

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : SMX_GOLDEN_DIR "/softmax.json";
  std::ofstream(path, std::ios::binary) << golden::make();
  return 0;
}
