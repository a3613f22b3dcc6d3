// Subgroup (OpGroupNonUniform*) instructions; the subgroup is the warp.
#include "simt/exec_common.h"

namespace warpsim::simt {

bool LowerSubgroup(Lowerer& l, const spirv::Inst& inst) { return false; }

}  // namespace warpsim::simt
