// The max-heap sift shared by the heaps of select.cpp and select_sort.cpp.
#pragma once
#include <cstddef>
#include <cstdint>

namespace smx {
namespace sel {

// Max-heap sift under `less`: the root is the element that comes last.
template <class Less>
void sift_down(uint32_t* a, size_t i, size_t len, Less less) {
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= len) return;
    if (c + 1 < len && less(a[c], a[c + 1])) ++c;
    if (!less(a[i], a[c])) return;
    const uint32_t t = a[i];
    a[i] = a[c];
    a[c] = t;
    i = c;
  }
}

}  // namespace sel
}  // namespace smx
