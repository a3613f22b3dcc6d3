// Image and sampler instructions.
#include "simt/exec_common.h"

namespace warpsim::simt {

bool LowerImage(Lowerer& l, const spirv::Inst& inst) { return false; }

}  // namespace warpsim::simt
