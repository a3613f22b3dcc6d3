// Buffer data packing: turns script numbers into the bytes of a buffer.
//
// Values fill the non-padding components of each element in order
// (ElementFormat::components); padding bytes are zero. For *_PACKnn formats
// each value is the whole packed word. Integer components need integer
// values (decimal, negative or 0x hex; stored modulo 2^bits); float
// components take any number (an integer is converted to its value) and
// are rounded to float16/float/double.
#ifndef WARPSIM_SCENE_BUFFER_DATA_H_
#define WARPSIM_SCENE_BUFFER_DATA_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "scene/format.h"
#include "scene/scene.h"

namespace warpsim::scene {

// Writes `v` into component `c` of `element`. Fails (message only, no
// position) when an integer component is given a non-integer.
Status EncodeNumber(const Number& v, const Component& c,
                    std::span<uint8_t> element);

// Bytes for `values` laid out with `format`: ceil(values / per-element)
// elements, the last one zero-padded if values run short.
Result<std::vector<uint8_t>> PackValues(const ElementFormat& format,
                                        const std::vector<Number>& values);

// `count` elements, every component set to `v` (FILL).
Result<std::vector<uint8_t>> FillElements(const ElementFormat& format,
                                          uint64_t count, const Number& v);

// `count` elements whose components take start, start+inc, ... in data
// order (SERIES_FROM start INC_BY inc). Integer components step with
// integer arithmetic, float components with double arithmetic.
Result<std::vector<uint8_t>> SeriesElements(const ElementFormat& format,
                                            uint64_t count, const Number& start,
                                            const Number& inc);

// Checks count * stride against kMaxBufferBytes without overflow.
// Returns the byte size or an InvalidInput message naming the size.
Result<uint64_t> CheckedBufferBytes(const ElementFormat& format,
                                    uint64_t count);

// Formats component `c` of `element` as text in the component's type
// (integers exactly, floats in shortest round-trip form).
std::string FormatComponent(std::span<const uint8_t> element,
                            const Component& c);

// The component that a packed format's whole word is read as.
Component PackedWordComponent(const ElementFormat& format);

}  // namespace warpsim::scene

#endif  // WARPSIM_SCENE_BUFFER_DATA_H_
