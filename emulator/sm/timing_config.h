// The machine parameters of the SM timing model (sm/timing.h): clock,
// SM counts, per-pipe latency and issue interval, the memory hierarchy's
// latencies, capacities and bandwidths, and the scheduler policy.
//
// The defaults below are placeholders of a small teaching machine, not
// claims about any GPU. The `h200` preset takes every value from
// emulator/runner/presets/h200_timing.json, which
// cuda_ref/results/make_timing_preset.py generates from the recorded H200
// runs (each value there names the result file and field it came from).
#ifndef WARPSIM_SM_TIMING_CONFIG_H_
#define WARPSIM_SM_TIMING_CONFIG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpsim::sm {

// How a sub-partition's scheduler picks among its eligible warps.
enum class SchedulerPolicy : uint8_t {
  kLrr,       // loose round robin: the next eligible warp after the last one
  kGto,       // greedy then oldest: the last warp while it can issue, then
              // the oldest (earliest resident) eligible warp
  kOldest,    // always the oldest eligible warp
  kTwoLevel,  // an active pool of `two_level_active` warps, round robin
              // within it; a warp that waits on memory leaves the pool
};
std::string_view SchedulerName(SchedulerPolicy p);  // "lrr", "gto", ...
// False when `name` is none of lrr, gto, oldest, two_level.
bool ParseScheduler(std::string_view name, SchedulerPolicy* out);

// What happens when a warp waits on memory. kFree: nothing, every resident
// warp keeps its registers in the register file and the scheduler just
// issues another one (what GPUs do). kSwap: a CPU-style context switch, for
// comparison: a warp that waits on a long-latency load is switched out, its
// registers written to memory and read back before it issues again, which
// costs swap_cycles_per_register x registers of the warp each way.
enum class ContextSwitch : uint8_t { kFree, kSwap };
std::string_view ContextSwitchName(ContextSwitch c);  // "free", "swap"
bool ParseContextSwitch(std::string_view name, ContextSwitch* out);

// One pipe: cycles from issue until a dependent instruction may issue
// (`latency`), and cycles between two warp instructions of this pipe on
// one sub-partition (`interval`: 1 = one per clock; 2 = a half-width unit).
struct PipeTiming {
  uint32_t latency = 4;
  uint32_t interval = 1;
};

