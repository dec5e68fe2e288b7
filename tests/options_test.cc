#include <gtest/gtest.h>

#include "memrep/sorted_hash.h"

namespace memrep {
namespace {

TEST(SortedHashOptions, DefaultsAreValidAndSizedFromTheWriteBuffer) {
  SortedHashOptions o;
  EXPECT_TRUE(o.Validate().ok());
  EXPECT_EQ(o.EffectiveBucketCount(), uint64_t{1} << 18);  // 64 MiB / 256
  o.write_buffer_size = uint64_t{256} << 20;
  EXPECT_EQ(o.EffectiveBucketCount(), uint64_t{1} << 20);
  o.bucket_count = 1000;
  EXPECT_EQ(o.EffectiveBucketCount(), 1024u);
  o.bucket_count = 5000;
  EXPECT_EQ(o.EffectiveBucketCount(), 8192u);
}

TEST(SortedHashOptions, SetParsesAndRefusesWithClearMessages) {
  SortedHashOptions o;
  EXPECT_TRUE(o.Set("bucket_count", "4096").ok());
  EXPECT_EQ(o.bucket_count, 4096u);
  EXPECT_TRUE(o.Set("max_runs", "4").ok());
  EXPECT_EQ(o.max_runs, 4u);

  Status s = o.Set("bucket_count", "lots");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("not a non-negative decimal number"), std::string::npos);
  s = o.Set("bucket_count", "-1");
  EXPECT_TRUE(s.IsInvalidArgument());
  s = o.Set("bucket_count", "");
  EXPECT_TRUE(s.IsInvalidArgument());
  s = o.Set("bucket_count", "99999999999999");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("out of range"), std::string::npos);
  s = o.Set("seal_threshold", "0");
  EXPECT_TRUE(s.IsInvalidArgument());
  s = o.Set("max_runs", "99999999999");
  EXPECT_TRUE(s.IsInvalidArgument());
  s = o.Set("write_buffer_size", "12");
  EXPECT_TRUE(s.IsInvalidArgument());
  s = o.Set("bucket_count", "0");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("'auto'"), std::string::npos);
  s = o.Set("buckets", "4");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("unknown sorted hash option 'buckets'"), std::string::npos);
  // A refused value leaves the options as they were.
  EXPECT_EQ(o.bucket_count, 4096u);
  EXPECT_EQ(o.max_runs, 4u);
  EXPECT_TRUE(o.Validate().ok());
}

TEST(SortedHashOptions, ToStringNamesEveryField) {
  SortedHashOptions o;
  o.bucket_count = 77;
  const std::string s = o.ToString();
  SortedHashOptions parsed;
  for (const std::string& name : SortedHashOptions::Names()) {
    std::string value;
    ASSERT_TRUE(o.Get(name, &value).ok());
    ASSERT_TRUE(parsed.Set(name, value).ok()) << name << "=" << value;
  }
  EXPECT_EQ(parsed.ToString(), s) << "Get and Set round-trip";
  EXPECT_NE(SortedHashOptions().ToString().find("bucket_count=auto"), std::string::npos);
  for (const char* field :
       {"bucket_count=77", "write_buffer_size=", "seal_threshold=", "background_cut=", "max_runs="}) {
    EXPECT_NE(s.find(field), std::string::npos) << field;
  }
}

}  // namespace
}  // namespace memrep
