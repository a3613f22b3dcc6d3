// E3: instruction timing (REFERENCE §1.4, §2.2, §2.3, §6 row E3).
//
// WHAT: for eleven op classes (FFMA, FADD, IMAD, IADD3, LOP3, MUFU.RCP,
// MUFU.EX2, MUFU.SIN, DFMA, and the conversions FRND and F2I + I2F) the
// dependent-issue latency, the issue interval of
// one warp, and the per-SM warp-instruction throughput as the number of warps
// per SM grows.
//
// HOW: every measured op is one inline-PTX `asm volatile` statement acting on
// one of ILP independent chains (ILP = 1, 2, 4, 8); the PTX order interleaves
// the chains step by step. The body is 256 steps of every chain, unrolled into
// straight-line code (256 x ILP ops); a runtime-count loop runs the body
// reps + 1 times. Iteration 0 is an untimed warm-up (instruction cache, clock
// ramp); at the start of iteration 1 every warp of the block passes
// __syncthreads() and reads %globaltimer then clock64; after the last
// iteration it reads clock64 then %globaltimer. Nothing is subtracted: the
// loop adds 3 SASS instructions (IADD, ISETP, BRA) per 256 x ILP measured
// ops (<= 1.2 %, and at ILP 1 they hide under the dependent chain). The chain
// results are stored (per thread, after the clock read), so nothing is dead.
//   cycles_per_op = cycles / (steps x ILP), steps = 256 x reps per chain.
//   ILP 1: the latency (one dependent op after the other).
//   ILP 8: the issue interval of one warp on its sub-partition (SMSP).
// Throughput: grid = one block per SM (W <= 32 warps: one block of W warps,
// 120 KB dynamic shared memory so that no second block fits), or two blocks
// per SM (W = 48, 64: blocks of W/2 warps with 100 KB each, so exactly two fit:
// 2 x (100 + 1 reserved) KB <= 228 KB < 3 x 101 KB). The shared memory is only
// reserved, never touched. Every warp records %smid, %warpid, its block, and
// its clock64/%globaltimer start and end; on the host, per SM:
//   rate = (warps on the SM x ILP x steps) / (max end - min start)  [clock64
//   of that SM; the counter is per SM, so only same-SM values are compared].
// Placement is verified from the records: every SM must hold exactly the
// expected number of blocks and W warps (placement_check).
//
// Expected SASS (check with `cuobjdump -sass e3_instructions`; the kernels are
// E3Chain<Op, ILP>, e.g. `..E3Chain<(anonymous namespace)::OpFFMA, 4>..`; each
// loop body should hold 256 x ILP of the op's SASS instruction, or 512 x ILP
// for SIN):
//   FFMA  fma.rn.f32 x, x, a, b             -> FFMA
//   FADD  add.f32 x, x, (+1 / -1 alternating) -> FADD
//   IMAD  mad.lo.s32 x, x, a_k, b_k          -> IMAD (a_k, b_k rotate over 4
//         registers so ptxas cannot fold two steps into one)
//   IADD3 add.s32 on a two-register Fibonacci chain (a += b; b += a; ...):
//         every result has two uses, so ptxas cannot fuse two adds into one
//         3-input IADD3 -> IADD3 and IMAD.IADD: ptxas 13.0 emits about half
//         of the adds as IMAD.IADD (FMA pipe) and half as IADD3 (ALU pipe),
//         so this row times the mix, not IADD3 alone (see the dump)
//   LOP3  lop3.b32 x, x, a_k, b_k, 0x6A ((x & a) ^ b), operands rotating over
//         4 registers so two steps never fit one LOP3 -> LOP3.LUT
//   RCP   neg.f32 t, x; rcp.approx.ftz.f32 x, t (x alternates v, -1/v)
//         -> MUFU.RCP with a negated source (a plain x -> 1/x chain is
//         folded away by ptxas: rcp(rcp(x)) = x)
//   EX2   neg.f32 t, x; ex2.approx.ftz.f32 x, t (x -> 2^-x converges to
//         0.6412) -> MUFU.EX2 with a negated source (if ptxas keeps a separate
//         FADD/FMUL for the negation, a step is 2 SASS ops: see the dump)
//   SIN   sin.approx.ftz.f32 x, x (x -> sin x decays slowly, stays normal)
//         -> FMUL.RZ (range reduction, x * 1/(2 pi)) + MUFU.SIN: one step is 2
//         dependent SASS ops, so its "latency" is FMUL + MUFU.SIN.
//   DFMA  fma.rn.f64 x, x, a, b             -> DFMA
//   FRND  neg.f32 t, x; cvt.rmi.f32.f32 x, t -> FRND.FLOOR (added after the
//         2026-11-30 run; not yet checked against a dump when written)
//   F2I+I2F cvt.rni.s32.f32 t, x; cvt.rn.f32.u32 x, t -> F2I + I2F.U32: 2
//         dependent SASS ops a step, like SIN
// Checked locally (no cuobjdump here) with an opcode-field histogram of the
// sm_90 cubin: every kernel holds exactly 256 x ILP x sass_per_step of its
// op (ptxas 13.0 unrolls the ILP-1 RCP and EX2 loops 5x: 1280 MUFU, harmless,
// the trip count stays at run time); IADD3 is ~half IMAD.IADD as noted.
// Values stay finite and normal: FFMA/DFMA x -> 0.9999 x + 0.0001 (fixed
// point 1), FADD +1/-1, RCP alternates, EX2 converges, SIN decays (after 10^6
// steps still ~1e-3). The host checks every float/double result is finite.
//
// JSON (results):
//   "body_steps": 256 (steps per chain in one unrolled loop body)
//   "latency": one row per op and ILP, one warp (one block of 32 threads):
//     {"op", "ptx", "sass" (expected opcode), "sass_per_step", "ilp",
//      "steps" (timed steps per chain = 256 x reps), "ops" (steps x ilp,
//      PTX-level ops), "cycles": [clock64 delta per repeat], "ns":
//      [%globaltimer delta per repeat], "cycles_median", "cycles_per_op"
//      (cycles_median / ops), "smid": [per repeat]}
//   "throughput": one row per op, ILP (1, 4) and W:
//     {"op", "sass", "ilp", "warps_per_sm", "blocks_per_sm",
//      "warps_per_block", "dynamic_smem_bytes", "occupancy_api_blocks_per_sm"
//      (cudaOccupancyMaxActiveBlocksPerMultiprocessor), "steps",
//      "warp_instructions_per_sm" (W x ilp x steps, PTX-level ops),
//      "warp_instructions_per_cycle_per_sm_mean", "min", "max" (mean, min
//      and max over SMs, of the median repeat: the repeat whose mean is the
//      median),
//      "repeats": [{"mean", "min", "max", "ns_window" (max end - min start of
//      %globaltimer over all warps)}], "per_sm_cycles" ([max end - min start]
//      per SM of the median repeat, index = smid), "placement_ok"}
//   "placement_check": {"configs", "ok", "failures": [...]} over all repeats.
//
// Run time (H200, ~1.98 GHz): latency 36 kernels x 6 launches, each < 0.3 ms;
// throughput 18 op/ILP pairs x 12 W x 6 launches, the longest (MUFU, ILP 4,
// W 64) ~2 ms; total ~2 s of GPU, ~4 s with context start, warm-up and clock
// readings. --quick: fewer steps, W in {1, 4, 8, 32, 64}, 3 repeats: ~2 s.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "common.h"

