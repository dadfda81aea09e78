// Image decoding: Pillow's own pixels for every PNG mode, JPEG, WebP and BMP
// (tests/data/image_golden.json), round trips through the libraries' encoders, and bad files.
#include "runner/data/image_decode.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "image_writers.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "test_support.h"

namespace runner {
namespace {

using testing::from_hex;
using testing::TempDir;
using testing::test_pixels;

const nlohmann::json& golden() {
  static const nlohmann::json g =
      nlohmann::json::parse(read_file(testing::source_dir() / "tests/data/image_golden.json"));
  return g;
}

std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

Image decode(const std::string& file_bytes, int channels) {
  return decode_image(bytes_of(file_bytes), channels, "test-image");
}

// The message of the UserError reading `file` gives, or "no error".
std::string read_error(const std::filesystem::path& file) {
  try {
    read_image(file, 3);
  } catch (const UserError& error) {
    return error.what();
  }
  return "no error";
}

// "" when equal, else where they first differ.
std::string difference(const std::vector<std::uint8_t>& got,
                       const std::vector<std::uint8_t>& want) {
  if (got.size() != want.size()) {
    return "size " + std::to_string(got.size()) + ", expected " + std::to_string(want.size());
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      return "byte " + std::to_string(i) + ": " + std::to_string(got[i]) + ", expected " +
             std::to_string(want[i]);
    }
  }
  return "";
}

std::uint8_t luma(int r, int g, int b) {  // Pillow's convert('L')
  return static_cast<std::uint8_t>((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16);
}

TEST(ImageDecode, MatchesPillowForEveryModeAndFormat) {
  ASSERT_GE(golden()["decode"].size(), 20u);
  for (const auto& c : golden()["decode"]) {
    const std::string name = c["name"];
    const std::vector<std::uint8_t> file = from_hex(c["file"]);
    for (int channels : {3, 1}) {
      const Image image = decode_image(file, channels, name);
      EXPECT_EQ(image.height, c["height"]) << name;
      EXPECT_EQ(image.width, c["width"]) << name;
      EXPECT_EQ(difference(image.pixels, from_hex(c[channels == 3 ? "rgb" : "l"])), "")
          << name << " (Pillow mode " << c["mode"] << "), " << channels << " channels";
    }
  }
}

TEST(ImageDecode, GrayIsPillowsConvertL) {
  const auto& g = golden()["gray"];
  const int width = g["width"];
  const std::vector<std::uint8_t> planar = from_hex(g["rgb"]);
  std::vector<std::uint16_t> rgb;
  for (int x = 0; x < width; ++x) {
    for (int c = 0; c < 3; ++c) rgb.push_back(planar[c * width + x]);
  }
  const Image image = decode(testing::png_file(width, 1, 2, 8, rgb), 1);
  EXPECT_EQ(difference(image.pixels, from_hex(g["l"])), "");
}

// What the runner must make of PNG samples (the rules image_png.cpp states, checked here
// independently of the golden file): interleaved RGB or gray of 8 bits.
std::vector<std::uint8_t> expected_rgb(int color_type, int depth,
                                       const std::vector<std::uint16_t>& s,
                                       const std::vector<std::array<std::uint8_t, 3>>& palette,
                                       std::size_t pixels) {
  static const int per_pixel[] = {1, 0, 3, 1, 2, 0, 4};
  std::vector<std::uint8_t> out;
  for (std::size_t p = 0; p < pixels; ++p) {
    const std::uint16_t* v = &s[p * per_pixel[color_type]];
    auto reduce = [&](std::uint16_t x) -> std::uint8_t {
      if (depth == 16) return color_type == 0 ? std::min<int>(x, 255) : x >> 8;
      return static_cast<std::uint8_t>(x * 255 / ((1 << depth) - 1));
    };
    if (color_type == 3) {
      out.insert(out.end(), palette[v[0]].begin(), palette[v[0]].end());
    } else if (color_type == 0 || color_type == 4) {
      out.insert(out.end(), 3, reduce(v[0]));
    } else {
      for (int c = 0; c < 3; ++c) out.push_back(reduce(v[c]));
    }
  }
  return out;
}

std::vector<std::uint8_t> to_planar(const std::vector<std::uint8_t>& rgb, int channels) {
  const std::size_t n = rgb.size() / 3;
  std::vector<std::uint8_t> out(n * channels);
  for (std::size_t i = 0; i < n; ++i) {
    if (channels == 1) out[i] = luma(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
    for (int c = 0; c < 3 && channels == 3; ++c) out[c * n + i] = rgb[3 * i + c];
  }
  return out;
}

TEST(ImageDecode, PngRoundTripEveryModeAndSize) {
  struct Mode {
    int color_type, depth;
  };
  const Mode modes[] = {{0, 1},  {0, 2}, {0, 4},  {0, 8}, {0, 16}, {4, 8}, {4, 16}, {2, 8},
                        {2, 16}, {6, 8}, {6, 16}, {3, 1}, {3, 2},  {3, 4}, {3, 8}};
  std::uint32_t seed = 0;
  for (auto [height, width] : {std::pair{1, 1}, {5, 7}, {17, 33}}) {
    for (const Mode& m : modes) {
      static const int per_pixel[] = {1, 0, 3, 1, 2, 0, 4};
      const std::size_t pixels = static_cast<std::size_t>(height) * width;
      std::vector<std::uint16_t> samples(pixels * per_pixel[m.color_type]);
      const auto noise = test_pixels(samples.size() * 2, ++seed);
      for (std::size_t i = 0; i < samples.size(); ++i) {
        samples[i] = static_cast<std::uint16_t>((noise[2 * i] << 8 | noise[2 * i + 1]) %
                                                (1 << std::min(m.depth, 16)));
      }
      std::vector<std::array<std::uint8_t, 3>> palette;
      if (m.color_type == 3) {
        const auto colours = test_pixels(3 << m.depth, ++seed);
        for (int i = 0; i < 1 << m.depth; ++i) {
          palette.push_back({colours[3 * i], colours[3 * i + 1], colours[3 * i + 2]});
        }
      }
      const std::string png =
          testing::png_file(width, height, m.color_type, m.depth, samples, palette);
      const auto rgb = expected_rgb(m.color_type, m.depth, samples, palette, pixels);
      for (int channels : {3, 1}) {
        const Image image = decode(png, channels);
        EXPECT_EQ(difference(image.pixels, to_planar(rgb, channels)), "")
            << "color type " << m.color_type << ", " << m.depth << " bits, " << width << "x"
            << height << ", " << channels << " channels";
      }
    }
  }
}

TEST(ImageDecode, InterlacedPngRoundTrip) {
  for (auto [color_type, depth] : {std::pair{2, 8}, {0, 4}, {6, 16}}) {
    const int per_pixel = color_type == 2 ? 3 : color_type == 0 ? 1 : 4;
    const auto noise = testing::test_pixels(13 * 9 * per_pixel, color_type + depth);
    std::vector<std::uint16_t> samples;
    for (std::uint8_t v : noise) samples.push_back(depth == 16 ? v * 257 : v % (1 << depth));
    const std::string png = testing::png_file(13, 9, color_type, depth, samples, {}, true);
    ASSERT_EQ(png[28], 1) << "the header says Adam7";
    const auto rgb = expected_rgb(color_type, depth, samples, {}, 13 * 9);
    EXPECT_EQ(difference(decode(png, 3).pixels, to_planar(rgb, 3)), "")
        << "color type " << color_type << ", " << depth << " bits";
  }
}

// A smooth picture (lossy codecs keep it within a few levels): interleaved, `components` bands.
std::vector<std::uint8_t> smooth(int height, int width, int components) {
  std::vector<std::uint8_t> out;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < components; ++c) {
        out.push_back(static_cast<std::uint8_t>(20 + 4 * x + 3 * y + 40 * c));  // at most 205
      }
    }
  }
  return out;
}

