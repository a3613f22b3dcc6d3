// Texel filtering (image_sample.h): address modes, borders, depth
// compare, nearest and linear footprints, cube faces, level of detail and
// mip selection.
#include "simt/image_sample.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace warpsim::simt {

uint32_t SpatialDims(ViewDim d) {
  switch (d) {
    case ViewDim::k1D:
    case ViewDim::kBuffer:
      return 1;
    case ViewDim::k3D:
      return 3;
    default:
      return 2;
  }
}

Texel ZeroTexel() {
  Texel t;
  t.f[3] = 0.0f;
  t.i[3] = 0;
  return t;
}

// Reads a texel, or 0 when it is outside the image (robust access).
Texel FetchTexel(const ImageDesc& img, uint32_t level, int64_t x, int64_t y,
                 int64_t z, int64_t layer, int64_t sample) {
  if (!img.bound) return ZeroTexel();
  const uint64_t off = img.TexelOffset(level, x, y, z, layer, sample);
  if (off == ~uint64_t{0}) return ZeroTexel();
  return DecodeTexel(img.format, img.data + off);
}

namespace {

int64_t Mirror(int64_t a) { return a >= 0 ? a : -(1 + a); }

// Wraps texel coordinate i into [0, size); -1 selects the border.
int64_t Wrap(int64_t i, int64_t size, AddressMode mode) {
  switch (mode) {
    case AddressMode::kRepeat:
      return ((i % size) + size) % size;
    case AddressMode::kMirroredRepeat: {
      const int64_t t = ((i % (2 * size)) + 2 * size) % (2 * size) - size;
      return (size - 1) - Mirror(t);
    }
    case AddressMode::kClampToEdge:
      return std::clamp<int64_t>(i, 0, size - 1);
    case AddressMode::kClampToBorder:
      return i < 0 || i >= size ? -1 : i;
    case AddressMode::kMirrorClampToEdge:
      return std::clamp<int64_t>(Mirror(i), 0, size - 1);
  }
  return i;
}

Texel BorderTexel(BorderColor b) {
  Texel t;
  switch (b) {
    case BorderColor::kFloatTransparentBlack:
    case BorderColor::kIntTransparentBlack:
      return ZeroTexel();
    case BorderColor::kFloatOpaqueBlack:
    case BorderColor::kIntOpaqueBlack:
      return t;  // (0, 0, 0, 1)
    case BorderColor::kFloatOpaqueWhite:
    case BorderColor::kIntOpaqueWhite:
      for (int k = 0; k < 4; ++k) {
        t.f[k] = 1.0f;
        t.i[k] = 1;
      }
      return t;
  }
  return t;
}

bool Compare(CompareOp op, float ref, float texel) {
  switch (op) {
    case CompareOp::kNever:
      return false;
    case CompareOp::kLess:
      return ref < texel;
    case CompareOp::kEqual:
      return ref == texel;
    case CompareOp::kLessOrEqual:
      return ref <= texel;
    case CompareOp::kGreater:
      return ref > texel;
    case CompareOp::kNotEqual:
      return ref != texel;
    case CompareOp::kGreaterOrEqual:
      return ref >= texel;
    case CompareOp::kAlways:
      return true;
  }
  return false;
}

// A texel coordinate that stays finite for any float input.
double SafeCoord(double u) {
  if (std::isnan(u)) return 0.0;
  return std::clamp(u, -1e12, 1e12);
}

// Linear filtering footprint along one axis: i0 = floor(u - 0.5) and the
// weight of i0 + 1, snapped to 1/2^kSubTexelPrecisionBits.
void LinearAxis(double u, int64_t* i0, float* alpha) {
  const double scale = static_cast<double>(1u << kSubTexelPrecisionBits);
  const double fixed = std::floor(SafeCoord(u - 0.5) * scale + 0.5);
  const double fl = std::floor(fixed / scale);
  *i0 = static_cast<int64_t>(fl);
  *alpha = static_cast<float>((fixed - fl * scale) / scale);
}

struct SampleParams {
  const ImageDesc* img;
  const SamplerDesc* s;
  uint32_t nspatial;
  double st[3];  // normalized (or unnormalized) coordinates
  int64_t layer;
  int32_t offset[3];
  bool dref;
  float dref_value;
  // When set: the byte offset of the first texel the footprint reads (left
  // at ~0 when every texel read is border), for InstrRecord::addresses.
  uint64_t* first_offset = nullptr;
  // When set: made true where a linear filter blends texels
  // (InstrRecord::filtered).
  bool* filtered = nullptr;
};

// One texel of the footprint with address modes, border and depth compare.
Texel FootprintTexel(const SampleParams& p, uint32_t level, int64_t x,
                     int64_t y, int64_t z) {
  const ImageDesc& img = *p.img;
  const int64_t size[3] = {img.LevelWidth(level), img.LevelHeight(level),
                           img.LevelDepth(level)};
  int64_t c[3] = {x, y, z};
  bool border = false;
  for (uint32_t a = 0; a < p.nspatial; ++a) {
    c[a] = Wrap(c[a], size[a], p.s->address[a]);
    if (c[a] < 0) border = true;
  }
  if (!border && p.first_offset != nullptr && *p.first_offset == ~uint64_t{0}) {
    *p.first_offset = img.TexelOffset(level, c[0], c[1], c[2], p.layer, 0);
  }
  Texel t = border ? BorderTexel(p.s->border)
                   : FetchTexel(img, level, c[0], c[1], c[2], p.layer, 0);
  if (p.dref) {
    float ref = p.dref_value;
    if (img.format.unorm_depth) ref = std::clamp(ref, 0.0f, 1.0f);
    const float pass = Compare(p.s->compare_op, ref, t.f[0]) ? 1.0f : 0.0f;
    t = Texel{};
    t.f[0] = pass;
  }
  return t;
}

Texel Lerp(const Texel& a, const Texel& b, float w) {
  Texel t;
  for (int k = 0; k < 4; ++k) {
    t.f[k] = a.f[k] + (b.f[k] - a.f[k]) * w;
    t.i[k] = a.i[k];
  }
  return t;
}

// Texel coordinates of level `level` along each axis.
void ScaledCoords(const SampleParams& p, uint32_t level, double u[3]) {
  const double size[3] = {static_cast<double>(p.img->LevelWidth(level)),
                          static_cast<double>(p.img->LevelHeight(level)),
                          static_cast<double>(p.img->LevelDepth(level))};
  for (uint32_t a = 0; a < 3; ++a) {
    u[a] = a < p.nspatial
               ? (p.s->unnormalized ? p.st[a] : p.st[a] * size[a]) + p.offset[a]
               : 0.0;
  }
}

Texel SampleLevel(const SampleParams& p, uint32_t level, Filter filter) {
  double u[3];
  ScaledCoords(p, level, u);
  // Integer formats cannot be filtered: they always sample nearest.
  if (filter == Filter::kNearest || p.img->format.IsInteger()) {
    int64_t i[3] = {0, 0, 0};
    for (uint32_t a = 0; a < p.nspatial; ++a) {
      i[a] = static_cast<int64_t>(std::floor(SafeCoord(u[a])));
    }
    return FootprintTexel(p, level, i[0], i[1], i[2]);
  }
  if (p.filtered != nullptr) *p.filtered = true;
  int64_t i0[3] = {0, 0, 0};
  float w[3] = {0, 0, 0};
  for (uint32_t a = 0; a < p.nspatial; ++a) LinearAxis(u[a], &i0[a], &w[a]);
  // Blend x first, then y, then z (the separable form of the weight sum).
  auto row = [&](int64_t y, int64_t z) {
    const Texel a = FootprintTexel(p, level, i0[0], y, z);
    const Texel b = FootprintTexel(p, level, i0[0] + 1, y, z);
    return Lerp(a, b, w[0]);
  };
  auto plane = [&](int64_t z) {
    if (p.nspatial < 2) return row(0, z);
    return Lerp(row(i0[1], z), row(i0[1] + 1, z), w[1]);
  };
  if (p.nspatial < 3) return plane(0);
  return Lerp(plane(i0[2]), plane(i0[2] + 1), w[2]);
}

// Face selection for cube maps (Vulkan "Cube Map Face Selection"): returns
// the face and writes the face coordinates (s, t) in [0, 1].
uint32_t CubeFace(const double r[3], double* s, double* t) {
  const double ax = std::fabs(r[0]), ay = std::fabs(r[1]), az = std::fabs(r[2]);
  uint32_t face;
  double sc, tc, ma;
  if (az >= ax && az >= ay) {
    face = r[2] >= 0 ? 4 : 5;
    sc = r[2] >= 0 ? r[0] : -r[0];
    tc = -r[1];
    ma = az;
  } else if (ay >= ax) {
    face = r[1] >= 0 ? 2 : 3;
    sc = r[0];
    tc = r[1] >= 0 ? r[2] : -r[2];
    ma = ay;
  } else {
    face = r[0] >= 0 ? 0 : 1;
    sc = r[0] >= 0 ? -r[2] : r[2];
    tc = -r[1];
    ma = ax;
  }
  if (ma == 0.0) ma = 1.0;
  *s = 0.5 * (sc / ma + 1.0);
  *t = 0.5 * (tc / ma + 1.0);
  return face;
}

// Maps a coordinate vector to the sampling coordinates of the view: cube
// face projection for cubes, identity otherwise. Returns the cube face (0
// when not a cube).
uint32_t ProjectCoords(ViewDim dim, const double in[3], double out[3]) {
  if (dim == ViewDim::kCube) {
    out[2] = 0.0;
    return CubeFace(in, &out[0], &out[1]);
  }
  for (int a = 0; a < 3; ++a) out[a] = in[a];
  return 0;
}

float SnapMip(float x) {
  const float scale = static_cast<float>(1u << kMipmapPrecisionBits);
  return std::floor(x * scale + 0.5f) / scale;
}

}  // namespace

