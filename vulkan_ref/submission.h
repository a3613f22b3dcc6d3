// One command buffer's worth of device work: a draw or dispatch with its
// uploads, descriptor sets, statistics and timestamp queries and read-back,
// or any other recorded commands (Begin / SubmitAndWait).
#ifndef WARPSIM_VULKAN_REF_SUBMISSION_H_
#define WARPSIM_VULKAN_REF_SUBMISSION_H_

#include <vulkan/vulkan.h>

#include <set>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "scene/scene.h"
#include "vulkan_ref/device.h"
#include "vulkan_ref/pipelines.h"
#include "vulkan_ref/resources.h"
#include "vulkan_ref/vk_runner.h"

namespace warpsim::vkref {

// What a draw or dispatch needs from the scene runner.
class SceneState {
 public:
  virtual ~SceneState() = default;
  virtual const scene::Scene& scene() const = 0;
  // Host bytes of a scene buffer (the truth between commands).
  virtual std::vector<uint8_t>& Bytes(const std::string& name) = 0;
  virtual scene::Buffer ShapeOf(const scene::Buffer& b) const = 0;
  virtual void NoteImageOutput(const std::string& name) = 0;
  virtual Result<VkSampler> Sampler(const std::string& name) = 0;
  virtual Result<const PipelineObjects*> GetPipeline(
      const scene::Pipeline& p, const DrawShape& shape) = 0;
};

class Work {
 public:
  Work(const Device* device, Resources* resources);
  ~Work();
  Work(const Work&) = delete;
  Work& operator=(const Work&) = delete;

  // A command buffer in the recording state.
  Result<VkCommandBuffer> Begin();
  // Ends, submits and waits; then reads back downloads and frees what the
  // commands used.
  Status SubmitAndWait();
  // SubmitAndWait after an error, ignoring its result.
  void Abandon();

  // One run of RUN pipeline DRAW_* / RUN pipeline X Y Z: statistics and
  // GPU time are appended to *rep.
  Status Draw(SceneState& state, const scene::Pipeline& p,
              const scene::RunCommand& run, DeviceDrawReport* rep);
  Status Dispatch(SceneState& state, const scene::Pipeline& p,
                  const scene::RunCommand& run, DeviceDrawReport* rep);
  // --observe: records the observation buffer of the next draws holds
  // (draws whose shaders ask for more come back truncated).
  void set_observe_capacity(uint32_t records) { observe_capacity_ = records; }

 private:
  // Uploads and binds every descriptor of `po`; records read-backs of
  // what the command may write (after the work, in RecordReadBacks).
  Status BindDescriptors(SceneState& state, const scene::Pipeline& p,
                         const PipelineObjects& po, VkPipelineBindPoint point);
  // Binding 0 of `set`: a new observation buffer, read back after the work.
  Status BindObserveBuffer(VkDescriptorSet set);
  Status BindPushConstants(SceneState& state, const scene::Pipeline& p,
                           const PipelineObjects& po);
  Status RecordReadBacks();
  void BeginQueries(VkQueryPipelineStatisticFlags flags);
  void EndQueries();
  void ReadQueries(VkQueryPipelineStatisticFlags flags, DeviceDrawReport* rep);
  Result<DeviceBuffer*> HostBuffer(SceneState& state, const std::string& name);

  const Device* device_;
  Resources* resources_;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool stats_pool_ = VK_NULL_HANDLE;
  VkQueryPool time_pool_ = VK_NULL_HANDLE;
  VkQueryPipelineStatisticFlags pool_flags_ = 0;
  // Per submission.
  std::vector<VkDescriptorPool> descriptor_pools_;
  std::vector<VkBufferView> buffer_views_;
  std::vector<VkFramebuffer> framebuffers_;
  struct ReadBack {
    std::string name;
    bool image = false;
    scene::Buffer shape;  // images
    DeviceBuffer* buffer = nullptr;
    std::vector<uint8_t>* target = nullptr;
    // A device-local buffer's copy in host memory (RecordReadBacks).
    DeviceBuffer* staging = nullptr;
  };
  std::vector<ReadBack> read_backs_;
  std::set<std::string> uploaded_;  // images uploaded in this submission
  uint32_t observe_capacity_ = 1u << 16;
  DeviceBuffer* observe_buffer_ = nullptr;  // of this submission
  std::vector<uint32_t> observe_words_;     // its words after the work
};

}  // namespace warpsim::vkref

#endif  // WARPSIM_VULKAN_REF_SUBMISSION_H_