int max_difference(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  int worst = a.size() == b.size() ? 0 : 256;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  return worst;
}

TEST(ImageDecode, JpegGrayAndRgbCloseToWhatWasEncoded) {
  const auto gray = smooth(12, 16, 1);
  const Image g = decode(testing::jpeg_file(16, 12, 1, gray, 100), 1);
  EXPECT_LE(max_difference(g.pixels, gray), 1);
  const auto rgb = smooth(12, 16, 3);
  const Image c = decode(testing::jpeg_file(16, 12, 3, rgb, 100), 3);
  EXPECT_LE(max_difference(c.pixels, to_planar(rgb, 3)), 4);
  const Image c1 = decode(testing::jpeg_file(16, 12, 3, rgb, 100), 1);
  EXPECT_LE(max_difference(c1.pixels, to_planar(rgb, 1)), 4);
}

TEST(ImageDecode, JpegCmykBecomesRgbAsInPillow) {
  // libjpeg writes CMYK with Adobe's marker, inverted: the runner reads it back as Pillow would.
  const auto cmyk = smooth(8, 8, 4);
  const Image image = decode(testing::jpeg_file(8, 8, 4, cmyk, 100), 3);
  std::vector<std::uint8_t> rgb;
  for (std::size_t i = 0; i < cmyk.size(); i += 4) {
    // Pillow takes the samples as inverted (255 - s), then nk = 255 - (255 - k) = k.
    const int nk = cmyk[i + 3];
    for (int c = 0; c < 3; ++c) {
      rgb.push_back(static_cast<std::uint8_t>(nk - (255 - cmyk[i + c]) * nk / 255));
    }
  }
  EXPECT_LE(max_difference(image.pixels, to_planar(rgb, 3)), 4);
}