using cuda_ref::ArrayOf;
using cuda_ref::Json;
using cuda_ref::Median;

namespace {

constexpr int kBodySteps = 256;
constexpr uint32_t kMagic = 0xE3C0FFEEu;
constexpr int kPadOneBlock = 120 * 1024;   // > 114 KB: one block per SM
constexpr int kPadTwoBlocks = 100 * 1024;  // two fit, three don't

struct Consts {
  float f[4];   // FFMA a, b; FADD +1, -1
  int i[8];     // IMAD / LOP3 / IADD operands
  double d[2];  // DFMA a, b
};

struct WarpRec {
  unsigned long long t0, t1, g0, g1;
  unsigned smid, warpid, block, magic;
};

// ---- the ops -------------------------------------------------------------
// Step(x, c, s): one dependent step of one chain; s is the (compile-time,
// after unrolling) step index, used to rotate operands.

struct OpFFMA {
  using State = float;
  static constexpr const char* kName = "FFMA";
  static constexpr const char* kPtx = "fma.rn.f32";
  static constexpr const char* kSass = "FFMA";
  static constexpr int kSassPerStep = 1;
  static constexpr bool kFloat = true;
  __device__ static State Init(int lane, int chain, const Consts&) {
    return 1.0f + 0.001f * lane + 0.01f * chain;
  }
  __device__ static void Step(State& x, const Consts& c, int) {
    asm volatile("fma.rn.f32 %0, %0, %1, %2;"
                 : "+f"(x)
                 : "f"(c.f[0]), "f"(c.f[1]));
  }
  __device__ static State Combine(State a, State b) { return a + b; }
  __device__ static unsigned long long Bits(State x) {
    return __float_as_uint(x);
  }
};

struct OpFADD {
  using State = float;
  static constexpr const char* kName = "FADD";
  static constexpr const char* kPtx = "add.f32";
  static constexpr const char* kSass = "FADD";
  static constexpr int kSassPerStep = 1;
  static constexpr bool kFloat = true;
  __device__ static State Init(int lane, int chain, const Consts&) {
    return 1.5f + 0.25f * lane + chain;
  }
  __device__ static void Step(State& x, const Consts& c, int s) {
    asm volatile("add.f32 %0, %0, %1;" : "+f"(x) : "f"(c.f[2 + (s & 1)]));
  }
  __device__ static State Combine(State a, State b) { return a + b; }
  __device__ static unsigned long long Bits(State x) {
    return __float_as_uint(x);
  }
};

struct OpIMAD {
  using State = int;
  static constexpr const char* kName = "IMAD";
  static constexpr const char* kPtx = "mad.lo.s32";
  static constexpr const char* kSass = "IMAD";
  static constexpr int kSassPerStep = 1;
  static constexpr bool kFloat = false;
  __device__ static State Init(int lane, int chain, const Consts&) {
    return lane * 7 + chain * 131 + 1;
  }
  __device__ static void Step(State& x, const Consts& c, int s) {
    asm volatile("mad.lo.s32 %0, %0, %1, %2;"
                 : "+r"(x)
                 : "r"(c.i[s & 3]), "r"(c.i[4 + ((s + 1) & 3)]));
  }
  __device__ static State Combine(State a, State b) { return a ^ b; }
  __device__ static unsigned long long Bits(State x) {
    return static_cast<unsigned>(x);
  }
};

struct IaddState {
  int a, b;
};
struct OpIADD3 {
  using State = IaddState;
  static constexpr const char* kName = "IADD3";
  static constexpr const char* kPtx = "add.s32";
  static constexpr const char* kSass =
      "IADD3 + IMAD.IADD (mixed ~1:1 by ptxas)";
  static constexpr int kSassPerStep = 1;
  static constexpr bool kFloat = false;
  __device__ static State Init(int lane, int chain, const Consts& c) {
    return {lane + chain * 17 + c.i[0], lane * 3 + 1};
  }
  // Fibonacci chain: step s writes a (s even) or b (s odd) from both; every
  // value is read by the next two steps, so no two adds fuse into one IADD3.
  __device__ static void Step(State& x, const Consts&, int s) {
    if (s & 1) {
      asm volatile("add.s32 %0, %0, %1;" : "+r"(x.b) : "r"(x.a));
    } else {
      asm volatile("add.s32 %0, %0, %1;" : "+r"(x.a) : "r"(x.b));
    }
  }
  __device__ static State Combine(State p, State q) {
    return {p.a ^ q.a, p.b ^ q.b};
  }
  __device__ static unsigned long long Bits(State x) {
    return static_cast<unsigned>(x.a ^ x.b);
  }
};

struct OpLOP3 {
  using State = int;
  static constexpr const char* kName = "LOP3";
  static constexpr const char* kPtx = "lop3.b32 (LUT 0x6A: (x & a) ^ b)";
  static constexpr const char* kSass = "LOP3.LUT";
  static constexpr int kSassPerStep = 1;
  static constexpr bool kFloat = false;
  __device__ static State Init(int lane, int chain, const Consts&) {
    return 0x12345678 ^ (lane << 8) ^ chain;
  }
  __device__ static void Step(State& x, const Consts& c, int s) {
    asm volatile("lop3.b32 %0, %0, %1, %2, 0x6A;"
                 : "+r"(x)
                 : "r"(c.i[s & 3]), "r"(c.i[4 + ((s + 1) & 3)]));
  }
  __device__ static State Combine(State a, State b) { return a ^ b; }
  __device__ static unsigned long long Bits(State x) {
    return static_cast<unsigned>(x);
  }
};

struct OpRCP {
  using State = float;
  static constexpr const char* kName = "MUFU.RCP";
  static constexpr const char* kPtx = "rcp.approx.ftz.f32 (of -x)";
  static constexpr const char* kSass = "MUFU.RCP";
  static constexpr int kSassPerStep = 1;
  static constexpr bool kFloat = true;
  __device__ static State Init(int lane, int chain, const Consts&) {
    return 1.5f + 0.01f * lane + 0.1f * chain;
  }
  // x -> 1/(-x): with a plain x -> 1/x ptxas folds every pair of steps
  // away (rcp(rcp(x)) = x); the negation folds into the MUFU source operand.
  __device__ static void Step(State& x, const Consts&, int) {
    asm volatile(
        "{\n\t.reg .f32 t;\n\t"
        "neg.f32 t, %0;\n\t"
        "rcp.approx.ftz.f32 %0, t;\n\t}"
        : "+f"(x));
  }
  __device__ static State Combine(State a, State b) { return a + b; }
  __device__ static unsigned long long Bits(State x) {
    return __float_as_uint(x);
  }
};

struct OpEX2 {
  using State = float;
  static constexpr const char* kName = "MUFU.EX2";
  static constexpr const char* kPtx = "ex2.approx.ftz.f32 (of -x)";
  static constexpr const char* kSass = "MUFU.EX2";
  static constexpr int kSassPerStep = 1;
  static constexpr bool kFloat = true;
  __device__ static State Init(int lane, int chain, const Consts&) {
    return 0.5f + 0.01f * lane + 0.05f * chain;
  }
  __device__ static void Step(State& x, const Consts&, int) {
    asm volatile(
        "{\n\t.reg .f32 t;\n\t"
        "neg.f32 t, %0;\n\t"
        "ex2.approx.ftz.f32 %0, t;\n\t}"
        : "+f"(x));
  }
  __device__ static State Combine(State a, State b) { return a + b; }
  __device__ static unsigned long long Bits(State x) {
    return __float_as_uint(x);
  }
};

struct OpSIN {
  using State = float;
  static constexpr const char* kName = "MUFU.SIN";
  static constexpr const char* kPtx = "sin.approx.ftz.f32";
  static constexpr const char* kSass = "FMUL.RZ + MUFU.SIN";
  static constexpr int kSassPerStep = 2;
  static constexpr bool kFloat = true;
  __device__ static State Init(int lane, int chain, const Consts&) {
    return 1.0f + 0.01f * lane + 0.05f * chain;
  }
  __device__ static void Step(State& x, const Consts&, int) {
    asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(x));
  }
  __device__ static State Combine(State a, State b) { return a + b; }
  __device__ static unsigned long long Bits(State x) {
    return __float_as_uint(x);
  }
};

