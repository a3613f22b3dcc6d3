// AmberScript → Scene.
//
// Accepts the AmberScript language of Google's Amber (docs/amber_script.md
// there): SHADER, BUFFER, IMAGE, SAMPLER, STRUCT, VIRTUAL_FILE, PIPELINE,
// DERIVE_PIPELINE, the device requirement commands, SET ENGINE_DATA and the
// command stream (RUN, CLEAR*, COPY, EXPECT, REPEAT). Errors:
//   - InvalidInput with SourcePos{file, line} and a message saying what was
//     expected, e.g. "expected an integer workgroup count X after RUN
//     pipeline, got 'a'";
//   - Unsupported naming the feature: "VkScript format" (files that start
//     with a [section]; ParseSceneText sends those to the VkScript parser),
//     "DEBUG blocks", ray-tracing commands, compressed
//     (*_BLOCK) formats, PNG files when a format is not 8-bit RGBA-like.
// Names (shaders, buffers, samplers, pipelines) are resolved while parsing,
// so a returned Scene never refers to an undeclared object. FORMAT buffers
// without a size that a graphics pipeline binds as attachments are sized to
// the pipeline's FRAMEBUFFER_SIZE; a graphics pipeline without a color
// attachment gets Amber's default B8G8R8A8_UNORM buffer named "framebuffer".
#ifndef WARPSIM_SCENE_AMBER_PARSER_H_
#define WARPSIM_SCENE_AMBER_PARSER_H_

#include <string>
#include <string_view>

#include "base/diagnostic.h"
#include "scene/scene.h"

namespace warpsim::scene {

// Parses script text. `file_path` is used for diagnostics and to resolve
// FILE paths (relative to its directory).
Result<Scene> ParseAmberScript(std::string_view text,
                               const std::string& file_path);

// Reads and parses a file in either format (ParseSceneText). A missing or
// unreadable file is InvalidInput.
Result<Scene> ParseAmberFile(const std::string& path);

// Parses AmberScript or VkScript text: VkScript when the first line that is
// neither blank nor a '#' comment opens a [section] (ParseVkScript, see
// vkscript_parser.h), AmberScript otherwise (ParseAmberScript).
Result<Scene> ParseSceneText(std::string_view text,
                             const std::string& file_path);

}  // namespace warpsim::scene

#endif  // WARPSIM_SCENE_AMBER_PARSER_H_