TEST(ImageDecode, WebpLosslessIsExactAndAlphaIsDropped) {
  const auto rgb = test_pixels(9 * 5 * 3, 7);
  EXPECT_EQ(difference(decode(testing::webp_file(9, 5, 3, rgb, true), 3).pixels, to_planar(rgb, 3)),
            "");
  auto rgba = test_pixels(9 * 5 * 4, 8);
  std::vector<std::uint8_t> without_alpha;
  for (std::size_t i = 0; i < rgba.size(); i += 4) {
    rgba[i + 3] = static_cast<std::uint8_t>(1 + i % 255);  // not 0: libwebp may change those
    without_alpha.insert(without_alpha.end(), &rgba[i], &rgba[i + 3]);
  }
  const Image image = decode(testing::webp_file(9, 5, 4, rgba, true), 3);
  EXPECT_EQ(difference(image.pixels, to_planar(without_alpha, 3)), "");
  const Image gray = decode(testing::webp_file(9, 5, 4, rgba, true), 1);
  EXPECT_EQ(difference(gray.pixels, to_planar(without_alpha, 1)), "");
}

TEST(ImageDecode, WebpLossyCloseToWhatWasEncoded) {
  const auto rgb = smooth(16, 16, 3);
  const Image image = decode(testing::webp_file(16, 16, 3, rgb, false, 100), 3);
  EXPECT_LE(max_difference(image.pixels, to_planar(rgb, 3)), 12);
}

TEST(ImageDecode, Bmp24RoundTripWithRowPadding) {
  for (auto [height, width] : {std::pair{1, 1}, {3, 5}, {2, 4}, {7, 6}}) {
    const auto rgb = test_pixels(static_cast<std::size_t>(height) * width * 3, height * 10 + width);
    const std::string bmp = testing::bmp_file(width, height, rgb);
    EXPECT_EQ(difference(decode(bmp, 3).pixels, to_planar(rgb, 3)), "") << width << "x" << height;
    EXPECT_EQ(difference(decode(bmp, 1).pixels, to_planar(rgb, 1)), "") << width << "x" << height;
  }
}

// A negative height in the header means top-down rows: Pillow reads them, and so does the runner
// (it once refused them as "8x-8 pixels: empty"). A top-down file cut short is still truncated.
TEST(ImageDecode, TopDownBmpRowsAreReadTopToBottom) {
  for (auto [height, width] : {std::pair{1, 1}, {3, 5}, {8, 8}}) {
    const auto rgb = test_pixels(static_cast<std::size_t>(height) * width * 3, height + width);
    const std::string bmp = testing::bmp_file(width, height, rgb, /*top_down=*/true);
    const Image image = decode(bmp, 3);
    EXPECT_EQ(image.height, height);
    EXPECT_EQ(difference(image.pixels, to_planar(rgb, 3)), "") << width << "x" << height;
    EXPECT_EQ(difference(decode(bmp, 1).pixels, to_planar(rgb, 1)), "") << width << "x" << height;
  }
  TempDir dir;
  const std::string whole = testing::bmp_file(8, 8, test_pixels(8 * 8 * 3, 1), true);
  testing::write_bytes(dir / "cut.bmp", whole.substr(0, whole.size() - 10));
  EXPECT_NE(read_error(dir / "cut.bmp").find("truncated BMP"), std::string::npos)
      << read_error(dir / "cut.bmp");
}

