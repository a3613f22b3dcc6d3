// The framebuffer view (the rendered image with a per-pixel overlay, and
// what made a clicked pixel) and the shader view (per instruction: what it
// cost, branches marked by divergence).
#define GL_GLEXT_PROTOTYPES 0
#include <GL/gl.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "app/palette.h"
#include "app/viewer.h"
#include "app/viewer_util.h"

#ifndef GL_CLAMP_TO_EDGE
#define GL_CLAMP_TO_EDGE 0x812F
#endif

namespace warpsim::viz {
namespace {

// Uploads `rgba` (w x h) into texture `*name` (made on first use).
void Upload(unsigned* name, uint32_t w, uint32_t h,
            const std::vector<uint8_t>& rgba) {
  if (*name == 0) {
    GLuint t = 0;
    glGenTextures(1, &t);
    *name = t;
  }
  glBindTexture(GL_TEXTURE_2D, *name);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, static_cast<GLsizei>(w),
               static_cast<GLsizei>(h), 0, GL_RGBA, GL_UNSIGNED_BYTE,
               rgba.data());
}

// The overlay's colour at a value: categories (SM, warp) cycle through a
// palette, quantities go through viridis.
ImU32 OverlayColor(Overlay o, double v, double max) {
  if (o == Overlay::kSm || o == Overlay::kWarp) {
    return CycleColor(static_cast<uint64_t>(v));
  }
  if (o == Overlay::kQuadCoverage) return Viridis((v - 1) / 3.0);
  return Viridis(max > 0 ? v / max : 0);
}

}  // namespace

