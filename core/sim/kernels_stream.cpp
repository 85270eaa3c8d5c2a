// The channel-streamed pointwise -> depthwise kernel (the `stream:` rewrite, transform_stream.cpp):
// an inverted-residual block's 1x1 expansion conv and the depthwise conv after it, run channel by
// channel so the expanded tensor never exists. For each channel ch: the pointwise conv's output
// plane ch (requantized to int8 exactly as the conv would write it), into a one-plane scratch;
// then the depthwise conv's output channel ch from that plane alone (depth multiplier 1). No
// extra MACs: every pointwise output element is computed once and read by the depthwise window as
// it was from the stored tensor.
//
// The op (kind "pointwise_depthwise_stream"): inputs x, pointwise weights, [pointwise bias],
// depthwise weights, [depthwise bias]; attrs: the pointwise conv's attrs as they were, the
// depthwise's prefixed "1." (as a fused op's part 1), "pw_inputs" (2 or 3: where the depthwise's
// inputs start), "mid_h"/"mid_w" (the vanished tensor's spatial size; its channels are the
// pointwise's outputs), "mid_scale" (a float's bits) and "mid_zero_point" (its quantization).
//
// The arithmetic is the conv kernels' own (conv_window.h: conv_sum, depthwise_sum, Int8Math,
// FloatMath), so the result is bit-exact against the two ops run one after the other.
#include <map>
#include <string>

#include "core/sim/detail/conv_window.h"