TEST(ImageDecode, FormatComesFromTheBytesNotTheName) {
  TempDir dir;
  const auto rgb = test_pixels(4 * 3 * 3, 9);
  const std::vector<std::uint16_t> samples(rgb.begin(), rgb.end());
  const auto file = dir.path() / "actually_a_png.JPG";
  testing::write_bytes(file, testing::png_file(4, 3, 2, 8, samples));
  EXPECT_EQ(difference(read_image(file, 3).pixels, to_planar(rgb, 3)), "");
  EXPECT_EQ(sniff_image_format(bytes_of(testing::bmp_file(1, 1, {1, 2, 3}))), ImageFormat::bmp);
  EXPECT_EQ(sniff_image_format(bytes_of(testing::webp_file(1, 1, 3, {1, 2, 3}, true))),
            ImageFormat::webp);
}

TEST(ImageDecode, TruncatedJpegIsAnErrorNamingTheFile) {
  TempDir dir;
  const std::string jpeg = testing::jpeg_file(16, 12, 3, smooth(12, 16, 3), 90);
  testing::write_bytes(dir / "cut.jpg", jpeg.substr(0, jpeg.size() / 2));
  const std::string error = read_error(dir / "cut.jpg");
  EXPECT_NE(error.find((dir / "cut.jpg").string()), std::string::npos) << error;
  EXPECT_NE(error.find("truncated JPEG"), std::string::npos) << error;
  // Only the end-of-image marker missing: Pillow calls that truncated too.
  testing::write_bytes(dir / "no_eoi.jpg", jpeg.substr(0, jpeg.size() - 2));
  EXPECT_NE(read_error(dir / "no_eoi.jpg").find("truncated JPEG"), std::string::npos);
}

// The bytes are described, never echoed: a listed path may name a secret.
TEST(ImageDecode, NotAnImageIsDescribedWithoutItsBytes) {
  TempDir dir;
  const auto text = dir.write("notes.png", "hello, I am text");
  EXPECT_EQ(read_error(text),
            text.string() + ": not an image (no known signature: expected PNG, JPEG, WebP or BMP)");
  const auto binary = dir.write("icon.png", std::string("\0\0\1\0\1\0", 6));
  EXPECT_EQ(read_error(binary).find("\\x00"), std::string::npos);
  const auto empty = dir.write("empty.jpg", "");
  EXPECT_EQ(read_error(empty), empty.string() +
                                   ": empty file (0 bytes), expected an image (PNG, "
                                   "JPEG, WebP or BMP)");
}

TEST(ImageDecode, TruncatedPngWebpAndBmpAreErrors) {
  TempDir dir;
  const auto rgb = test_pixels(20 * 20 * 3, 3);
  const std::vector<std::uint16_t> samples(rgb.begin(), rgb.end());
  const std::string files[] = {testing::png_file(20, 20, 2, 8, samples),
                               testing::webp_file(20, 20, 3, rgb, true),
                               testing::bmp_file(20, 20, rgb)};
  const char* names[] = {"cut.png", "cut.webp", "cut.bmp"};
  for (int i = 0; i < 3; ++i) {
    testing::write_bytes(dir / names[i], files[i].substr(0, files[i].size() * 2 / 3));
    const std::string error = read_error(dir / names[i]);
    EXPECT_NE(error.find((dir / names[i]).string() + ": "), std::string::npos) << error;
    const bool says_why = error.find("truncated") != std::string::npos ||
                          error.find("not a valid") != std::string::npos;
    EXPECT_TRUE(says_why) << error;
  }
  EXPECT_NE(read_error(dir / "cut.bmp").find("truncated BMP"), std::string::npos);
  EXPECT_NE(read_error(dir / "cut.webp").find("truncated WebP"), std::string::npos);
  EXPECT_NE(read_error(dir / "cut.png").find("truncated PNG"), std::string::npos);
}