void Viewer::DrawFramebuffer() {
  EnsurePixels();
  const trace::Trace& t = data_.trace;
  if (data_.images.empty() && t.quads.empty()) {
    ImGui::TextDisabled(data_.finished
                            ? "no colour attachment and no fragment warps"
                            : "the image comes when the run finishes");
  }
  // Controls: image, overlay, draw.
  if (!data_.images.empty()) {
    ImGui::SetNextItemWidth(140);
    if (ImGui::BeginCombo(
            "image", data_.images[std::min(image_, data_.images.size() - 1)]
                         .name.c_str())) {
      for (size_t i = 0; i < data_.images.size(); ++i) {
        if (ImGui::Selectable(data_.images[i].name.c_str(), i == image_)) {
          image_ = i;
          stale_pixels_ = true;
        }
      }
      ImGui::EndCombo();
    }
    ImGui::SameLine();
  }
  ImGui::SetNextItemWidth(140);
  if (ImGui::BeginCombo("overlay",
                        std::string(OverlayName(overlay_)).c_str())) {
    for (int o = 0; o < static_cast<int>(Overlay::kCount); ++o) {
      const auto ov = static_cast<Overlay>(o);
      if (ImGui::Selectable(std::string(OverlayName(ov)).c_str(),
                            ov == overlay_)) {
        overlay_ = ov;
      }
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "sm: the SM that shaded the pixel; warp: its fragment warp; "
        "quad_coverage: covered lanes of its quad (of 4); helpers: times it "
        "ran as a helper lane; instructions / cycles: its warp's, per "
        "covered lane; overdraw: times it was covered");
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(100);
  ImGui::SliderFloat("opacity", &overlay_alpha_, 0.0f, 1.0f, "%.2f");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(180);
  const std::string run_label =
      pixel_run_ == PixelMap::kAllRuns
          ? std::string("all draws")
          : (pixel_run_ < t.runs.size() ? t.runs[pixel_run_].name : "?");
  if (ImGui::BeginCombo("draw", run_label.c_str())) {
    if (ImGui::Selectable("all draws", pixel_run_ == PixelMap::kAllRuns)) {
      pixel_run_ = PixelMap::kAllRuns;
      stale_pixels_ = true;
    }
    for (uint32_t r = 0; r < t.runs.size(); ++r) {
      if (t.runs[r].name.rfind("draw", 0) != 0) continue;
      if (ImGui::Selectable(t.runs[r].name.c_str(), r == pixel_run_)) {
        pixel_run_ = r;
        stale_pixels_ = true;
      }
    }
    ImGui::EndCombo();
  }

  const uint32_t w = pixels_.width(), h = pixels_.height();
  if (w == 0 || h == 0) return;
  // Textures: the image, and the overlay made on the CPU when the data or
  // the overlay changes.
  const uint64_t stamp =
      pixels_stamp_ * 64 + static_cast<uint64_t>(overlay_) * 2;
  if (texture_stamp_ != stamp || texture_image_ != static_cast<int>(image_)) {
    texture_stamp_ = stamp;
    texture_image_ = static_cast<int>(image_);
    std::vector<uint8_t> base(size_t{w} * h * 4, 0);
    if (image_ < data_.images.size() && data_.images[image_].width == w &&
        data_.images[image_].height == h) {
      base = data_.images[image_].rgba;
    }
    Upload(&texture_, w, h, base);
    std::vector<uint8_t> over(size_t{w} * h * 4, 0);
    if (overlay_ != Overlay::kNone) {
      const double max = pixels_.Max(overlay_);
      for (uint32_t y = 0; y < h; ++y) {
        for (uint32_t x = 0; x < w; ++x) {
          const auto v = pixels_.Value(overlay_, x, y);
          if (!v) continue;
          const ImU32 c = OverlayColor(overlay_, *v, max);
          uint8_t* p = &over[(size_t{y} * w + x) * 4];
          p[0] = (c >> IM_COL32_R_SHIFT) & 0xff;
          p[1] = (c >> IM_COL32_G_SHIFT) & 0xff;
          p[2] = (c >> IM_COL32_B_SHIFT) & 0xff;
          p[3] = 255;
        }
      }
    }
    Upload(&overlay_texture_, w, h, over);
  }
  // Scale to fit the space left of the pixel panel.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float panel = 320.0f;
  const float scale =
      std::max(0.1f, std::min((avail.x - panel) / static_cast<float>(w),
                              (avail.y - 30) / static_cast<float>(h)));
  const ImVec2 size(static_cast<float>(w) * scale,
                    static_cast<float>(h) * scale);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(texture_)),
               p0, ImVec2(p0.x + size.x, p0.y + size.y));
  if (overlay_ != Overlay::kNone) {
    dl->AddImage(
        reinterpret_cast<ImTextureID>(static_cast<intptr_t>(overlay_texture_)),
        p0, ImVec2(p0.x + size.x, p0.y + size.y), ImVec2(0, 0), ImVec2(1, 1),
        IM_COL32(255, 255, 255, static_cast<int>(overlay_alpha_ * 255)));
  }
  ImGui::InvisibleButton("image", size);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const int mx = static_cast<int>((mouse.x - p0.x) / scale);
  const int my = static_cast<int>((mouse.y - p0.y) / scale);
  const bool inside = ImGui::IsItemHovered() && mx >= 0 && my >= 0 &&
                      mx < static_cast<int>(w) && my < static_cast<int>(h);
  if (inside) {
    ImGui::BeginTooltip();
    ImGui::Text("pixel (%d, %d)", mx, my);
    const auto v = pixels_.Value(overlay_, static_cast<uint32_t>(mx),
                                 static_cast<uint32_t>(my));
    if (v) {
      ImGui::Text("%s: %.2f", std::string(OverlayName(overlay_)).c_str(), *v);
    } else {
      ImGui::TextDisabled("not shaded");
    }
    ImGui::EndTooltip();
    if (ImGui::IsItemClicked()) {
      pick_x_ = mx;
      pick_y_ = my;
    }
  }
  // The picked pixel's warp: outline its quads.
  const PixelInfo* pick = nullptr;
  if (pick_x_ >= 0 && pick_y_ >= 0 && static_cast<uint32_t>(pick_x_) < w &&
      static_cast<uint32_t>(pick_y_) < h) {
    pick = &pixels_.at(static_cast<uint32_t>(pick_x_),
                       static_cast<uint32_t>(pick_y_));
    dl->AddRect(
        ImVec2(p0.x + pick_x_ * scale, p0.y + pick_y_ * scale),
        ImVec2(p0.x + (pick_x_ + 1) * scale, p0.y + (pick_y_ + 1) * scale),
        IM_COL32(255, 255, 255, 255), 0, 0, 2);
  }
  std::vector<uint32_t> warp_quads;
  uint32_t span = ~0u;
  if (pick != nullptr && pick->quad != PixelInfo::kNone) {
    span = pixels_.SpanOf(pick->quad);
    warp_quads = pixels_.QuadsOfWarp(t.quads[pick->quad].warp);
    for (uint32_t q : warp_quads) {
      const trace::QuadRecord& quad = t.quads[q];
      dl->AddRect(
          ImVec2(p0.x + quad.x * scale, p0.y + quad.y * scale),
          ImVec2(p0.x + (quad.x + 2) * scale, p0.y + (quad.y + 2) * scale),
          q == pick->quad ? IM_COL32(255, 255, 0, 255)
                          : IM_COL32(255, 255, 255, 180));
    }
  }
  // The panel: legend and the picked pixel.
  ImGui::SetCursorScreenPos(ImVec2(p0.x + size.x + 12, p0.y));
  ImGui::BeginChild("pixel", ImVec2(panel - 16, 0));
  if (overlay_ != Overlay::kNone && overlay_ != Overlay::kSm &&
      overlay_ != Overlay::kWarp) {
    const double max =
        overlay_ == Overlay::kQuadCoverage ? 4 : pixels_.Max(overlay_);
    ImGui::Text("%s", std::string(OverlayName(overlay_)).c_str());
    ImDrawList* pl = ImGui::GetWindowDrawList();
    const ImVec2 q = ImGui::GetCursorScreenPos();
    for (int i = 0; i < 100; ++i) {
      pl->AddRectFilled(ImVec2(q.x + i * 2.0f, q.y),
                        ImVec2(q.x + i * 2.0f + 2, q.y + 10),
                        Viridis(i / 99.0));
    }
    ImGui::Dummy(ImVec2(200, 12));
    ImGui::Text("%s .. %.1f", overlay_ == Overlay::kQuadCoverage ? "1" : "0",
                max);
  }
  ImGui::Separator();
  if (pick == nullptr) {
    ImGui::TextWrapped("Click a pixel: its quad, its warp, the SM.");
  } else {
    ImGui::Text("pixel (%d, %d): covered %u times, helper %u times", pick_x_,
                pick_y_, pick->covered, pick->helper);
    if (pick->quad != PixelInfo::kNone) {
      const trace::QuadRecord& quad = t.quads[pick->quad];
      ImGui::Text("quad at (%d, %d), primitive %u, coverage %u of 4", quad.x,
                  quad.y, quad.primitive, __builtin_popcount(quad.coverage));
      if (span < t.warps.size()) {
        const trace::WarpSpan& ws = t.warps[span];
        ImGui::Text("SM %u, sub-partition %u, slot %u", ws.sm, ws.sub_partition,
                    ws.slot);
        WarpTooltip(t, ws, 1.0f);
        // Its stalls, from the instruction events.
        trace::StallCounts stalls{};
        uint64_t from = ws.begin;
        for (const trace::InstructionEvent& e : t.instructions) {
          if (e.warp != ws.warp || e.cycle < from) continue;
          const uint64_t ready = std::clamp(e.ready, from, e.cycle);
          stalls[static_cast<size_t>(e.waited)] += ready - from;
          stalls[static_cast<size_t>(trace::StallReason::kNotSelected)] +=
              e.cycle - ready;
          stalls[0] += 1;
          from = e.cycle + 1;
        }
        for (size_t r = 0; r < stalls.size(); ++r) {
          if (stalls[r] == 0) continue;
          ImGui::Text("  %s: %llu cycles",
                      std::string(trace::StallReasonName(
                                      static_cast<trace::StallReason>(r)))
                          .c_str(),
                      static_cast<unsigned long long>(stalls[r]));
        }
      }
      ImGui::Text("its warp's %zu quads:", warp_quads.size());
      for (uint32_t q : warp_quads) {
        const trace::QuadRecord& o = t.quads[q];
        ImGui::BulletText("(%d, %d) primitive %u, %u covered", o.x, o.y,
                          o.primitive, __builtin_popcount(o.coverage));
      }
    }
  }
  ImGui::EndChild();
}