// FRND: floor of -x (x alternates v, -floor(-v), ...; integral after the
// first step, magnitude fixed): the negation folds into the source operand
// -> FRND.FLOOR. NVIDIA has no fract instruction: GLSL fract(x) is x -
// floor(x), a FRND and an FADD.
struct OpFRND {
  using State = float;
  static constexpr const char* kName = "FRND";
  static constexpr const char* kPtx = "cvt.rmi.f32.f32 (of -x)";
  static constexpr const char* kSass = "FRND.FLOOR";
  static constexpr int kSassPerStep = 1;
  static constexpr bool kFloat = true;
  __device__ static State Init(int lane, int chain, const Consts&) {
    return 1.5f + 0.25f * lane + chain;
  }
  __device__ static void Step(State& x, const Consts&, int) {
    asm volatile(
        "{\n\t.reg .f32 t;\n\t"
        "neg.f32 t, %0;\n\t"
        "cvt.rmi.f32.f32 %0, t;\n\t}"
        : "+f"(x));
  }
  __device__ static State Combine(State a, State b) { return a + b; }
  __device__ static unsigned long long Bits(State x) {
    return __float_as_uint(x);
  }
};

// F2I + I2F: x -> (float)(unsigned)(int)rint(x), x >= 0 (integral after the
// first step). The unsigned reading of the int keeps ptxas from folding the
// round trip into one float rounding -> F2I + I2F.U32: one step is 2
// dependent SASS ops, so its "latency" is F2I + I2F.
struct OpF2I {
  using State = float;
  static constexpr const char* kName = "F2I+I2F";
  static constexpr const char* kPtx = "cvt.rni.s32.f32; cvt.rn.f32.u32";
  static constexpr const char* kSass = "F2I + I2F.U32";
  static constexpr int kSassPerStep = 2;
  static constexpr bool kFloat = true;
  __device__ static State Init(int lane, int chain, const Consts&) {
    return 3.0f + lane + 40.0f * chain;
  }
  __device__ static void Step(State& x, const Consts&, int) {
    asm volatile(
        "{\n\t.reg .s32 t;\n\t"
        "cvt.rni.s32.f32 t, %0;\n\t"
        "cvt.rn.f32.u32 %0, t;\n\t}"
        : "+f"(x));
  }
  __device__ static State Combine(State a, State b) { return a + b; }
  __device__ static unsigned long long Bits(State x) {
    return __float_as_uint(x);
  }
};

