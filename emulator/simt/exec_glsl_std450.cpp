// GLSL.std.450 extended instructions.
#include "simt/exec_common.h"

namespace warpsim::simt {

bool LowerGlslStd450(Lowerer& l, const spirv::Inst& inst) { return false; }

}  // namespace warpsim::simt
