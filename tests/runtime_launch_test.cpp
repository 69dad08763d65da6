// The launch description and the cuLaunchKernelEx configuration of a launch with clusters or as a
// programmatic dependent, checked field by field here; tests/gpu/launch_gpu_test.cpp runs them.
#include "tessel/runtime/launch.hpp"

#include <gtest/gtest.h>

#include "tessel/error.hpp"

namespace tessel::runtime {
namespace {

TEST(LaunchShape, HasNoClustersUnlessAsked) {
  LaunchShape shape;
  EXPECT_EQ(shape.cluster, (std::array<unsigned, 3>{1, 1, 1}));
  EXPECT_FALSE(shape.clustered());
  shape.cluster = {1, 2, 1};
  EXPECT_TRUE(shape.clustered());
}

TEST(LaunchShape, GridMustBeAWholeNumberOfClusters) {
  LaunchShape shape;
  shape.grid = {8, 3, 1};
  shape.cluster = {2, 1, 1};
  EXPECT_NO_THROW(shape.check("kernel K"));
  shape.cluster = {2, 2, 1};
  try {
    shape.check("kernel K");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "kernel K: a grid of 8 x 3 x 1 blocks is not a whole number of 2 x 2 x 1 clusters");
  }
}

TEST(LaunchConfig, CarriesTheShapeAndTheClusterDimension) {
  LaunchShape shape;
  shape.grid = {8, 4, 2};
  shape.cluster = {2, 4, 1};
  shape.threads = 256;
  shape.shared_bytes = 100000;
  int stream_tag = 0;
  const auto stream = reinterpret_cast<CUstream>(&stream_tag);
  std::array<CUlaunchAttribute, 2> attributes;
  const CUlaunchConfig c = launch_config(shape, stream, attributes);
  EXPECT_EQ((std::array<unsigned, 3>{c.gridDimX, c.gridDimY, c.gridDimZ}), (std::array<unsigned, 3>{8, 4, 2}));
  EXPECT_EQ((std::array<unsigned, 3>{c.blockDimX, c.blockDimY, c.blockDimZ}), (std::array<unsigned, 3>{256, 1, 1}));
  EXPECT_EQ(c.sharedMemBytes, 100000u);
  EXPECT_EQ(c.hStream, stream);
  ASSERT_EQ(c.numAttrs, 1u);
  EXPECT_EQ(c.attrs, attributes.data());
  EXPECT_EQ(attributes[0].id, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
  EXPECT_EQ(attributes[0].value.clusterDim.x, 2u);
  EXPECT_EQ(attributes[0].value.clusterDim.y, 4u);
  EXPECT_EQ(attributes[0].value.clusterDim.z, 1u);
}

TEST(LaunchConfig, ADependentLaunchAllowsProgrammaticStreamSerialization) {
  LaunchShape shape;
  shape.grid = {132, 1, 1};
  shape.threads = 384;
  shape.dependent = true;
  std::array<CUlaunchAttribute, 2> attributes;
  CUlaunchConfig c = launch_config(shape, nullptr, attributes);
  ASSERT_EQ(c.numAttrs, 1u);
  EXPECT_EQ(attributes[0].id, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
  EXPECT_EQ(attributes[0].value.programmaticStreamSerializationAllowed, 1);
  shape.grid = {132, 2, 1};
  shape.cluster = {1, 2, 1};
  c = launch_config(shape, nullptr, attributes);
  ASSERT_EQ(c.numAttrs, 2u);
  EXPECT_EQ(attributes[0].id, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
  EXPECT_EQ(attributes[0].value.clusterDim.y, 2u);
  EXPECT_EQ(attributes[1].id, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
}

}  // namespace
}  // namespace tessel::runtime