struct OpDFMA {
  using State = double;
  static constexpr const char* kName = "DFMA";
  static constexpr const char* kPtx = "fma.rn.f64";
  static constexpr const char* kSass = "DFMA";
  static constexpr int kSassPerStep = 1;
  static constexpr bool kFloat = true;
  __device__ static State Init(int lane, int chain, const Consts&) {
    return 1.0 + 0.001 * lane + 0.01 * chain;
  }
  __device__ static void Step(State& x, const Consts& c, int) {
    asm volatile("fma.rn.f64 %0, %0, %1, %2;"
                 : "+d"(x)
                 : "d"(c.d[0]), "d"(c.d[1]));
  }
  __device__ static State Combine(State a, State b) { return a + b; }
  __device__ static unsigned long long Bits(State x) {
    return static_cast<unsigned long long>(__double_as_longlong(x));
  }
};

// ---- the kernel ------------------------------------------------------------
// One instantiation per op and ILP. __launch_bounds__(1024, 2): two blocks of
// 1024 threads per SM must fit (W = 64), i.e. <= 32 registers per thread.
template <class Op, int ILP>
__global__ void __launch_bounds__(1024, 2)
    E3Chain(Consts c, int reps, WarpRec* recs, unsigned long long* vals,
            unsigned* flags) {
  const unsigned tid = threadIdx.x;
  const unsigned gtid = blockIdx.x * blockDim.x + tid;
  const int lane = static_cast<int>(tid & 31u);
  typename Op::State x[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) x[k] = Op::Init(lane, k, c);

  unsigned long long t0 = 0, g0 = 0;
  for (int r = 0; r <= reps; ++r) {
    if (r == 1) {  // iteration 0 was the warm-up
      __syncthreads();
      g0 = cuda_ref::GlobalTimer();
      t0 = cuda_ref::Clock64();
    }
#pragma unroll
    for (int s = 0; s < kBodySteps; ++s) {
#pragma unroll
      for (int k = 0; k < ILP; ++k) Op::Step(x[k], c, s);
    }
  }
  const unsigned long long t1 = cuda_ref::Clock64();
  const unsigned long long g1 = cuda_ref::GlobalTimer();

  typename Op::State acc = x[0];
#pragma unroll
  for (int k = 1; k < ILP; ++k) acc = Op::Combine(acc, x[k]);
  vals[gtid] = Op::Bits(acc);
  flags[gtid] = kMagic ^ gtid;
  if (lane == 0) {
    WarpRec w;
    w.t0 = t0;
    w.t1 = t1;
    w.g0 = g0;
    w.g1 = g1;
    w.smid = cuda_ref::SmId();
    w.warpid = cuda_ref::WarpId();
    w.block = blockIdx.x;
    w.magic = kMagic;
    recs[gtid / 32] = w;
  }
}

