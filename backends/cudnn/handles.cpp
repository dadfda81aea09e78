// Creation and release of streams, library handles, events and CUDA graphs.
#include "backends/cudnn/handles.h"

#include "backends/cudnn/cuda_check.h"
#include "runner/util/errors.h"

namespace runner::cudnn {

DeviceSelection::DeviceSelection(int d) : device(d) {
  CUDA_CHECK(cudaSetDevice(d));
}

LibraryHandles::LibraryHandles() {
  try {
    CUDA_CHECK(cudaStreamCreateWithFlags(&libs_.stream, cudaStreamNonBlocking));
    CUDNN_CHECK(cudnnCreate(&libs_.cudnn));
    CUDNN_CHECK(cudnnSetStream(libs_.cudnn, libs_.stream));
    CUBLAS_CHECK(cublasCreate(&libs_.cublas));
    CUBLAS_CHECK(cublasSetStream(libs_.cublas, libs_.stream));
  } catch (...) {
    release();
    throw;
  }
}

LibraryHandles::~LibraryHandles() {
  release();
}

void LibraryHandles::release() {
  if (libs_.cublas) cublasDestroy(libs_.cublas);
  if (libs_.cudnn) cudnnDestroy(libs_.cudnn);
  if (libs_.stream) cudaStreamDestroy(libs_.stream);
  libs_ = {};
}

CudaStream::CudaStream() {
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}
CudaStream::~CudaStream() {
  cudaStreamDestroy(stream_);
}

CudaEvent::CudaEvent() {
  CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
}
CudaEvent::~CudaEvent() {
  cudaEventDestroy(event_);
}

CapturedGraph::~CapturedGraph() {
  if (exec_) cudaGraphExecDestroy(exec_);
  if (graph_) cudaGraphDestroy(graph_);
}

void CapturedGraph::capture(cudaStream_t stream, const std::function<void()>& enqueue) {
  // Thread-local mode: another thread's unrelated CUDA calls do not break the capture.
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    enqueue();
  } catch (...) {
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream, &partial);  // leave the stream usable
    if (partial) cudaGraphDestroy(partial);
    cudaGetLastError();
    throw;
  }
  cudaError_t status = cudaStreamEndCapture(stream, &graph_);
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw LibraryError(std::string("capturing the training step as a CUDA graph failed: ") +
                       cudaGetErrorString(status) +
                       " (--set backend.cuda_graph=false runs the step without a graph)");
  }
  status = cudaGraphInstantiate(&exec_, graph_, 0);
  if (status != cudaSuccess) {
    cudaGraphDestroy(graph_);  // the next step captures again
    graph_ = nullptr;
    exec_ = nullptr;
    CUDA_CHECK(status);
  }
}

void CapturedGraph::launch(cudaStream_t stream) const {
  CUDA_CHECK(cudaGraphLaunch(exec_, stream));
}

}  // namespace runner::cudnn