// The memory hierarchy, per access of one warp instruction: the lanes'
// addresses are grouped into lines (line_bytes) and sectors (sector_bytes);
// each line is looked up in the SM's L1, then the shared L2, then DRAM;
// the instruction's result is ready after the slowest line's latency
// plus the time its sectors wait for the L2 and DRAM bandwidth.
struct MemoryTiming {
  uint32_t shared_latency = 24;  // workgroup (shared) memory load to use
  uint32_t l1_latency = 32;      // L1 hit (also lane-private "local" memory)
  uint32_t l2_latency = 200;     // L1 miss that hits in L2
  uint32_t dram_latency = 400;   // L2 miss
  uint32_t line_bytes = 128;
  uint32_t sector_bytes = 32;
  uint64_t l1_bytes = 128 * 1024;  // per SM
  uint32_t l1_ways = 4;
  uint64_t l2_bytes = 4 * 1024 * 1024;  // whole GPU
  uint32_t l2_ways = 16;
  // The rest of the L2: a GPU whose L2 is split in partitions shows an SM
  // l2_bytes at l2_latency (its own partition, which keeps copies of the
  // other's lines) and the whole L2, l2_far_bytes, at l2_far_latency
  // beyond. A line that misses the first is looked up in the second
  // (the same kind of cache, shared by all SMs) before DRAM. 0 bytes: no
  // such level.
  uint64_t l2_far_bytes = 0;
  uint32_t l2_far_latency = 0;
  // The L2's sides (cuda_ref's E49): an SM sees at l2_latency the lines
  // its own side holds (each side keeps, in l2_bytes, the lines its SMs
  // read or wrote); a line only another side holds comes at
  // l2_cross_latency and is then held by the SM's side too; a line no side
  // holds (an upload's, with l2_uploads_far, or one past l2_bytes) at
  // l2_far_latency. A store drops the other sides' copies of its lines.
  // 1: one side, every SM's.
  uint32_t l2_sides = 1;
  // SM s's side: l2_side_of_sm[s] where given (every entry below
  // l2_sides), else s % l2_sides.
  std::vector<uint32_t> l2_side_of_sm;
  // 0: l2_far_latency (l2_latency without a far level).
  uint32_t l2_cross_latency = 0;
  // Sustained bandwidth per SM, bytes per cycle: the GPU's total divided
  // by its SMs (TimingConfig::sms, or graphics_sms where that is more). All
  // SMs' misses queue on the total, so that a few SMs running alone get more
  // than their share (each then limited by l1_miss_cycles_per_line).
  double l2_bytes_per_cycle_per_sm = 32;
  double dram_bytes_per_cycle_per_sm = 16;
  // Cycles an SM needs per line it sends to the L2 (a line one of its
  // loads or stores missed in the L1): its requests leave one after the
  // other, whatever their sectors. 0: no limit.
  double l1_miss_cycles_per_line = 0;
  // The same for the lines of vertex and fragment warps' loads and stores
  // (the graphics SMs' shader path, which a draw's timing measures apart
  // from a kernel's). 0: l1_miss_cycles_per_line.
  double graphics_l1_miss_cycles_per_line = 0;
  // The L1's data stage: a load's data leaves it in wavefronts, one every
  // l1_wavefront_cycles per SM, whether it hit or came from the L2. A warp
  // load takes as many as the most distinct l1_bank_bytes-wide words its
  // lanes read in one of the l1_banks banks (word w's bank: w mod
  // l1_banks; lanes that read one word share it), and at least one per
  // l1_lines_per_wavefront distinct lines it reads (vulkan_ref's E39: 32
  // lanes reading one word in each of 8 lines, all in 4 banks, take 8
  // cycles of an SM; the same 8 lines with every word in its own bank, as
  // long as one line; 32 lines in 32 banks, 8). Stores (their own path:
  // store_sector_cycles) and image reads through the texture path (their
  // own: texture_quad_cycles) take none. 0 cycles: no limit.
  double l1_wavefront_cycles = 0;
  // The texture path (image reads: sampling, gathers, texel fetches; 0:
  // none of it). A read's latency is the level's that holds its texels
  // plus texture_hit_cycles when the L1 holds them all, texture_miss_cycles
  // when it does not (vulkan_ref's E43: a chain of texel fetches against
  // the same chain of buffer loads). The SM's texture units take a warp's
  // read one after the other: texture_quad_cycles for each quad (4 lanes
  // with an active one) of a sampling or gather, texture_fetch_quad_cycles
  // for each of a fetch (no sampler), each times the texel's bytes over
  // texture_full_rate_bytes when wider and twice that for a read a linear
  // filter blends when the format's widest component has more than
  // texture_filtered_full_rate_bits, and at least texture_line_cycles
  // for each distinct line of the texels the lanes read (the first of
  // each lane's footprint, in the tiled layout of TiledTexelOffset), and
  // texture_miss_line_cycles more for each of them the L1 misses; a
  // read's data waits for the reads before it.
  uint32_t texture_hit_cycles = 0;
  uint32_t texture_miss_cycles = 0;
  double texture_quad_cycles = 0;
  double texture_fetch_quad_cycles = 0;
  uint32_t texture_full_rate_bytes = 0;          // 0: every texel at full rate
  uint32_t texture_filtered_full_rate_bits = 0;  // 0: every width
  double texture_line_cycles = 0;
  double texture_miss_line_cycles = 0;
  // The same for workgroup (shared) memory, loads and stores, in the same
  // banks (the L1 and shared memory are one array; vulkan_ref's E40:
  // lanes whose words pile up W in one bank take W cycles of an SM), in
  // the same queue as the L1's wavefronts. 0: none, every shared access
  // takes shared_latency.
  double shared_wavefront_cycles = 0;
  // A global store's data leaves its SM through one path per SM, which
  // takes store_sector_cycles for each 32-byte sector a warp store writes,
  // store_line_cycles for each line and store_partial_line_cycles more for
  // each line with a sector it writes in part (vulkan_ref's E41). When the work
  // queued there is more than store_queue_cycles, the sub-partition's
  // load/store pipe stays busy until it is back to that (lg_throttle): a
  // store is not waited for, but a full path stops the next memory
  // instruction. 0 cycles a sector and a line: stores queue nothing.
  double store_sector_cycles = 0;
  double store_line_cycles = 0;
  double store_partial_line_cycles = 0;
  double store_queue_cycles = 0;
  uint32_t l1_banks = 32;
  uint32_t l1_bank_bytes = 4;
  uint32_t l1_lines_per_wavefront = 4;
  // The L1 is sectored: a load that misses brings in only the sectors it
  // asked for (the line's tag with them), and a later load of the line's
  // other sectors misses again, for those (REFERENCE §1.5: 128-byte lines
  // of 32-byte sectors). false: a miss brings in the whole line.
  bool l1_sector_fills = true;
  // Every SM's L1 starts each draw or dispatch empty (the L2 keeps its
  // lines): NVIDIA's L1 is not coherent, and a dispatch that follows
  // another's writes, or a submission's uploads, cannot read stale lines
  // (vulkan_ref's E36: one warp's walk through the next word of a ring
  // costs an L1 hit a step when it has read those words earlier in the
  // dispatch, and an L2 hit a sector when the dispatch before it, the same
  // one repeated, read them). false: the L1 keeps its lines from one to
  // the next.
  bool l1_invalidated_per_run = false;
  // The L1's set of a line mixes in the line's higher address bits: each
  // aligned window of as many lines as the L1 has sets is turned by an
  // amount of its own (LineCache), so that lines a multiple of the set
  // count apart (a large power of two, often) spread over the sets as
  // neighbouring lines do, and a window's lines still take distinct sets.
  // false: the set is the line number modulo the set count, and lines a
  // multiple of the set count apart share one set.
  bool l1_hashed_sets = false;
  // A load of a buffer through a Coherent or Volatile pointer
  // (simt::Program::l1_bypass) neither looks in the L1 nor keeps its lines
  // there: NVIDIA's code reads such a buffer with LDG.E.STRONG.GPU.
  // false: it is cached as any load.
  bool coherent_bypasses_l1 = false;
  // Address translation: an SM translates a global access's addresses
  // region by region (translation_region_bytes each, aligned); the first
  // access to a region the SM has not translated waits
  // translation_miss_cycles more (a fill every later access to the region
  // on the SM waits for until it is done), and with
  // translation_per_run every SM starts each draw or dispatch with none
  // translated (vulkan_ref's E56: one warp's dependent loads 1 MB apart in
  // a buffer the runner had just written cost about two L2 latencies a
  // load, loads 64 KB apart one, and a first loop touching one word every
  // 64 KB of the buffer took the difference away: the runner binds its
  // buffers anew each dispatch). The SM keeps every region it translated
  // (E56's 16 regions an SM all stayed). 0 bytes: no translation cost.
  uint32_t translation_region_bytes = 0;
  uint32_t translation_miss_cycles = 0;
  bool translation_per_run = false;
  // The memory a run's shaders reach (buffers, images) is in the L2 when a
  // run first reaches it: the host wrote it there (an upload's copy goes
  // through the L2; the lines past the L2's size are in DRAM). false: the
  // L2 starts empty, and the first access of every line goes to DRAM.
  bool l2_holds_uploads = false;
  // With l2_holds_uploads and a far level (l2_far_bytes): an upload's lines
  // are in the L2 but on no side (cuda_ref's E49: a chain's first read of
  // lines a copy from the host wrote takes about l2_far_latency, one of
  // lines an SM of its side read before l2_latency). false: on every side.
  bool l2_uploads_far = false;
  // With l2_uploads_far: the latency of the first read of a line an upload
  // placed, before any side holds it (then the reader's side holds it).
  // The host's writes through a mapped buffer (vulkan_ref's runner) leave
  // lines nearer than a copy engine's (vulkan_ref's E50: a chain's first
  // lap through lines the runner had just written takes about the
  // cross-side latency a step, not the far one). 0: l2_far_latency.
  uint32_t l2_upload_latency = 0;
  // With l2_holds_uploads: the share of an upload's lines (those the L2
  // keeps) that it leaves in DRAM only, each line chosen on its own by a
  // hash of its address (cuda_ref's E51: a step of K loads of lines a copy
  // from the host wrote waits for the slowest, as if each line were in
  // DRAM with the same chance; vulkan_ref's E52 for the runner's uploads).
  // 0: every line it keeps is in the L2.
  double upload_dram_share = 0;
  // With l2_holds_uploads: the host writes every buffer and image a draw or
  // dispatch reaches again before it (vulkan_ref's runner starts each one,
  // and each of its repeats, from the scene's inputs), so that its lines
  // are an upload's again, whatever earlier runs left on the sides.
  // false: once, when a run first reaches it.
  bool uploads_per_run = false;
  // Cycles beyond its own issue slot that a compute warp's load/store-pipe
  // instruction holds its sub-partition's issue: no warp there issues for
  // them (the ready ones count as throttled by their pipes), the issuing
  // warp's next instruction included. On the H200 a kernel's global load
  // takes issue slots beyond its own when many warps share the SM
  // (cuda_ref E32), where fragment shaders' loads at high occupancy take
  // none (vulkan_ref E26, E27): vertex and fragment warps' accesses hold
  // nothing. By kind: a load, store or atomic of global (device)
  // memory, a load or store of workgroup (shared) memory. A lane-private
  // variable's and an image's accesses hold nothing. 0: none.
  uint32_t global_load_issue_cycles = 0;
  uint32_t global_store_issue_cycles = 0;
  uint32_t global_atomic_issue_cycles = 0;
  uint32_t shared_load_issue_cycles = 0;
  uint32_t shared_store_issue_cycles = 0;
  // How many of those hold cycles a sub-partition may owe: a hold is paid
  // first by the cycles in which the sub-partition issues nothing, and
  // stops its issue only for what it owes beyond this. On the H200 one
  // warp's store or atomic takes no more of its loop's time than its SASS
  // slot (cuda_ref E33, one warp), where with many warps, which leave the
  // issue no idle cycle, the same instruction takes its whole hold. 0:
  // every hold stops issue at once.
  uint32_t issue_hold_slack_cycles = 0;
};