using KernelFn = void (*)(Consts, int, WarpRec*, unsigned long long*,
                          unsigned*);

struct KernelInfo {
  const char* op;
  const char* ptx;
  const char* sass;
  int sass_per_step;
  bool is_float;  // results are float (4 bytes) or double (8 bytes)
  bool is_double;
  int ilp;
  KernelFn fn;
};

template <class Op, int ILP>
KernelInfo Info() {
  return {Op::kName,  Op::kPtx,
          Op::kSass,  Op::kSassPerStep,
          Op::kFloat, sizeof(typename Op::State) == 8 && Op::kFloat,
          ILP,        &E3Chain<Op, ILP>};
}

template <class Op>
void AddOp(std::vector<KernelInfo>* v) {
  v->push_back(Info<Op, 1>());
  v->push_back(Info<Op, 2>());
  v->push_back(Info<Op, 4>());
  v->push_back(Info<Op, 8>());
}

std::vector<KernelInfo> AllKernels() {
  std::vector<KernelInfo> v;
  AddOp<OpFFMA>(&v);
  AddOp<OpFADD>(&v);
  AddOp<OpIMAD>(&v);
  AddOp<OpIADD3>(&v);
  AddOp<OpLOP3>(&v);
  AddOp<OpRCP>(&v);
  AddOp<OpEX2>(&v);
  AddOp<OpSIN>(&v);
  AddOp<OpDFMA>(&v);
  AddOp<OpFRND>(&v);
  AddOp<OpF2I>(&v);
  return v;
}

