// A one-node ONNX model (Softmax over the last axis of a [rows, n] float32
// input, both dims symbolic), written as protobuf bytes by a tiny encoder so the
// benchmark needs no onnx Python package. Field numbers from onnx/onnx.proto.

const utf8 = new TextEncoder();

function varint(v) {
  const out = [];
  let x = BigInt(v);
  if (x < 0n) x += 1n << 64n; // two's complement, as protobuf encodes negative int64
  do {
    let b = Number(x & 0x7fn);
    x >>= 7n;
    if (x !== 0n) b |= 0x80;
    out.push(b);
  } while (x !== 0n);
  return out;
}

const key = (field, wire) => varint((field << 3) | wire);
/** varint field (wire type 0) */
const int = (field, v) => [...key(field, 0), ...varint(v)];
/** length-delimited field (wire type 2): a string or an embedded message */
const bytes = (field, data) => {
  const b = typeof data === 'string' ? [...utf8.encode(data)] : data;
  return [...key(field, 2), ...varint(b.length), ...b];
};

const FLOAT = 1; // TensorProto.DataType.FLOAT
const ATTR_INT = 2; // AttributeProto.AttributeType.INT

// TypeProto { tensor_type(1): { elem_type(1), shape(2): { dim(1): { dim_param(2) } } } }
function tensorType(dimParams) {
  const shape = dimParams.flatMap((p) => bytes(1, bytes(2, p)));
  return bytes(1, [...int(1, FLOAT), ...bytes(2, shape)]);
}
// ValueInfoProto { name(1), type(2) }
const valueInfo = (name, dims) => [...bytes(1, name), ...bytes(2, tensorType(dims))];

/** Softmax(axis = -1) of input 'x' [rows, n] into output 'y'; opset 13, IR 8. */
export function softmaxModel() {
  // AttributeProto { name(1), i(3), type(20) }
  const axis = [...bytes(1, 'axis'), ...int(3, -1), ...int(20, ATTR_INT)];
  // NodeProto { input(1), output(2), name(3), op_type(4), attribute(5) }
  const node = [...bytes(1, 'x'), ...bytes(2, 'y'), ...bytes(3, 'softmax'), ...bytes(4, 'Softmax'), ...bytes(5, axis)];
  // GraphProto { node(1), name(2), input(11), output(12) }
  const graph = [
    ...bytes(1, node),
    ...bytes(2, 'softmax_graph'),
    ...bytes(11, valueInfo('x', ['rows', 'n'])),
    ...bytes(12, valueInfo('y', ['rows', 'n'])),
  ];
  // ModelProto { ir_version(1), producer_name(2), graph(7), opset_import(8): { domain(1), version(2) } }
  const model = [...int(1, 8), ...bytes(2, 'softmax-wasm-bench'), ...bytes(7, graph), ...bytes(8, [...bytes(1, ''), ...int(2, 13)])];
  return new Uint8Array(model);
}