struct TimingConfig {
  double clock_mhz = 1000;    // SM clock: converts cycles to time
  uint32_t sms = 4;           // SMs that run compute workgroups
  uint32_t graphics_sms = 2;  // SMs that run vertex and fragment warps
  // Fragment warps of one screen tile of fragment_tile_pixels squared
  // pixels (the tile of a warp's first quad) go to the SM that holds the
  // tile's other resident fragment warps; a tile no SM holds goes to the
  // graphics SM with the fewest resident warps that has room. Each SM
  // takes its warps in API order, and a warp whose SM is full does not
  // hold up the warps of the other SMs. 0: every fragment warp goes to the
  // graphics SM with the fewest resident warps that has room.
  uint32_t fragment_tile_pixels = 0;
  PipeTiming fma;         // FP32 add/mul/fma, integer multiply
  PipeTiming alu{4, 2};   // INT32 add, logic, shifts, compares, converts
  PipeTiming fp64{8, 2};  // double precision
  PipeTiming sfu{16, 8};  // MUFU: reciprocal, sqrt, exp2, log2
  // Some instructions take their own figures on the pipe they issue to:
  // integer multiply (IMAD: the FMA pipe at half rate), sine and cosine (a
  // range-reducing FMUL, then MUFU), and the conversions below.
  PipeTiming imul{4, 2};
  PipeTiming sfu_trig{20, 8};
  // Rounding a float to an integral value (floor, ceil, trunc, round,
  // fract's floor) and float-to-integer conversion: NVIDIA's FRND and F2I,
  // which run at the MUFU rate; they issue on the SFU pipe with these.
  PipeTiming cvt{16, 8};
  // An access chain's first step from a storage buffer's base by a
  // run-time index (simt::IsBufferAddress): NVIDIA's code computes a 64-bit
  // address from the descriptor's base there, a longer wait than one ALU
  // instruction's. Latency 0: the ALU pipe's figures.
  PipeTiming buffer_address{0, 0};
  // Cycles beyond its own slot such an access chain holds its
  // sub-partition's issue (as MemoryTiming::global_load_issue_cycles, with
  // memory.issue_hold_slack_cycles, for every warp): NVIDIA's code computes
  // the 64-bit address in two instructions where the model issues one
  // (vulkan_ref's E38). 0: none.
  uint32_t buffer_address_issue_cycles = 0;
  PipeTiming branch{4, 1};  // control flow
  PipeTiming sync{4, 1};    // barriers, subgroup shuffles and votes
  PipeTiming lsu{0, 1};     // loads and stores: issue interval only (the
                            // latency is the memory model's)
  PipeTiming tex{0, 4};     // image sampling: issue interval only
  MemoryTiming memory;
  // Issue the pairs NVIDIA's compiler makes one SASS instruction of (a
  // multiply and its add: IMAD, FFMA; two bitwise operations: LOP3; a
  // negation and its consumer) as one instruction (sm/timing.cpp Fusible).
  bool fuse_pairs = true;
  // Let an integer add or subtract issue on the FMA pipe, with the imul
  // figures, when the ALU pipe is busy and the FMA pipe is not: NVIDIA's
  // compiler writes some of them as IMAD.IADD instead of IADD3, so that
  // both pipes share the adds.
  bool split_int_adds = false;
  // Issue an unconditional branch NVIDIA's code has no instruction for (a
  // fall through, a rotated loop's back edge: simt::Program::layout_free)
  // with the instruction before it.
  bool free_layout_branches = true;
  // Trips per copy of the loop control in the code NVIDIA's compiler makes
  // of a loop with a run-time trip count (simt::Program::unrolled_loops):
  // the exit compare, the exit branch and the counter's step issue on one
  // trip in loop_unroll, and not at all in a loop with a constant trip
  // count (unrolled completely). 1: every trip (no unrolling).
  uint32_t loop_unroll = 1;
  // The longest body (simt::UnrolledLoop::body: the instructions a trip
  // issues apart from the loop's control) of a loop with a run-time trip
  // count that is unrolled; a longer one runs rolled, its control on every
  // trip. 0: no limit.
  uint32_t loop_unroll_max_body = 0;
  // The same for a loop that loads from memory, stores nothing and holds
  // no selection (simt::UnrolledLoop::loads): NVIDIA's driver unrolls
  // those with longer bodies. 0: loop_unroll_max_body.
  uint32_t loop_unroll_max_body_loads = 0;
  // What an instruction in a side of one of the loop's selections
  // (simt::UnrolledLoop::skipped) counts for against loop_unroll_max_body:
  // the body's length is (body - skipped) + weight * skipped. NVIDIA's
  // driver unrolls loops around a block no lane takes with longer bodies
  // than straight ones (vulkan_ref's E35). 1: as any other instruction.
  double loop_unroll_skipped_weight = 1;
  // The issue slots NVIDIA's code for a loop it unrolls with a run-time
  // trip count (Unrolls: loop_unroll, loop_unroll_max_body) takes each time
  // a warp enters the loop besides the trips: the guard, the remainder's
  // count and test around the unrolled copies. One slot each on the branch
  // pipe from the loop's first test on, in any cycle the warp has (its own
  // next instruction may wait for an operand or a branch meanwhile: the
  // compiler schedules these in such waits); the report's
  // loop_entry_instructions. 0: none.
  uint32_t loop_entry_slots = 0;
  // A loop whose OpLoopMerge asks DontUnroll (GLSL's [[dont_unroll]]) runs
  // rolled, as nvcc compiles CUDA's `#pragma unroll 1`; false: it is
  // unrolled as any other, as NVIDIA's Vulkan driver does (vulkan_ref's
  // E34).
  bool honour_dont_unroll = true;
  // Predicate a selection whose sides NVIDIA's compiler can predicate
  // (simt::Program::predicated_selections) when they hold at most this many
  // instructions together: its conditional branch issues with the
  // instruction before it, and a side no lane of the warp takes still
  // issues, each of its instructions one issue slot on its pipe, writing
  // nothing (the report's predicated_off_instructions). 0: none.
  uint32_t predicate_max_instructions = 0;
  // And at most this many registers written by its sides (each counted
  // once; simt::PredicatedSelection::written): a selection whose sides
  // write more is branched (vulkan_ref's E46: four float adds to four
  // registers predicated, sixteen to sixteen branched, where E27's
  // sixteen multiply-adds to one register were predicated). 0: no limit.
  uint32_t predicate_max_written = 0;
  // Per register a predicated selection's sides write, the moves NVIDIA's
  // code issues once a pass of a loop it unrolls with a run-time trip
  // count (Unrolls) when a side holds a loop (simt::PredicatedSelection::
  // holds_loop): the last copy's results go to other registers, selected
  // and moved back. Issued after the selection on the trip the loop's
  // control issues on, one issue slot each on the FMA pipe (the report's
  // selection_move_instructions). 0: none.
  uint32_t selection_loop_moves = 0;
  // A selection's conditional branch that is not predicated
  // (simt::Program::selection_branches) issues this many more
  // instructions: NVIDIA's reconvergence barrier around a branch that may
  // diverge (BSSY before the branch, BSYNC at the merge), each an issue
  // slot on the branch pipe after the branch's own wait, the last one
  // followed by selection_sync_latency cycles before the warp's next
  // instruction (the report's reconvergence_instructions). 0: none.
  uint32_t selection_sync_slots = 0;
  // A rotated loop's control that NVIDIA's compiler places in the body
  // (simt::Program::loop_fills: the test's compare, the counter's step)
  // runs with the instruction before it, taking no cycle of the warp's,
  // while its sub-partition has left more cycles without an issue since
  // the trip began than such instructions have run in the trip (the
  // report's bubble_instructions); else it issues as any instruction.
  bool loop_control_in_bubbles = false;
  uint32_t selection_sync_latency = 0;
  // The cycles from an instruction that writes a bool (a compare, a
  // logical operation: in NVIDIA's code a predicate register, ISETP,
  // FSETP, PLOP3) to the first instruction that can use it: a branch, a
  // select, an instruction of a predicated side (the warp's next
  // instruction after a predicated selection's branch waits for it). 0:
  // the pipe's latency, as any other result.
  uint32_t predicate_latency = 0;
  // A loop's test (its compare a trip ahead, predicate_latency) counted as
  // NVIDIA's code counts it: in the stall cycles the compiler writes into
  // each instruction, which know no load's wait. The compiler puts the
  // next trip's compare right after the trip's first memory instruction
  // (a load, store or atomic), and the stall before the branch covers
  // predicate_latency from there in the warp's own issues and
  // fixed-latency waits only: a trip that issues fewer of those after a
  // load, before its branch, waits the rest after the load's data.
  bool static_loop_test = false;
  // Issue with the instruction before it an arithmetic instruction that
  // repeats an earlier one of its block on the same operands
  // (simt::Program::redundant): the compiler computes it once.
  bool cse = true;
  // Issue with the instruction before it a float multiply, add or
  // subtract by constants that continues such a chain on one value in its
  // block (simt::Program::folded): the compiler folds the chain, an affine
  // map of its input, into one multiply-add (vulkan_ref's E45).
  bool fold_constant_chains = true;
  // Issue with the instruction before it what a loop with a run-time trip
  // count computes alike on every trip (simt::Program::hoisted): the
  // compiler computes it once, before the loop (vulkan_ref's E35: its
  // loops' bodies, counted without such values, part the loops the driver
  // unrolled from those it left rolled).
  bool hoist_invariants = false;
  // Issue with the instruction before it a load or store of a lane-private
  // variable NVIDIA's compiler holds in registers, and the address
  // computation only those use (simt::Program::register_private): in its
  // code they are registers renamed, no instruction. The value a load
  // gives is ready when the one stored there was. false: each is a move
  // on the ALU pipe. The same for a load of a uniform block's or push
  // constants' word at an offset known at compile time: an operand from a
  // constant bank in NVIDIA's code, its value ready at once.
  bool free_register_moves = true;
  // An instruction does not wait for an earlier one's pending write to a
  // register it writes: NVIDIA's allocator gives every live value its own
  // register, where the executor's fewer registers reuse one for values
  // that are live one after the other (a completely unrolled loop's loads
  // into one register: on the GPU, each into its own). A write by fewer
  // than the warp's alive lanes keeps the later of the two ready cycles
  // (the other lanes' value is still coming). false: a write waits for
  // the register's pending write, as a scoreboard without renaming does.
  bool rename_registers = true;
  // Each sub-partition's L0 instruction cache (icache_bytes 0: none, every
  // instruction is at hand). A program's instruction k sits at code address
  // k x instruction_bytes (its own range per program); the cache holds
  // icache_line_bytes lines in sets of icache_ways, least recently used
  // out. A line the sub-partition never held is there at no cost: the
  // first pass over a shader's code is part of the launch and draw costs
  // the other figures were measured with. One it held and lost is fetched
  // again, one line at a time per sub-partition, each in
  // icache_fill_cycles; a warp waits for its next instruction's line
  // (no_instruction), and issuing from a line fetches the next one ahead.
  uint64_t icache_bytes = 0;
  uint32_t icache_line_bytes = 128;
  uint32_t icache_ways = 4;
  uint32_t instruction_bytes = 16;
  uint32_t icache_fill_cycles = 20;
  SchedulerPolicy scheduler = SchedulerPolicy::kGto;
  uint32_t two_level_active = 8;  // warps per active pool (kTwoLevel)
  ContextSwitch context_switch = ContextSwitch::kFree;
  // kSwap: cycles to save (and again to restore) one register of a warp.
  double swap_cycles_per_register = 1;
  // The fixed-function graphics units around the SMs, shared by the whole
  // GPU; 0 is no limit (the defaults: the teaching machine has none).
  // - raster_pixels_per_cycle: pixels (4 per quad, helpers included) the
  //   rasterizer hands to fragment warps per cycle; a fragment warp
  //   launches no earlier than its quads are rasterized.
  // - output_bytes_per_cycle: colour, depth and stencil bytes the output
  //   merge (ROP) writes per cycle, of the pixels that reach it (not
  //   discarded) and pass its tests; a draw ends when they are written.
  // - draw_fixed_cycles: what a draw takes besides its warps and the two
  //   rates (front end, set-up, the end-of-draw flush), added once to
  //   every draw.
  // - fragment_warp_cycles: what launching (and finishing) a fragment
  //   warp takes its sub-partition besides the warp's instructions: no
  //   warp there issues for these cycles (its ready warps count as
  //   throttled by their pipe), and the new warp's first instruction waits
  //   for them (no_instruction).
  // - depth_test_cycles, depth_reject_cycles: what the output merge takes
  //   besides the bytes it writes for a pixel the depth/stencil tests pass,
  //   and for one they reject.
  // - blend_cycles, float_blend_cycles: the same for a blended texel, of a
  //   32-bit float format (float_) or of another format.
  // - primitives_per_cycle: primitives the front end sets up per cycle,
  //   in API order, those that cover no pixel too; a draw ends no earlier
  //   than its last is set up (a throughput bound: the latency of a
  //   draw's first primitives is in draw_fixed_cycles).
  // - output_flush_cycles: what a draw any of whose pixels reached the
  //   output merge (written, or tested by depth/stencil) takes besides
  //   draw_fixed_cycles (the merge unit's work reaching memory at its
  //   end); a draw whose fragments all discarded does not take it.
  // - depth_flush_cycles: what a draw any of whose pixels the depth or
  //   stencil tests saw (passed or rejected) takes besides those two (the
  //   depth/stencil attachment's work at the end of the draw).
  double raster_pixels_per_cycle = 0;
  double primitives_per_cycle = 0;
  double output_bytes_per_cycle = 0;
  double depth_test_cycles = 0;
  double depth_reject_cycles = 0;
  double blend_cycles = 0;
  double float_blend_cycles = 0;
  uint32_t draw_fixed_cycles = 0;
  uint32_t output_flush_cycles = 0;
  uint32_t depth_flush_cycles = 0;
  uint32_t fragment_warp_cycles = 0;
};

}  // namespace warpsim::sm

#endif  // WARPSIM_SM_TIMING_CONFIG_H_
