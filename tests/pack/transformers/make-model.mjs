// Writes a tiny causal language model that transformers.js loads from disk, so
// that the adapter runs inside a real generate() with no download:
//
//   <dir>/tiny-bigram/config.json            model_type gpt2, 8 tokens
//   <dir>/tiny-bigram/onnx/model.onnx        logits = Gather(table, input_ids): a bigram model
//   <dir>/tiny-bigram/tokenizer.json         word-level tokenizer over WORDS
//   <dir>/tiny-bigram/tokenizer_config.json
//
// The next-token logits depend on the last token alone (row input_ids[-1] of
// TABLE), so a test knows the exact distribution of every step. The model has
// no key/value cache: generate() runs it on the whole sequence each step and
// reads the last position, which is all this model needs.
//
//   node make-model.mjs <dir>
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

export const WORDS = ['the', 'cat', 'sat', 'on', 'a', 'mat', 'and', '<eos>'];
export const EOS = WORDS.length - 1;
const V = WORDS.length;

/** The bigram logits: TABLE[prev][next], float32 values; the end token is never a candidate (-Infinity). */
export const TABLE = Array.from({ length: V }, (_, i) =>
  Array.from({ length: V }, (_, j) => (j === EOS ? -Infinity : Math.fround(2 * Math.cos(1.3 * i + 2.1 * j) + (0.25 * j) / V))),
);

export function modelBytes() {
  const { DataType } = onnx.TensorProto;
  const dim = (p) => (typeof p === 'string' ? { dimParam: p } : { dimValue: p });
  const tensor = (name, elemType, dims) => ({
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map(dim) } } },
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'softmax-wasm tests/pack',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: 'bigram',
      node: [{ opType: 'Gather', input: ['table', 'input_ids'], output: ['logits'], name: 'lookup', attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }] }],
      initializer: [{ name: 'table', dataType: DataType.FLOAT, dims: [V, V], floatData: TABLE.flat() }],
      input: [tensor('input_ids', DataType.INT64, ['batch', 'sequence'])],
      output: [tensor('logits', DataType.FLOAT, ['batch', 'sequence', V])],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

export function writeModel(dir) {
  const root = join(dir, 'tiny-bigram');
  mkdirSync(join(root, 'onnx'), { recursive: true });
  writeFileSync(join(root, 'onnx', 'model.onnx'), modelBytes());
  const json = (name, value) => writeFileSync(join(root, name), JSON.stringify(value, null, 2));
  json('config.json', {
    model_type: 'gpt2',
    architectures: ['GPT2LMHeadModel'],
    vocab_size: V,
    n_positions: 256,
    n_embd: 4,
    n_layer: 1,
    n_head: 1,
    bos_token_id: 0,
    eos_token_id: EOS,
  });
  json('tokenizer.json', {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [{ id: EOS, content: '<eos>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
    normalizer: null,
    pre_tokenizer: { type: 'WhitespaceSplit' },
    post_processor: null,
    decoder: null,
    model: { type: 'WordLevel', vocab: Object.fromEntries(WORDS.map((w, i) => [w, i])), unk_token: '<eos>' },
  });
  json('tokenizer_config.json', { tokenizer_class: 'PreTrainedTokenizerFast', eos_token: '<eos>', model_max_length: 256 });
  return root;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(writeModel(process.argv[2] ?? '.'));
