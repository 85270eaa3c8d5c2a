// `transform --auto --report --json` on a generated int8 model with MCUNet-VWW's first-stage shapes
//: the search finds foldpad then stream, moves the entry QUANTIZE to the caller, and
// ends at or below TinyEngine's published 59 kB, bit-exact and verified. The model is written
// here: a JSON description in the TFLite schema's field names, compiled by Debian's flatc (a build
// tool of the project) against a schema holding the facts of the published format this model uses.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// TFLite's schema, the tables this model uses, with the BuiltinOptions union's published numbers.
const schema = `
namespace tflite;
table CustomQuantization { custom:[ubyte]; }
union QuantizationDetails { CustomQuantization }
table QuantizationParameters { min:[float]; max:[float]; scale:[float]; zero_point:[long];
  details:QuantizationDetails; quantized_dimension:int; }
table Conv2DOptions { padding:byte; stride_w:int; stride_h:int; fused_activation_function:byte;
  dilation_w_factor:int = 1; dilation_h_factor:int = 1; }
table DepthwiseConv2DOptions { padding:byte; stride_w:int; stride_h:int; depth_multiplier:int;
  fused_activation_function:byte; dilation_w_factor:int = 1; dilation_h_factor:int = 1; }
table Pool2DOptions { padding:byte; stride_w:int; stride_h:int; filter_width:int; filter_height:int;
  fused_activation_function:byte; }
union BuiltinOptions { Conv2DOptions = 1, DepthwiseConv2DOptions = 2, Pool2DOptions = 5 }
table Buffer { data:[ubyte] (force_align: 16); }
table Tensor { shape:[int]; type:byte; buffer:uint; name:string; quantization:QuantizationParameters; }
table Operator { opcode_index:uint; inputs:[int]; outputs:[int]; builtin_options:BuiltinOptions; }
table SubGraph { tensors:[Tensor]; inputs:[int]; outputs:[int]; operators:[Operator]; name:string; }
table OperatorCode { deprecated_builtin_code:byte; custom_code:string; version:int = 1; builtin_code:int; }
table Model { version:uint; operator_codes:[OperatorCode]; subgraphs:[SubGraph]; description:string;
  buffers:[Buffer]; }
root_type Model;
file_identifier "TFL3";
`;

const FLOAT32 = 0, INT32 = 2, INT8 = 9;
const SAME = 0, VALID = 1, RELU6 = 3;
const CODES = { AVERAGE_POOL_2D: 1, CONV_2D: 3, DEPTHWISE_CONV_2D: 4, DEQUANTIZE: 6, PAD: 34, QUANTIZE: 114 };

// A deterministic byte stream for weights and biases.
function bytes(n, seed) {
  const out = [];
  let s = seed >>> 0;
  for (let i = 0; i < n; ++i) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out.push((s >>> 24) & 0xff);
  }
  return out;
}
const int32Bytes = (values) => [...new Uint8Array(new Int32Array(values).buffer)];

// MCUNet-VWW's first stage: float [1,80,80,3] -> QUANTIZE -> PAD 1 -> conv 3x3/2 16 ch -> depthwise
// 3x3 (SAME) -> 1x1 to 8 ch -> 1x1 to 48 ch (40x40x48 = 76,800 B) -> PAD 1 -> depthwise 3x3/2 ->
// 1x1 to 16 ch -> average pool -> DEQUANTIZE.
function vwwFirstStage() {
  const m = { version: 3, operator_codes: [], subgraphs: [], description: 'vww first stage (generated)', buffers: [{}] };
  const tensors = [], operators = [];
  const code = (name) => {
    let i = m.operator_codes.findIndex((c) => c.builtin_code === CODES[name]);
    if (i < 0) {
      m.operator_codes.push({ deprecated_builtin_code: CODES[name], builtin_code: CODES[name] });
      i = m.operator_codes.length - 1;
    }
    return i;
  };
  const tensor = (name, shape, type, quantization, data) => {
    let buffer = 0;
    if (data) {
      m.buffers.push({ data });
      buffer = m.buffers.length - 1;
    }
    tensors.push({ name, shape, type, buffer, ...(quantization ? { quantization } : {}) });
    return tensors.length - 1;
  };
  let act = 0;
  const activation = (shape) => {
    ++act;
    return tensor(`act${act}`, shape, INT8, { scale: [0.02 + 0.001 * act], zero_point: [act % 2 ? -128 : 3] });
  };
  const like = (name, shape, t) => tensor(name, shape, INT8, tensors[t].quantization);
  const op = (name, inputs, outputs, options) =>
    operators.push({ opcode_index: code(name), inputs, outputs, ...(options ?? {}) });
  const weights = (name, shape, channels, axis) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const scale = Array.from({ length: channels }, (_, i) => 0.004 + 0.0005 * (i % 7));
    return tensor(name, shape, INT8, { scale, zero_point: scale.map(() => 0), quantized_dimension: axis },
      bytes(n, n + channels));
  };
  const bias = (name, n) => tensor(name, [n], INT32, undefined, int32Bytes(Array.from({ length: n }, (_, i) => (i * 97) % 2000 - 1000)));
  const pad = (x, shape) => {
    const p = tensor(`pads${tensors.length}`, [4, 2], INT32, undefined, int32Bytes([0, 0, 1, 1, 1, 1, 0, 0]));
    const y = like(`padded${tensors.length}`, shape, x);
    op('PAD', [x, p], [y]);
    return y;
  };
  const conv = (x, k, cin, cout, stride, padding, activationCode, outShape) => {
    const w = weights(`w${tensors.length}`, [cout, k, k, cin], cout, 0);
    const b = bias(`b${tensors.length}`, cout);
    const y = activation(outShape);
    op('CONV_2D', [x, w, b], [y], { builtin_options_type: 'Conv2DOptions',
      builtin_options: { padding, stride_w: stride, stride_h: stride, fused_activation_function: activationCode } });
    return y;
  };
  const depthwise = (x, c, stride, padding, outShape) => {
    const w = weights(`dw${tensors.length}`, [1, 3, 3, c], c, 3);
    const b = bias(`db${tensors.length}`, c);
    const y = activation(outShape);
    op('DEPTHWISE_CONV_2D', [x, w, b], [y], { builtin_options_type: 'DepthwiseConv2DOptions',
      builtin_options: { padding, stride_w: stride, stride_h: stride, depth_multiplier: 1, fused_activation_function: RELU6 } });
    return y;
  };
  const image = tensor('image', [1, 80, 80, 3], FLOAT32);
  const q = tensor('image_int8', [1, 80, 80, 3], INT8, { scale: [0.0078125], zero_point: [0] });
  op('QUANTIZE', [image], [q]);
  let t = pad(q, [1, 82, 82, 3]);
  t = conv(t, 3, 3, 16, 2, VALID, RELU6, [1, 40, 40, 16]);
  t = depthwise(t, 16, 1, SAME, [1, 40, 40, 16]);
  t = conv(t, 1, 16, 8, 1, VALID, 0, [1, 40, 40, 8]);
  t = conv(t, 1, 8, 48, 1, VALID, RELU6, [1, 40, 40, 48]);
  t = pad(t, [1, 42, 42, 48]);
  t = depthwise(t, 48, 2, VALID, [1, 20, 20, 48]);
  t = conv(t, 1, 48, 16, 1, VALID, 0, [1, 20, 20, 16]);
  const pooled = like('pooled', [1, 1, 1, 16], t);
  op('AVERAGE_POOL_2D', [t], [pooled], { builtin_options_type: 'Pool2DOptions',
    builtin_options: { padding: VALID, stride_w: 20, stride_h: 20, filter_width: 20, filter_height: 20 } });
  const out = tensor('scores', [1, 1, 1, 16], FLOAT32);
  op('DEQUANTIZE', [pooled], [out]);
  m.subgraphs.push({ tensors, inputs: [image], outputs: [out], operators, name: 'main' });
  return m;
}

