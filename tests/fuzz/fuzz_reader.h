// The fuzz targets' view of libFuzzer's bytes: each read takes the next bytes,
// and reads past the end give zeros (so every input decodes to something).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

struct Reader {
  const uint8_t* p;
  size_t n;
  uint8_t byte() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  uint32_t u32() {
    uint32_t b = 0;
    for (int i = 0; i < 4; ++i) b |= static_cast<uint32_t>(byte()) << (8 * i);
    return b;
  }
  // Any float32 bit pattern (NaN payloads, infinities, denormals included).
  float raw() {
    const uint32_t b = u32();
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
};