void Viewer::DrawShader() {
  EnsureProfile();
  const trace::Trace& t = data_.trace;
  if (t.shaders.empty()) {
    ImGui::TextDisabled("no shaders in this trace (it needs detail warps)");
    return;
  }
  shader_ = std::min(shader_, t.shaders.size() - 1);
  ImGui::SetNextItemWidth(420);
  if (ImGui::BeginCombo("shader", t.shaders[shader_].name.c_str())) {
    for (size_t s = 0; s < t.shaders.size(); ++s) {
      if (ImGui::Selectable(t.shaders[s].name.c_str(), s == shader_)) {
        shader_ = s;
        shader_chosen_ = true;
      }
    }
    ImGui::EndCombo();
  }
  if (t.instructions.empty()) {
    ImGui::TextDisabled(
        "no instruction events: the costs need --trace-detail instructions "
        "(live mode records them)");
  } else if (t.instructions_truncated) {
    ImGui::TextDisabled(
        "instruction events stop at %llu (max_instruction_events)",
        static_cast<unsigned long long>(t.max_instruction_events));
  }
  LegendItem(IM_COL32(213, 94, 0, 120), "divergent branch");
  LegendItem(IM_COL32(0, 114, 178, 120), "uniform branch");
  const trace::ShaderInfo& info = t.shaders[shader_];
  const bool has_source = !info.source.empty();
  if (has_source) {
    ImGui::Checkbox("by GLSL line", &by_source_line_);
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip(
          "Each GLSL line with the costs of the instructions made from it "
          "(OpLine)");
    }
  } else {
    ImGui::TextDisabled("(no GLSL lines: the module has no OpLine)");
  }
  if (has_source && by_source_line_) {
    DrawShaderSource(info);
    return;
  }
  const std::vector<InstructionCost> none;
  const std::vector<InstructionCost>& costs =
      shader_ < profile_.shaders.size() ? profile_.shaders[shader_] : none;
  const std::vector<std::string>& lines = t.shaders[shader_].lines;
  if (ImGui::BeginTable("code", 9,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                            ImGuiTableFlags_BordersInnerV |
                            ImGuiTableFlags_Resizable)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    const ImGuiTableColumnFlags fixed = ImGuiTableColumnFlags_WidthFixed;
    ImGui::TableSetupColumn("pc", fixed, 40);
    ImGui::TableSetupColumn("line", fixed, 40);
    ImGui::TableSetupColumn("instruction", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("executions", fixed, 90);
    ImGui::TableSetupColumn("active lanes", fixed, 100);
    ImGui::TableSetupColumn("helper lanes", fixed, 100);
    ImGui::TableSetupColumn("issue cycles", fixed, 100);
    ImGui::TableSetupColumn("stall cycles", fixed, 100);
    ImGui::TableSetupColumn("mostly waiting on", fixed, 150);
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(lines.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const InstructionCost c = static_cast<size_t>(i) < costs.size()
                                      ? costs[i]
                                      : InstructionCost{};
        ImGui::TableNextRow();
        if (c.branch) {
          ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1,
                                 c.divergent > 0 ? IM_COL32(213, 94, 0, 120)
                                                 : IM_COL32(0, 114, 178, 120));
        }
        ImGui::TableNextColumn();
        ImGui::Text("%d", i);
        ImGui::TableNextColumn();
        const uint32_t line = static_cast<size_t>(i) < info.source_lines.size()
                                  ? info.source_lines[i]
                                  : 0;
        if (line != 0) {
          ImGui::Text("%u", line);
          if (line <= info.source.size() && ImGui::IsItemHovered()) {
            ImGui::SetTooltip("%s", info.source[line - 1].c_str());
          }
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(lines[i].c_str());
        if (c.branch && ImGui::IsItemHovered()) {
          ImGui::SetTooltip("%llu of %llu executions divergent",
                            static_cast<unsigned long long>(c.divergent),
                            static_cast<unsigned long long>(c.executions));
        }
        ImGui::TableNextColumn();
        ImGui::Text("%llu", static_cast<unsigned long long>(c.executions));
        ImGui::TableNextColumn();
        ImGui::Text("%.1f", c.mean_active());
        ImGui::TableNextColumn();
        ImGui::Text("%llu", static_cast<unsigned long long>(c.helper_lanes));
        ImGui::TableNextColumn();
        ImGui::Text("%llu", static_cast<unsigned long long>(c.executions));
        ImGui::TableNextColumn();
        ImGui::Text("%llu", static_cast<unsigned long long>(c.stall_cycles()));
        ImGui::TableNextColumn();
        size_t top = 0;
        for (size_t r = 1; r < c.stalls.size(); ++r) {
          if (c.stalls[r] > c.stalls[top] || top == 0) top = r;
        }
        if (top != 0 && c.stalls[top] > 0) {
          ImGui::TextUnformatted(
              std::string(
                  trace::StallReasonName(static_cast<trace::StallReason>(top)))
                  .c_str());
        }
      }
    }
    ImGui::EndTable();
  }
}

