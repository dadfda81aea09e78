// Every layer kind of the graph's registry has an implementation in each backend, and a kind a
// backend lacks is refused with the layer's name and field, before anything is compiled.
#include "backends/layer_support.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "backends/gpu_library.h"
#include "backends/layer_cases.h"
#include "backends/onednn/build_context.h"
#include "runner/graph/layer_kind.h"

namespace runner {
namespace {

using testing::layer;

void expect_every_kind_in(const std::vector<std::string>& kinds, const std::string& backend) {
  for (const LayerKind& kind : layer_kinds()) {
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), kind.type), kinds.end())
        << backend << " lacks " << kind.type;
  }
}

TEST(LayerSupport, OnednnImplementsEveryKind) {
  expect_every_kind_in(onednn::layer_factories().kinds(), "oneDNN");
}

TEST(LayerSupport, CudnnImplementsEveryKind) {
  auto kinds = gpu_layer_kinds();
  if (!kinds) GTEST_SKIP() << "the GPU backend's library is not loadable here";
  expect_every_kind_in(*kinds, "cuDNN");
}

TEST(LayerSupport, AKindTheBackendLacksIsAUserErrorNamingTheLayer) {
  ModelSpec model;
  model.layers = {layer("a", "relu"), layer("b", "relu", {}, {"input"}),
                  layer("sum", "add", {}, {"a", "b"}), layer("flat", "flatten"),
                  layer("fc", "linear", {{"out_features", 2}})};
  model.layers[2].where = {"x.yaml", "model.layers[2]", 7, 5};
  Graph graph = build_graph(model, Shape{1, 2, 2}, 2);
  try {
    check_layer_support(graph, {"relu", "flatten", "linear"}, "Toy");
    FAIL() << "no error";
  } catch (const UserError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("x.yaml:7:5: model.layers[2].type: layer 'sum' (add) is not implemented "
                           "by the Toy backend"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("it has: relu, flatten, linear"), std::string::npos) << message;
  }
  EXPECT_NO_THROW(check_layer_support(graph, {"relu", "add", "flatten", "linear"}, "Toy"));
}

}  // namespace
}  // namespace runner