// Compiles the model with flatc into a temporary folder; returns its path and the cleanup.
function writeModel(model) {
  const dir = mkdtempSync(join(tmpdir(), 'arenaplan-stream-'));
  writeFileSync(join(dir, 'schema.fbs'), schema);
  writeFileSync(join(dir, 'vww_stage.json'), JSON.stringify(model));
  const r = spawnSync('flatc', ['-b', '-o', dir, join(dir, 'schema.fbs'), join(dir, 'vww_stage.json')], { encoding: 'utf8' });
  assert.equal(r.status, 0, `flatc: ${r.stderr}`);
  const path = join(dir, 'vww_stage.bin');
  assert.ok(readFileSync(path).length > 1000);
  return { path, done: () => rmSync(dir, { recursive: true, force: true }) };
}

export const tests = [
  ['--auto --budget 59000 --report --json on VWW first-stage shapes: foldpad then stream, QUANTIZE to the caller, no extra MACs', (cli) => {
    const { path, done } = writeModel(vwwFirstStage());
    try {
      // TinyEngine's published 59 kB as the budget: met without the MACs of patch halos.
      const r = cli('transform', path, '--auto', '--budget', '59000', '--report', '--json', '--max-evaluations', '3000',
        '--time-limit', '300');
      assert.equal(r.status, 0, r.stderr);
      const j = r.json;
      // Today's keys and the auto block (the contract).
      for (const key of ['before', 'after', 'outputs', 'steps', 'auto']) assert.ok(key in j, `missing ${key}`);
      for (const key of ['budget_bytes', 'lower_bound_bytes', 'applied', 'extra_macs', 'kinds'])
        assert.ok(key in j.auto, `missing auto.${key}`);
      // TFLM's plan peaks at the PAD before the stride-2 depthwise: 76,800 + 84,672 B.
      assert.equal(j.before.peak_bytes, 76800 + 84672);
      assert.ok(j.after.peak_bytes <= 59000, `after ${j.after.peak_bytes} B > 59,000 B`);
      assert.equal(j.outputs.check, 'bit-exact');
      assert.equal(j.after.verified, true);
      assert.equal(j.after.sim_ok, true);
      assert.equal(j.auto.budget_bytes, 59000);
      assert.equal(j.auto.extra_macs, 0);
      for (const kind of ['stream', 'callerquant']) assert.ok(j.auto.kinds.includes(kind), kind);
      const specs = j.auto.applied.map((a) => a.spec);
      const fold = specs.indexOf('foldpad:pad_6');
      const stream = specs.findIndex((s) => s.startsWith('stream:'));
      assert.ok(stream >= 0, `no stream in ${specs}`);
      assert.ok(fold >= 0 && fold < stream, `the pad before the depthwise is not folded before the stream: ${specs}`);
      const caller = j.auto.applied.find((a) => a.spec.startsWith('callerquant:'));
      assert.ok(caller, `no callerquant in ${specs}`);
      assert.match(caller.interface_change, /must feed image_int8 \(int8 \[1,80,80,3\]\) quantized with scale 0\.0078125, zero point 0/);
      assert.ok(caller.saving_bytes > 0);
      assert.match(j.outputs.note, /image_int8 fed the original graph's values/);
      const step = j.steps.find((s) => s.spec.startsWith('callerquant:'));
      assert.equal(step.interface_change, caller.interface_change);
      assert.ok(j.auto.lower_bound_bytes <= j.after.peak_bytes);
    } finally {
      done();
    }
  }],
];