namespace arenaplan::sim {

using namespace conv;

namespace {

// The op's attrs of one part: part 0 (the pointwise) unprefixed, part 1 (the depthwise) under "1.".
std::map<std::string, int64_t> part_attrs(const Op& op, int part) {
  std::map<std::string, int64_t> out;
  for (const auto& [key, value] : op.attrs) {
    const bool prefixed = key.rfind("1.", 0) == 0;
    if (part == 1 && prefixed) out[key.substr(2)] = value;
    if (part == 0 && !prefixed) out[key] = value;
  }
  return out;
}

// Pointwise plane ch of batch b into `plane` (mid_h x mid_w), then the depthwise's channel ch of
// y from it. `plane_geom` is the depthwise geometry over one channel (c = 1, oc = all channels so
// the weight index stays the depthwise's).
template <class M>
void stream_loop(const M& pm, const ConvGeom& pg, const M& dm, const ConvGeom& dg, const typename M::T* x,
                 const typename M::W* w1, const typename M::Bias* b1, const typename M::W* w2,
                 const typename M::Bias* b2, typename M::T* y, typename M::T* plane) {
  ConvGeom plane_geom = dg;
  plane_geom.n = 1, plane_geom.c = 1;
  for (int64_t b = 0; b < pg.n; ++b)
    for (int64_t ch = 0; ch < pg.oc; ++ch) {
      const typename M::T* filter = w1 + ch * pg.c;  // [OC, 1, 1, IC]: output channel ch's filter
      for (int64_t oy = 0; oy < pg.oh; ++oy)
        for (int64_t ox = 0; ox < pg.ow; ++ox)
          plane[oy * pg.ow + ox] = pm.finish(conv_sum(pm, pg, pg.c, x, filter, b, oy, ox, 0), b1, ch);
      for (int64_t oy = 0; oy < dg.oh; ++oy)
        for (int64_t ox = 0; ox < dg.ow; ++ox)
          y[((b * dg.oh + oy) * dg.ow + ox) * dg.oc + ch] =
              dm.finish(depthwise_sum(dm, plane_geom, plane, w2, 0, oy, ox, 0, ch), b2, ch);
    }
}

}  // namespace

ModelKernel prepare_pointwise_depthwise_stream(const KernelContext& c) {
  const int64_t pw_inputs = c.attr("pw_inputs", 0);
  c.require(pw_inputs == 2 || pw_inputs == 3, "attr pw_inputs must be 2 or 3 (pointwise x, weights, [bias])");
  c.require(static_cast<int64_t>(c.inputs()) == pw_inputs + 1 || static_cast<int64_t>(c.inputs()) == pw_inputs + 2,
            "the depthwise part needs its weights and an optional bias after the pointwise inputs");
  const Tensor &xt = c.in(0), &w1 = c.in(1), &w2 = c.in(static_cast<size_t>(pw_inputs)), &yt = c.out(0);
  // Each part reads its own attrs (stride, padding, fused activation) through the conv kernels'
  // code, as the op it was.
  Op pw_op = c.op, dw_op = c.op;
  pw_op.attrs = part_attrs(c.op, 0);
  dw_op.attrs = part_attrs(c.op, 1);
  const KernelContext pc{c.g, pw_op}, dc{c.g, dw_op};

  const auto xd = c.dims(xt), w1d = c.dims(w1), w2d = c.dims(w2), yd = c.dims(yt);
  c.require(w1d.size() == 4 && w1d[1] == 1 && w1d[2] == 1 && xd.size() == 4 && w1d[3] == xd[3],
            "pointwise weights must be [C,1,1,IC] over the input's channels");
  const int64_t channels = w1d[0];
  c.require(w2d.size() == 4 && w2d[0] == 1 && w2d[3] == channels && yd.size() == 4 && yd[3] == channels,
            "depthwise weights must be [1,KH,KW,C] with multiplier 1");
  require_constant_weights(c, w1);
  require_constant_weights(c, w2);
  c.require(xt.dtype == yt.dtype && w1.dtype == xt.dtype && w2.dtype == xt.dtype,
            "input, weights and output must share one type (int8 or float32)");

  Tensor mid;  // the tensor that is never stored: its shape and quantization
  mid.name = c.op.name + ":plane";
  mid.dtype = xt.dtype;
  for (int64_t d : {xd[0], c.attr("mid_h", 0), c.attr("mid_w", 0), channels}) mid.shape.push_back(ShapeDim{d, ""});
  const ConvGeom pg = conv_geometry(pc, xd, 1, 1, c.dims(mid));
  c.require(!pg.pad_h && !pg.pad_w && !pg.pad_b && !pg.pad_r, "the pointwise part must be unpadded");
  const ConvGeom dg = conv_geometry(dc, c.dims(mid), w2d[1], w2d[2], yd);

  ModelKernel k;
  k.work.macs = pg.n * pg.oh * pg.ow * pg.oc * pg.c + dg.n * dg.oh * dg.ow * dg.oc * dg.kh * dg.kw;
  const int width = dtype_width(*xt.dtype);
  k.work.temp_bytes = pg.n * pg.oh * pg.ow * pg.oc * width;  // every plane element: stored, read back
  k.work.reread_bytes = (pg.oc - 1) * c.count(xt) * width;    // the input, once more per further channel
  const Bytes plane = pg.oh * pg.ow * width;
  c.require(c.op.scratch_bytes >= plane, "the op's scratch must hold one " + std::to_string(plane) + "-byte plane");
  const bool has_b1 = pw_inputs == 3, has_b2 = static_cast<int64_t>(c.inputs()) == pw_inputs + 2;
  const size_t b2_index = static_cast<size_t>(pw_inputs + 1);

  auto bind = [&](auto pm, auto dm) {
    using M = decltype(pm);
    using T = typename M::T;
    using Bias = typename M::Bias;
    k.run_with_scratch = [=](const Operand* in, const Operand* out, const Operand& scratch) {
      stream_loop(pm, pg, dm, dg, as<T>(in[0]), as<T>(in[1]), has_b1 ? as<Bias>(in[2]) : nullptr,
                  as<T>(in[pw_inputs]), has_b2 ? as<Bias>(in[b2_index]) : nullptr, as_mut<T>(out[0]),
                  as_mut<T>(scratch));
    };
  };
  if (xt.dtype == DType::kInt8) {
    mid.quant = Quantization{{c.attr_float("mid_scale", 0.f)}, {c.attr("mid_zero_point", 0)}, 0};
    c.require(mid.quant->scale[0] > 0, "attr mid_scale must be the vanished tensor's positive scale");
    if (has_b1) bias_of(pc, 2, DType::kInt32, channels);
    if (has_b2) bias_of(dc, b2_index, DType::kInt32, channels);
    k.name = "pointwise_depthwise_stream int8";
    bind(int8_math(pc, xt, w1, mid, channels), int8_math(dc, mid, w2, yt, channels));
    return k;
  }
  c.require(xt.dtype == DType::kFloat32, "the streamed kernel runs int8 or float32");
  if (has_b1) bias_of(pc, 2, DType::kFloat32, channels);
  if (has_b2) bias_of(dc, b2_index, DType::kFloat32, channels);
  k.name = "pointwise_depthwise_stream float32";
  bind(float_math(pc), float_math(dc));
  return k;
}

}  // namespace arenaplan::sim
