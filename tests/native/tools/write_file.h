// The golden-file writers' one output step: `text` into the file named by the
// first argument, or `default_path`. Returns main's exit status.
#pragma once
#include <cstdio>
#include <string>

inline int write_file(int argc, char** argv, const char* default_path, const std::string& text) {
  const char* path = argc > 1 ? argv[1] : default_path;
  std::FILE* f = std::fopen(path, "wb");
  if (f == nullptr) {
    std::perror(path);
    return 1;
  }
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok ? 0 : 1;
}