float ComputeLambda(const ImageDesc& img, const SamplerDesc& s,
                    const SampleRequest& q, uint32_t nspatial) {
  float lambda_base = 0.0f;
  if (q.has_lod) {
    lambda_base = q.lod;
  } else if (q.has_grad && !s.unnormalized) {
    double p0[3], px[3], py[3], a[3], b[3];
    for (int k = 0; k < 3; ++k) {
      a[k] = q.coord[k] + q.dx[k];
      b[k] = q.coord[k] + q.dy[k];
    }
    ProjectCoords(img.dim, q.coord, p0);
    if (img.dim == ViewDim::kCube) {
      // Derivatives of the face coordinates (each point projected on its
      // own major face; an approximation near cube edges).
      double sx, tx, sy, ty;
      CubeFace(a, &sx, &tx);
      CubeFace(b, &sy, &ty);
      px[0] = sx;
      px[1] = tx;
      py[0] = sy;
      py[1] = ty;
      px[2] = py[2] = 0;
    } else {
      ProjectCoords(img.dim, a, px);
      ProjectCoords(img.dim, b, py);
    }
    const double size[3] = {static_cast<double>(img.LevelWidth(0)),
                            static_cast<double>(img.LevelHeight(0)),
                            static_cast<double>(img.LevelDepth(0))};
    double rx = 0, ry = 0;
    for (uint32_t k = 0; k < nspatial; ++k) {
      const double mx = (px[k] - p0[k]) * size[k];
      const double my = (py[k] - p0[k]) * size[k];
      rx += mx * mx;
      ry += my * my;
    }
    const double rho = std::sqrt(std::max(rx, ry));
    lambda_base = rho > 0 ? static_cast<float>(std::log2(rho))
                          : -std::numeric_limits<float>::infinity();
  }
  return lambda_base + s.mip_lod_bias + q.bias;
}

