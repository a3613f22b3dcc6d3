// Atomic instructions.
#include "simt/exec_common.h"

namespace warpsim::simt {

bool LowerAtomic(Lowerer& l, const spirv::Inst& inst) { return false; }

}  // namespace warpsim::simt
