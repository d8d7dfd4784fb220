// Embind's JS invokers without eval, at the cost of a direct wasm call.
//
// Linked with --js-library (CMakeLists.txt); replaces Embind's
// craftInvokerFunction (src/embind/embind.js of Emscripten 3.1.6). Under
// -sDYNAMIC_EXECUTION=0 the stock version returns one generic closure that
// loops over the argument types, shares its argument and destructor arrays
// between calls (a call made from inside a call overwrites them) and calls
// the C++ invoker through Function.prototype.apply: 110-300 ns per call in
// Node 20. With DYNAMIC_EXECUTION=1 it would build a closure per signature
// with `new Function`, which a page's CSP must allow with 'unsafe-eval'.
//
// Here every signature whose argument types need no destructor (numbers,
// enums, class pointers: destructorFunction === null), which is every
// per-call signature of cpp/bindings/bindings.cpp, gets a closure of fixed
// arity written out below: no eval, no apply, no shared state. The rest
// (value_object arguments) get a generic closure with its own destructor list
// per call. Both keep Embind's argument-count check and its `this` check (a
// deleted object throws a BindingError, never reaches C++).
mergeInto(LibraryManager.library, {
  $wireSame: function (x) { return x; },
  $wireUnsigned: function (x) { return x >>> 0; },
  $wireEnum: function (x) { return x.value; },
  $wireVoid: function () {},
  $craftInvokerFunction__deps: ['$throwBindingError', '$runDestructors', '$wireSame', '$wireUnsigned', '$wireEnum', '$wireVoid'],
  $craftInvokerFunction: function (humanName, argTypes, classType, cppInvokerFunc, cppTargetFunc) {
    var argCount = argTypes.length - 2;
    if (argCount < 0) throwBindingError("argTypes array size mismatch! Must at least get return value and 'this' types!");
    var isMethod = argTypes[1] !== null && classType !== null;
    var ret = argTypes[0];
    var returns = ret.name !== 'void';
    var self = isMethod ? argTypes[1] : null;
    var f = cppInvokerFunc;
    var fn = cppTargetFunc;
    function badCount(n) {
      throwBindingError('function ' + humanName + ' called with ' + n + ' arguments, expected ' + argCount + ' args!');
    }

    // A number crosses as itself: the wasm call converts it (ToInt32, f32
    // rounding) exactly as these types' toWireType would (which, without
    // ASSERTIONS, checks nothing); unsigned results need >>> 0.
    var SIGNED_OR_FLOAT = new Set(['int', 'long', 'float', 'double']);
    var UNSIGNED = new Set(['unsigned int', 'unsigned long']);
    function toWire(t) {
      if (SIGNED_OR_FLOAT.has(t.name) || UNSIGNED.has(t.name)) return wireSame;
      // An enum_ value crosses as its number.
      if (t.constructor !== Object && t.constructor && t.constructor.values) return wireEnum;
      return function (x) { return t['toWireType'](null, x); };
    }

    var simple = argCount <= 8;
    for (var i = 1; i < argTypes.length; ++i) {
      if (argTypes[i] !== null && argTypes[i].destructorFunction !== null) simple = false;
    }

    if (simple) {
      // One conversion function per argument and one for the result. The
      // closures below are shared by every binding of the same arity, so
      // their call sites see every binding's converters: those are the same
      // few function objects (identity, enum, unsigned), which V8 inlines.
      var c = argTypes.slice(2).map(toWire);
      var c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3], c4 = c[4], c5 = c[5], c6 = c[6], c7 = c[7];
      var out = !returns ? wireVoid : SIGNED_OR_FLOAT.has(ret.name) ? wireSame : UNSIGNED.has(ret.name) ? wireUnsigned
        : function (rv) { return ret['fromWireType'](rv); };
      if (isMethod) {
        switch (argCount) {
          case 0: return function () {
            if (arguments.length !== 0) badCount(arguments.length);
            return out(f(fn, self['toWireType'](null, this)));
          };
          case 1: return function (x0) {
            if (arguments.length !== 1) badCount(arguments.length);
            return out(f(fn, self['toWireType'](null, this), c0(x0)));
          };
          case 2: return function (x0, x1) {
            if (arguments.length !== 2) badCount(arguments.length);
            return out(f(fn, self['toWireType'](null, this), c0(x0), c1(x1)));
          };
          case 3: return function (x0, x1, x2) {
            if (arguments.length !== 3) badCount(arguments.length);
            return out(f(fn, self['toWireType'](null, this), c0(x0), c1(x1), c2(x2)));
          };
          case 4: return function (x0, x1, x2, x3) {
            if (arguments.length !== 4) badCount(arguments.length);
            return out(f(fn, self['toWireType'](null, this), c0(x0), c1(x1), c2(x2), c3(x3)));
          };
          case 5: return function (x0, x1, x2, x3, x4) {
            if (arguments.length !== 5) badCount(arguments.length);
            return out(f(fn, self['toWireType'](null, this), c0(x0), c1(x1), c2(x2), c3(x3), c4(x4)));
          };
          case 6: return function (x0, x1, x2, x3, x4, x5) {
            if (arguments.length !== 6) badCount(arguments.length);
            return out(f(fn, self['toWireType'](null, this), c0(x0), c1(x1), c2(x2), c3(x3), c4(x4), c5(x5)));
          };
          case 7: return function (x0, x1, x2, x3, x4, x5, x6) {
            if (arguments.length !== 7) badCount(arguments.length);
            return out(f(fn, self['toWireType'](null, this), c0(x0), c1(x1), c2(x2), c3(x3), c4(x4), c5(x5), c6(x6)));
          };
          case 8: return function (x0, x1, x2, x3, x4, x5, x6, x7) {
            if (arguments.length !== 8) badCount(arguments.length);
            return out(f(fn, self['toWireType'](null, this), c0(x0), c1(x1), c2(x2), c3(x3), c4(x4), c5(x5), c6(x6), c7(x7)));
          };
        }
      } else {
        switch (argCount) {
          case 0: return function () {
            if (arguments.length !== 0) badCount(arguments.length);
            return out(f(fn));
          };
          case 1: return function (x0) {
            if (arguments.length !== 1) badCount(arguments.length);
            return out(f(fn, c0(x0)));
          };
          case 2: return function (x0, x1) {
            if (arguments.length !== 2) badCount(arguments.length);
            return out(f(fn, c0(x0), c1(x1)));
          };
          case 3: return function (x0, x1, x2) {
            if (arguments.length !== 3) badCount(arguments.length);
            return out(f(fn, c0(x0), c1(x1), c2(x2)));
          };
          case 4: return function (x0, x1, x2, x3) {
            if (arguments.length !== 4) badCount(arguments.length);
            return out(f(fn, c0(x0), c1(x1), c2(x2), c3(x3)));
          };
          case 5: return function (x0, x1, x2, x3, x4) {
            if (arguments.length !== 5) badCount(arguments.length);
            return out(f(fn, c0(x0), c1(x1), c2(x2), c3(x3), c4(x4)));
          };
          case 6: return function (x0, x1, x2, x3, x4, x5) {
            if (arguments.length !== 6) badCount(arguments.length);
            return out(f(fn, c0(x0), c1(x1), c2(x2), c3(x3), c4(x4), c5(x5)));
          };
          case 7: return function (x0, x1, x2, x3, x4, x5, x6) {
            if (arguments.length !== 7) badCount(arguments.length);
            return out(f(fn, c0(x0), c1(x1), c2(x2), c3(x3), c4(x4), c5(x5), c6(x6)));
          };
          case 8: return function (x0, x1, x2, x3, x4, x5, x6, x7) {
            if (arguments.length !== 8) badCount(arguments.length);
            return out(f(fn, c0(x0), c1(x1), c2(x2), c3(x3), c4(x4), c5(x5), c6(x6), c7(x7)));
          };
        }
      }
    }

    // Generic: any arity, types with destructors; nothing shared between calls.
    var needsDestructorStack = false;
    for (var j = 1; j < argTypes.length; ++j) {
      if (argTypes[j] !== null && argTypes[j].destructorFunction === undefined) needsDestructorStack = true;
    }
    return function () {
      if (arguments.length !== argCount) badCount(arguments.length);
      var destructors = needsDestructorStack ? [] : null;
      var wired = new Array(argCount + (isMethod ? 2 : 1));
      var k = 0;
      wired[k++] = fn;
      if (isMethod) wired[k++] = self['toWireType'](destructors, this);
      for (var i = 0; i < argCount; ++i) wired[k++] = argTypes[i + 2]['toWireType'](destructors, arguments[i]);
      var rv = f.apply(null, wired);
      if (needsDestructorStack) {
        runDestructors(destructors);
      } else {
        for (var p = isMethod ? 1 : 2; p < argTypes.length; p++) {
          if (argTypes[p].destructorFunction !== null) argTypes[p].destructorFunction(wired[p - (isMethod ? 0 : 1)]);
        }
      }
      return returns ? ret['fromWireType'](rv) : undefined;
    };
  },
});