Texel Sample(const ImageDesc& img, const SamplerDesc& s, const SampleRequest& q,
             bool gather, uint32_t component, const int32_t* gather_offsets,
             uint64_t* first_offset, bool* filtered) {
  if (!img.bound) return ZeroTexel();
  const uint32_t nspatial = SpatialDims(img.dim);
  SampleParams p;
  p.first_offset = first_offset;
  p.filtered = filtered;
  p.img = &img;
  p.s = &s;
  p.nspatial = nspatial;
  const uint32_t face = ProjectCoords(img.dim, q.coord, p.st);
  const double max_layer =
      img.dim == ViewDim::kCube ? img.layers / 6.0 - 1.0 : img.layers - 1.0;
  const int64_t layer = static_cast<int64_t>(std::clamp(
      std::nearbyint(SafeCoord(q.layer)), 0.0, std::max(max_layer, 0.0)));
  p.layer = img.dim == ViewDim::kCube ? layer * 6 + face : layer;
  for (int a = 0; a < 3; ++a) p.offset[a] = q.offset[a];
  p.dref = q.dref;
  p.dref_value = q.dref_value;
  SamplerDesc cube_s = s;
  if (img.dim == ViewDim::kCube) {
    cube_s.address[0] = cube_s.address[1] = AddressMode::kClampToEdge;
    p.s = &cube_s;
  }

  if (gather) {
    // The 2x2 footprint of linear filtering on the base level, in the order
    // (i0, j1), (i1, j1), (i1, j0), (i0, j0).
    static const int kCorner[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    Texel out;
    for (int k = 0; k < 4; ++k) {
      SampleParams pk = p;
      if (gather_offsets != nullptr) {
        pk.offset[0] = gather_offsets[2 * k];
        pk.offset[1] = gather_offsets[2 * k + 1];
      }
      double u[3];
      ScaledCoords(pk, 0, u);
      int64_t i0[2];
      float unused;
      LinearAxis(u[0], &i0[0], &unused);
      LinearAxis(u[1], &i0[1], &unused);
      const Texel t = FootprintTexel(pk, 0, i0[0] + kCorner[k][0],
                                     i0[1] + kCorner[k][1], 0);
      const uint32_t c = q.dref ? 0 : std::min(component, 3u);
      out.f[k] = t.f[c];
      out.i[k] = t.i[c];
    }
    return out;
  }

  // Level of detail (Vulkan "LOD Operation").
  const float lambda_raw = ComputeLambda(img, s, q, nspatial);
  const float lod_min = std::max(s.min_lod, q.min_lod);
  const float lod_max = std::max(s.max_lod, lod_min);
  float lambda = std::clamp(lambda_raw, lod_min, lod_max);
  if (std::isnan(lambda)) lambda = lod_min;
  const Filter filter = lambda <= 0.0f ? s.mag_filter : s.min_filter;
  const uint32_t q_level = img.mip_levels - 1;
  if (s.unnormalized || q_level == 0) return SampleLevel(p, 0, filter);
  const float d = std::clamp(lambda, 0.0f, static_cast<float>(q_level));
  if (s.mipmap_mode == Filter::kNearest) {
    const float level =
        std::min(std::ceil(d + 0.5f) - 1.0f, static_cast<float>(q_level));
    return SampleLevel(p, static_cast<uint32_t>(std::max(level, 0.0f)), filter);
  }
  const uint32_t hi = static_cast<uint32_t>(std::floor(d));
  const uint32_t lo = std::min(hi + 1, q_level);
  const float delta = SnapMip(d - static_cast<float>(hi));
  const Texel a = SampleLevel(p, hi, filter);
  if (delta == 0.0f || lo == hi) return a;
  return Lerp(a, SampleLevel(p, lo, filter), delta);
}

}  // namespace warpsim::simt
