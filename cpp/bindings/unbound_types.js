// Embind registers std::string, std::wstring, std::u16string, std::u32string,
// emscripten::val and the memory_view types at start-up, whether or not a
// module binds them, and their converters (UTF-8, UTF-16 and UTF-32 encoders
// and decoders, the val handle table) come with them. This module binds none
// of these types: arrays cross as byte offsets into wasm memory and the option
// table as constant data (bindings.cpp). Linked with --js-library
// (CMakeLists.txt), this file registers them without converters: a binding
// that used one would throw a BindingError naming the type, never convert
// wrongly. The glue is ~0.7 KB gzip smaller.
mergeInto(LibraryManager.library, {
  $unboundType__deps: ['$registerType', '$readLatin1String', '$throwBindingError'],
  $unboundType: function (rawType, name) {
    name = readLatin1String(name);
    var fail = function () {
      throwBindingError(name + ' is not bound by this module');
    };
    registerType(rawType, {
      name: name,
      fromWireType: fail,
      toWireType: fail,
      argPackAdvance: 8,
      readValueFromPointer: fail,
      destructorFunction: null,
    }, {
      // As Embind's own registration: some of these names alias one C++ type
      // (memory_view<int8_t> and memory_view<signed char>).
      ignoreDuplicateRegistrations: true,
    });
  },
  _embind_register_std_string__deps: ['$unboundType'],
  _embind_register_std_string: function (rawType, name) {
    unboundType(rawType, name);
  },
  _embind_register_std_wstring__deps: ['$unboundType'],
  _embind_register_std_wstring: function (rawType, charSize, name) {
    unboundType(rawType, name);
  },
  _embind_register_memory_view__deps: ['$unboundType'],
  _embind_register_memory_view: function (rawType, dataTypeIndex, name) {
    unboundType(rawType, name);
  },
  _embind_register_emval__deps: ['$unboundType'],
  _embind_register_emval: function (rawType, name) {
    unboundType(rawType, name);
  },
});
