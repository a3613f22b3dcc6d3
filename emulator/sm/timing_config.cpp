#include "sm/timing_config.h"

namespace warpsim::sm {
namespace {

struct SchedulerEntry {
  SchedulerPolicy policy;
  std::string_view name;
};
constexpr SchedulerEntry kSchedulers[] = {
    {SchedulerPolicy::kLrr, "lrr"},
    {SchedulerPolicy::kGto, "gto"},
    {SchedulerPolicy::kOldest, "oldest"},
    {SchedulerPolicy::kTwoLevel, "two_level"},
};

struct ContextSwitchEntry {
  ContextSwitch mode;
  std::string_view name;
};
constexpr ContextSwitchEntry kContextSwitches[] = {
    {ContextSwitch::kFree, "free"},
    {ContextSwitch::kSwap, "swap"},
};

}  // namespace

std::string_view SchedulerName(SchedulerPolicy p) {
  for (const SchedulerEntry& e : kSchedulers) {
    if (e.policy == p) return e.name;
  }
  return "?";
}

bool ParseScheduler(std::string_view name, SchedulerPolicy* out) {
  for (const SchedulerEntry& e : kSchedulers) {
    if (e.name == name) {
      *out = e.policy;
      return true;
    }
  }
  return false;
}

std::string_view ContextSwitchName(ContextSwitch c) {
  for (const ContextSwitchEntry& e : kContextSwitches) {
    if (e.mode == c) return e.name;
  }
  return "?";
}

bool ParseContextSwitch(std::string_view name, ContextSwitch* out) {
  for (const ContextSwitchEntry& e : kContextSwitches) {
    if (e.name == name) {
      *out = e.mode;
      return true;
    }
  }
  return false;
}

}  // namespace warpsim::sm