// A 1x1 PNG whose header claims width x height (CRC recomputed).
using testing::png_claiming;

TEST(ImageDecode, AbsurdSizesAreRefusedBeforeDecoding) {
  TempDir dir;
  testing::write_bytes(dir / "wide.png", png_claiming(20000, 10));
  EXPECT_NE(read_error(dir / "wide.png").find("PNG image of 20000x10 pixels: larger than"),
            std::string::npos)
      << read_error(dir / "wide.png");
  testing::write_bytes(dir / "bomb.png", png_claiming(16000, 16000));  // 256 M pixels
  EXPECT_NE(read_error(dir / "bomb.png").find("16000x16000"), std::string::npos);
  std::string jpeg = testing::jpeg_file(1, 1, 1, {0}, 90);
  const std::size_t sof = jpeg.find("\xff\xc0");
  ASSERT_NE(sof, std::string::npos);
  jpeg[sof + 5] = '\x4e', jpeg[sof + 6] = '\x20';  // height 20000
  testing::write_bytes(dir / "tall.jpg", jpeg);
  EXPECT_NE(read_error(dir / "tall.jpg").find("JPEG image of 1x20000 pixels"), std::string::npos)
      << read_error(dir / "tall.jpg");
}

// Issue 36: a 1.4 MB 16-bit RGBA PNG of 16384x10922 pixels, under the pixel cap, took 1.9 GB and
// 12 s per worker. Its header alone now says what decoding it would hold, and that is refused.
TEST(ImageDecode, AnImageWhoseDecodingExceedsMaxImageBytesIsRefusedBeforeDecoding) {
  TempDir dir;
  testing::write_bytes(dir / "bomb.png", png_claiming(16384, 10922, 6, 16));
  const std::string error = read_error(dir / "bomb.png");
  for (const std::string& part : std::vector<std::string>{
           (dir / "bomb.png").string() + ": PNG image of 16384x10922 pixels needs ", " bytes (",
           "more than dataset.max_image_bytes (536870912 bytes); raise "
           "dataset.max_image_bytes to read it"}) {
    EXPECT_NE(error.find(part), std::string::npos) << error;
  }
}

TEST(ImageDecode, EveryFormatCountsItsDecodingAgainstTheLimit) {
  const auto rgb = test_pixels(64 * 64 * 3, 7);
  const std::string files[] = {
      testing::png_file(64, 64, 2, 8, std::vector<std::uint16_t>(rgb.begin(), rgb.end())),
      testing::jpeg_file(64, 64, 3, rgb, 90), testing::webp_file(64, 64, 3, rgb, true),
      testing::bmp_file(64, 64, rgb)};
  for (const std::string& file : files) {
    // 64 x 64 pixels: at least 4096 x (3 decoded + 3 bands + 1 channel) bytes.
    std::string error = "no error";
    try {
      decode_image(bytes_of(file), 1, "small.img", 28'000);
    } catch (const UserError& e) {
      error = e.what();
    }
    EXPECT_NE(error.find("small.img: "), std::string::npos) << error;
    EXPECT_NE(error.find(" image of 64x64 pixels needs "), std::string::npos) << error;
    EXPECT_NE(error.find("dataset.max_image_bytes (28000 bytes)"), std::string::npos) << error;
    EXPECT_EQ(decode_image(bytes_of(file), 1, "small.img", 100'000).pixels.size(), 64u * 64u);
  }
}

TEST(ImageDecode, MissingFilesAndFoldersAreErrors) {
  TempDir dir;
  EXPECT_EQ(read_error(dir / "gone.png"),
            (dir / "gone.png").string() + ": cannot open: No such file or directory");
  std::filesystem::create_directories(dir / "folder.png");
  EXPECT_EQ(read_error(dir / "folder.png"),
            (dir / "folder.png").string() + ": a folder, expected an image");
}

}  // namespace
}  // namespace runner