void Viewer::DrawShaderSource(const trace::ShaderInfo& info) {
  // Per GLSL line: the instructions made from it and what they cost.
  struct LineCost {
    uint32_t instructions = 0;
    uint64_t executions = 0, active_lanes = 0, stalls = 0;
    bool divergent = false;
  };
  std::vector<LineCost> per_line(info.source.size() + 1);
  const std::vector<InstructionCost> none;
  const std::vector<InstructionCost>& costs =
      shader_ < profile_.shaders.size() ? profile_.shaders[shader_] : none;
  for (size_t pc = 0; pc < info.source_lines.size(); ++pc) {
    const uint32_t line = info.source_lines[pc];
    if (line == 0 || line >= per_line.size()) continue;
    LineCost& l = per_line[line];
    l.instructions += 1;
    if (pc < costs.size()) {
      l.executions += costs[pc].executions;
      l.active_lanes += costs[pc].active_lanes;
      l.stalls += costs[pc].stall_cycles();
      l.divergent |= costs[pc].divergent > 0;
    }
  }
  if (!ImGui::BeginTable("source", 6,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                             ImGuiTableFlags_BordersInnerV |
                             ImGuiTableFlags_Resizable)) {
    return;
  }
  const ImGuiTableColumnFlags fixed = ImGuiTableColumnFlags_WidthFixed;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("line", fixed, 40);
  ImGui::TableSetupColumn("GLSL", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("instructions", fixed, 100);
  ImGui::TableSetupColumn("warp instructions issued", fixed, 180);
  ImGui::TableSetupColumn("active lanes", fixed, 100);
  ImGui::TableSetupColumn("stall cycles", fixed, 100);
  ImGui::TableHeadersRow();
  for (size_t line = 1; line <= info.source.size(); ++line) {
    const LineCost& l = per_line[line];
    ImGui::TableNextRow();
    if (l.divergent) {
      ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1,
                             IM_COL32(213, 94, 0, 120));
    }
    ImGui::TableNextColumn();
    ImGui::Text("%zu", line);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(info.source[line - 1].c_str());
    if (l.instructions == 0) continue;
    ImGui::TableNextColumn();
    ImGui::Text("%u", l.instructions);
    ImGui::TableNextColumn();
    ImGui::Text("%llu", static_cast<unsigned long long>(l.executions));
    ImGui::TableNextColumn();
    ImGui::Text("%.1f", l.executions ? static_cast<double>(l.active_lanes) /
                                           static_cast<double>(l.executions)
                                     : 0.0);
    ImGui::TableNextColumn();
    ImGui::Text("%llu", static_cast<unsigned long long>(l.stalls));
  }
  ImGui::EndTable();
}

}  // namespace warpsim::viz
