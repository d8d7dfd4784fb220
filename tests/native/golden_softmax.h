// The golden file tests/golden/softmax.json: inputs -> float32 output bits,
// made by the native build (tools/make_golden), checked natively by
// golden_test (SIMD core) and golden_scalar_test (scalar core), and in Node
// for both wasm builds by tests/js/bits.test.js.
#pragma once
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "reference.h"
#include "smx/softmax.h"

namespace golden {

struct Case {
  const char* op;
  float temperature;
  std::vector<int32_t> shape;
  int32_t axis;
  std::vector<float> x;
};

inline std::vector<Case> cases() {
  std::vector<Case> c;
  const char* ops[] = {"softmax", "logSoftmax"};
  for (const char* op : ops) {
    for (size_t n : {1, 3, 4, 7, 31, 32, 33, 63, 100, 1000, 4099}) {
      auto x = ref::normal(n, 3.0, static_cast<uint32_t>(n));
      c.push_back({op, 1.0f, {static_cast<int32_t>(n)}, -1, x});
    }
    for (double scale : {1e3, 1e30, 3e38})
      c.push_back({op, 1.0f, {257}, -1, ref::spread(257, scale, 3)});
    for (float t : {0.3f, 2.0f, 0.0f, INFINITY})
      c.push_back({op, t, {101}, -1, ref::normal(101, 3.0, 9)});
    // The tempered path (256+ entries at T != 1), without and with its mask.
    for (float t : {0.7f, 1.3f, 0.05f})
      c.push_back({op, t, {1000}, -1, ref::normal(1000, 3.0, 10)});
    std::vector<float> tempered_masked = ref::normal(300, 3.0, 12);
    for (size_t i = 0; i < tempered_masked.size(); i += 7) tempered_masked[i] = -INFINITY;
    c.push_back({op, 0.8f, {300}, -1, tempered_masked});
    c.push_back({op, 1.0f, {6, 35}, 0, ref::normal(210, 3.0, 4)});
    c.push_back({op, 1.0f, {3, 5, 7}, 1, ref::normal(105, 3.0, 5)});
    std::vector<float> masked = ref::normal(37, 3.0, 6);
    for (size_t i = 0; i < masked.size(); i += 3) masked[i] = -INFINITY;
    c.push_back({op, 1.0f, {37}, -1, masked});
    c.push_back({op, 1.0f, {5}, -1, {1.0f, INFINITY, -INFINITY, INFINITY, 3.0f}});
  }
  c.push_back({"softmaxNaive", 1.0f, {3}, -1, {1000.0f, 1001.0f, 1002.0f}});
  c.push_back({"softmaxNaive", 1.0f, {33}, -1, ref::normal(33, 3.0, 8)});
  c.push_back({"softmaxNaive", 1.0f, {17}, -1, ref::spread(17, 110.0, 8)});
  return c;
}

inline std::string hex_list(const std::vector<float>& v) {
  std::string s = "[";
  char buf[16];
  for (size_t i = 0; i < v.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s\"%08" PRIx32 "\"", i ? "," : "", ref::bits(v[i]));
    s += buf;
  }
  return s + "]";
}

inline std::string format_float(float f) {
  if (std::isinf(f)) return "\"Infinity\"";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
  return buf;
}

// Runs every case through the linked core and returns the file's content.
inline std::string make() {
  std::string s =
      "{\n  \"format\": \"x and y are float32 bit patterns in hex; temperature 'Infinity' is a "
      "string\",\n  \"cases\": [\n";
  const auto all = cases();
  for (size_t k = 0; k < all.size(); ++k) {
    const Case& c = all[k];
    smx::Layout l;
    smx::make_layout(c.x.size(), c.shape.data(), c.shape.size(), c.axis, &l);
    smx::Options o;
    o.temperature = c.temperature;
    std::vector<float> y(c.x.size());
    const std::string op = c.op;
    if (op == "softmax")
      smx::softmax(c.x.data(), y.data(), l, o);
    else if (op == "logSoftmax")
      smx::log_softmax(c.x.data(), y.data(), l, o);
    else
      smx::softmax_naive(c.x.data(), y.data(), l, o);
    std::string shape = "[";
    for (size_t i = 0; i < c.shape.size(); ++i)
      shape += (i ? "," : "") + std::to_string(c.shape[i]);
    s += "    {\"op\": \"" + op + "\", \"temperature\": " + format_float(c.temperature) +
         ", \"shape\": " + shape + "], \"axis\": " + std::to_string(c.axis) +
         ",\n     \"x\": " + hex_list(c.x) + ",\n     \"y\": " + hex_list(y) + "}" +
         (k + 1 < all.size() ? ",\n" : "\n");
  }
  return s + "  ]\n}\n";
}

}  // namespace golden