Consts MakeConsts() {
  Consts c{};
  c.f[0] = 0.9999f;
  c.f[1] = 0.0001f;
  c.f[2] = 1.0f;
  c.f[3] = -1.0f;
  const int ia[4] = {3, 5, 7, 9};
  const int ib[4] = {0x0F0F0F0F, 0x33333333, 0x55555555, 0x7F7F7F7F};
  for (int k = 0; k < 4; ++k) {
    c.i[k] = ia[k] | 0x00F0F0F0;  // odd multipliers, mixed bits for LOP3
    c.i[4 + k] = ib[k];
  }
  c.d[0] = 0.9999;
  c.d[1] = 0.0001;
  return c;
}

// Device buffers sized for the largest launch (2 x 132.. blocks x 1024).
struct Buffers {
  WarpRec* recs = nullptr;
  unsigned long long* vals = nullptr;
  unsigned* flags = nullptr;
  size_t threads = 0;
};

struct Launch {
  std::vector<WarpRec> recs;
  bool ok = true;
  std::string error;
};

Launch RunOnce(const KernelInfo& k, const Consts& c, int reps, int blocks,
               int threads, int smem, const Buffers& b) {
  const size_t n = static_cast<size_t>(blocks) * threads;
  const size_t nw = n / 32;
  CUDA_CHECK(cudaMemset(b.recs, 0xFF, nw * sizeof(WarpRec)));
  CUDA_CHECK(cudaMemset(b.vals, 0xFF, n * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemset(b.flags, 0xFF, n * sizeof(unsigned)));
  k.fn<<<blocks, threads, smem>>>(c, reps, b.recs, b.vals, b.flags);
  CUDA_CHECK_LAUNCH();
  Launch l;
  l.recs.resize(nw);
  std::vector<unsigned long long> vals(n);
  std::vector<unsigned> flags(n);
  CUDA_CHECK(cudaMemcpy(l.recs.data(), b.recs, nw * sizeof(WarpRec),
                        cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(vals.data(), b.vals, n * sizeof(unsigned long long),
                        cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(flags.data(), b.flags, n * sizeof(unsigned),
                        cudaMemcpyDeviceToHost));
  for (size_t w = 0; w < nw; ++w) {
    const WarpRec& r = l.recs[w];
    if (r.magic != kMagic || r.block != w * 32 / threads || r.t1 < r.t0 ||
        r.g1 < r.g0) {
      l.ok = false;
      l.error = "warp record " + std::to_string(w) + " not written or bad";
      return l;
    }
  }
  for (size_t t = 0; t < n; ++t) {
    if (flags[t] != (kMagic ^ static_cast<unsigned>(t))) {
      l.ok = false;
      l.error = "result of thread " + std::to_string(t) + " not written";
      return l;
    }
    if (k.is_float) {
      double v;
      if (k.is_double) {
        std::memcpy(&v, &vals[t], sizeof v);
      } else {
        float f;
        const unsigned u = static_cast<unsigned>(vals[t]);
        std::memcpy(&f, &u, sizeof f);
        v = f;
      }
      if (!std::isfinite(v)) {
        l.ok = false;
        l.error = "non-finite chain result in thread " + std::to_string(t);
        return l;
      }
    }
  }
  return l;
}

void Fail(const KernelInfo& k, const Launch& l) {
  std::fprintf(stderr, "E3 %s ILP %d: %s\n", k.op, k.ilp, l.error.c_str());
  std::exit(4);
}

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E3");
  const int sms = cuda_ref::Attribute(cudaDevAttrMultiProcessorCount);
  const int repeats = opt.quick ? 3 : 5;
  const int lat_reps = opt.quick ? 4 : 16;  // x 256 timed steps per chain
  const int tp_reps = opt.quick ? 8 : 32;
  const std::vector<int> warps_list =
      opt.quick ? std::vector<int>{1, 4, 8, 32, 64}
                : std::vector<int>{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
  const std::vector<int> tp_ilps = {1, 4};

  const std::vector<KernelInfo> kernels = AllKernels();
  for (const KernelInfo& k : kernels) {
    CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(k.fn),
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    kPadOneBlock));
    CUDA_CHECK(
        cudaFuncSetAttribute(reinterpret_cast<const void*>(k.fn),
                             cudaFuncAttributePreferredSharedMemoryCarveout,
                             static_cast<int>(cudaSharedmemCarveoutMaxShared)));
  }
  Buffers b;
  b.threads = static_cast<size_t>(2 * sms) * 1024;
  CUDA_CHECK(cudaMalloc(&b.recs, b.threads / 32 * sizeof(WarpRec)));
  CUDA_CHECK(cudaMalloc(&b.vals, b.threads * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMalloc(&b.flags, b.threads * sizeof(unsigned)));
  const Consts c = MakeConsts();

  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();

  // ---- latency / issue interval: one warp ----
  Json latency = Json::Array();
  for (const KernelInfo& k : kernels) {
    const Launch warm = RunOnce(k, c, lat_reps, 1, 32, 0, b);
    if (!warm.ok) Fail(k, warm);
    std::vector<double> cycles, ns;
    Json smids = Json::Array();
    for (int r = 0; r < repeats; ++r) {
      const Launch l = RunOnce(k, c, lat_reps, 1, 32, 0, b);
      if (!l.ok) Fail(k, l);
      cycles.push_back(static_cast<double>(l.recs[0].t1 - l.recs[0].t0));
      ns.push_back(static_cast<double>(l.recs[0].g1 - l.recs[0].g0));
      smids.push_back(l.recs[0].smid);
    }
    const long long steps = static_cast<long long>(kBodySteps) * lat_reps;
    const long long ops = steps * k.ilp;
    const double med = Median(cycles);
    Json row = Json::Object();
    row["op"] = k.op;
    row["ptx"] = k.ptx;
    row["sass"] = k.sass;
    row["sass_per_step"] = k.sass_per_step;
    row["ilp"] = k.ilp;
    row["steps"] = steps;
    row["ops"] = ops;
    row["cycles"] = ArrayOf(cycles);
    row["ns"] = ArrayOf(ns);
    row["cycles_median"] = med;
    row["cycles_per_op"] = med / static_cast<double>(ops);
    row["smid"] = std::move(smids);
    latency.push_back(std::move(row));
    std::printf("E3 latency %-9s ILP %d: %.3f cycles/op\n", k.op, k.ilp,
                med / static_cast<double>(ops));
  }

  // ---- throughput over warps per SM ----
  Json throughput = Json::Array();
  int placement_configs = 0, placement_ok_count = 0;
  Json placement_failures = Json::Array();
  for (const KernelInfo& k : kernels) {
    if (std::find(tp_ilps.begin(), tp_ilps.end(), k.ilp) == tp_ilps.end())
      continue;
    for (int w : warps_list) {
      const int blocks_per_sm = w > 32 ? 2 : 1;
      const int warps_per_block = w / blocks_per_sm;
      const int threads = warps_per_block * 32;
      const int smem = blocks_per_sm == 1 ? kPadOneBlock : kPadTwoBlocks;
      const int blocks = sms * blocks_per_sm;
      int occ = 0;
      CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &occ, reinterpret_cast<const void*>(k.fn), threads, smem));
      const long long steps = static_cast<long long>(kBodySteps) * tp_reps;
      const long long per_sm_ops = static_cast<long long>(w) * k.ilp * steps;

      const Launch warm = RunOnce(k, c, tp_reps, blocks, threads, smem, b);
      if (!warm.ok) Fail(k, warm);
      std::vector<double> means, mins, maxs, ns_windows;
      std::vector<std::vector<double>> per_sm_all;
      bool placement_ok = true;
      for (int r = 0; r < repeats; ++r) {
        const Launch l = RunOnce(k, c, tp_reps, blocks, threads, smem, b);
        if (!l.ok) Fail(k, l);
        std::vector<unsigned long long> lo(sms, ~0ull), hi(sms, 0);
        std::vector<int> warps_on(sms, 0);
        std::vector<std::set<unsigned>> blocks_on(sms);
        unsigned long long gmin = ~0ull, gmax = 0;
        bool ok = true;
        for (const WarpRec& rec : l.recs) {
          if (rec.smid >= static_cast<unsigned>(sms)) {
            ok = false;
            continue;
          }
          lo[rec.smid] = std::min(lo[rec.smid], rec.t0);
          hi[rec.smid] = std::max(hi[rec.smid], rec.t1);
          ++warps_on[rec.smid];
          blocks_on[rec.smid].insert(rec.block);
          gmin = std::min(gmin, rec.g0);
          gmax = std::max(gmax, rec.g1);
        }
        std::vector<double> per_sm(sms, 0.0);
        double sum = 0, mn = 1e300, mx = 0;
        int counted = 0;
        std::map<int, int> hist;  // blocks per SM -> SM count
        for (int s = 0; s < sms; ++s) {
          ++hist[static_cast<int>(blocks_on[s].size())];
          if (warps_on[s] != w ||
              static_cast<int>(blocks_on[s].size()) != blocks_per_sm) {
            ok = false;
          }
          if (warps_on[s] == 0) continue;
          per_sm[s] = static_cast<double>(hi[s] - lo[s]);
          const double rate =
              static_cast<double>(warps_on[s]) * k.ilp * steps / per_sm[s];
          sum += rate;
          mn = std::min(mn, rate);
          mx = std::max(mx, rate);
          ++counted;
        }
        ++placement_configs;
        if (ok) {
          ++placement_ok_count;
        } else {
          placement_ok = false;
          Json f = Json::Object();
          f["op"] = k.op;
          f["ilp"] = k.ilp;
          f["warps_per_sm"] = w;
          f["repeat"] = r;
          Json h = Json::Object();
          for (const auto& kv : hist) h[std::to_string(kv.first)] = kv.second;
          f["sms_by_blocks_per_sm"] = std::move(h);
          placement_failures.push_back(std::move(f));
        }
        means.push_back(counted ? sum / counted : 0.0);
        mins.push_back(counted ? mn : 0.0);
        maxs.push_back(mx);
        ns_windows.push_back(static_cast<double>(gmax - gmin));
        per_sm_all.push_back(std::move(per_sm));
      }
      std::vector<int> order(repeats);
      for (int r = 0; r < repeats; ++r) order[r] = r;
      std::sort(order.begin(), order.end(),
                [&](int a, int bb) { return means[a] < means[bb]; });
      const int med = order[repeats / 2];
      Json row = Json::Object();
      row["op"] = k.op;
      row["sass"] = k.sass;
      row["ilp"] = k.ilp;
      row["warps_per_sm"] = w;
      row["blocks_per_sm"] = blocks_per_sm;
      row["warps_per_block"] = warps_per_block;
      row["dynamic_smem_bytes"] = smem;
      row["occupancy_api_blocks_per_sm"] = occ;
      row["steps"] = steps;
      row["warp_instructions_per_sm"] = per_sm_ops;
      row["warp_instructions_per_cycle_per_sm_mean"] = means[med];
      row["min"] = mins[med];
      row["max"] = maxs[med];
      Json reps_json = Json::Array();
      for (int r = 0; r < repeats; ++r) {
        Json rr = Json::Object();
        rr["mean"] = means[r];
        rr["min"] = mins[r];
        rr["max"] = maxs[r];
        rr["ns_window"] = ns_windows[r];
        reps_json.push_back(std::move(rr));
      }
      row["repeats"] = std::move(reps_json);
      row["per_sm_cycles"] = ArrayOf(per_sm_all[med]);
      row["placement_ok"] = placement_ok;
      throughput.push_back(std::move(row));
      std::printf(
          "E3 throughput %-9s ILP %d W %2d: %.3f warp-instr/cycle/SM%s\n", k.op,
          k.ilp, w, means[med], placement_ok ? "" : " (PLACEMENT!)");
    }
  }

  CUDA_CHECK(cudaFree(b.recs));
  CUDA_CHECK(cudaFree(b.vals));
  CUDA_CHECK(cudaFree(b.flags));

  Json placement = Json::Object();
  placement["configs"] = placement_configs;
  placement["ok"] = placement_ok_count;
  placement["failures"] = std::move(placement_failures);

  Json params = Json::Object();
  params["body_steps"] = kBodySteps;
  params["repeats"] = repeats;
  params["latency_reps"] = lat_reps;
  params["throughput_reps"] = tp_reps;
  params["throughput_ilps"] = Json::Array();
  for (int i : tp_ilps) params["throughput_ilps"].push_back(i);
  params["warps_per_sm"] = Json::Array();
  for (int w : warps_list) params["warps_per_sm"].push_back(w);
  params["pad_one_block_bytes"] = kPadOneBlock;
  params["pad_two_blocks_bytes"] = kPadTwoBlocks;
  params["multiprocessors"] = sms;

  Json results = Json::Object();
  results["body_steps"] = kBodySteps;
  results["latency"] = std::move(latency);
  results["throughput"] = std::move(throughput);
  results["placement_check"] = std::move(placement);
  cuda_ref::WriteResult(opt, "E3", before, std::move(params),
                        std::move(results));
  return 0;
}
