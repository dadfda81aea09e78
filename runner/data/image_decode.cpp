// Image files: reading the bytes, telling the format by its magic bytes, dispatching to the
// format's decoder and converting its interleaved gray or RGB to planar `channels` as Pillow.
#include "runner/data/image_decode.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <system_error>

#include "runner/data/image_color.h"
#include "runner/data/image_decoders.h"
#include "runner/util/errors.h"

namespace runner {

namespace image_detail {

void throw_bad_image(const std::filesystem::path& file, const std::string& why) {
  throw UserError(fmt::format("{}: {}", file.string(), why));
}

void check_image_size(std::int64_t width, std::int64_t height, std::string_view format,
                      const std::filesystem::path& file) {
  if (width <= 0 || height <= 0) {
    throw_bad_image(file, fmt::format("{} image of {}x{} pixels: empty", format, width, height));
  }
  if (width > max_image_side || height > max_image_side || width * height > max_image_pixels) {
    throw_bad_image(file, fmt::format("{} image of {}x{} pixels: larger than the runner decodes "
                                      "({} pixels per side, {} in all)",
                                      format, width, height, max_image_side, max_image_pixels));
  }
}

void check_decoding_bytes(const DecodeCost& cost, const DecodeBudget& budget,
                          const std::filesystem::path& file) {
  const auto pixels =
      static_cast<std::uint64_t>(cost.width) * static_cast<std::uint64_t>(cost.height);
  const std::uint64_t bytes = cost.file_bytes + cost.decoder_bytes +
                              pixels * static_cast<unsigned>(cost.bands + budget.channels);
  if (bytes <= static_cast<std::uint64_t>(budget.max_bytes)) return;
  throw_bad_image(file, fmt::format("{} image of {}x{} pixels needs {} bytes ({:.1f} MiB) to "
                                    "decode, more than dataset.max_image_bytes ({} bytes); "
                                    "raise dataset.max_image_bytes to read it",
                                    cost.format, cost.width, cost.height, bytes,
                                    static_cast<double>(bytes) / (1 << 20), budget.max_bytes));
}

}  // namespace image_detail

namespace {

namespace fs = std::filesystem;
using image_detail::DecodedPixels;

bool starts_with(std::span<const std::uint8_t> bytes, std::string_view magic, std::size_t at = 0) {
  return bytes.size() >= at + magic.size() &&
         std::memcmp(bytes.data() + at, magic.data(), magic.size()) == 0;
}

// The bytes are described, never echoed: a path in a list may name any file (a secret's first
// bytes would be printed).
[[noreturn]] void throw_not_an_image(std::span<const std::uint8_t> bytes, const fs::path& file) {
  if (bytes.empty()) {
    image_detail::throw_bad_image(file,
                                  "empty file (0 bytes), expected an image (PNG, JPEG, "
                                  "WebP or BMP)");
  }
  image_detail::throw_bad_image(file,
                                "not an image (no known signature: expected PNG, JPEG, WebP or "
                                "BMP)");
}

// (H, W, 1 or 3) -> (channels, H, W); 3 bands to 1 channel as Pillow's convert('L') (ITU-R 601-2
// luma in 16-bit fixed point, rounded: L = (R*19595 + G*38470 + B*7471 + 0x8000) >> 16).
Image to_planar(DecodedPixels&& decoded, int channels) {
  Image image{channels, decoded.height, decoded.width, {}};
  const std::size_t plane = std::size_t{static_cast<unsigned>(image.width)} * image.height;
  const std::uint8_t* in = decoded.data.data();
  if (decoded.bands == 1 && channels == 1) {
    image.pixels = std::move(decoded.data);
    return image;
  }
  image.pixels.resize(plane * channels);
  std::uint8_t* out = image.pixels.data();
  if (decoded.bands == 1) {
    for (int c = 0; c < 3; ++c) std::memcpy(out + c * plane, in, plane);
  } else if (channels == 1) {
    for (std::size_t i = 0; i < plane; ++i, in += 3) {
      out[i] = pillow_luma(in[0], in[1], in[2]);
    }
  } else {
    for (std::size_t i = 0; i < plane; ++i, in += 3) {
      out[i] = in[0], out[plane + i] = in[1], out[2 * plane + i] = in[2];
    }
  }
  return image;
}

// Closes a file descriptor on every way out.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// std::bad_alloc while reading or decoding `file`, as a message naming it.
[[noreturn]] void throw_image_out_of_memory(const fs::path& file, std::size_t file_bytes) {
  throw ImageOutOfMemory(fmt::format(
      "{}: out of memory while decoding it (a file of {} bytes; each decoding worker may hold "
      "up to dataset.max_image_bytes): lower dataset.workers or dataset.max_image_bytes, or "
      "allow the process more memory",
      file.string(), file_bytes));
}

[[noreturn]] void throw_errno(const fs::path& file, const char* what, int error) {
  image_detail::throw_bad_image(
      file, fmt::format("{}: {}", what, std::error_code(error, std::generic_category()).message()));
}

// A regular file of a size the runner reads (a FIFO, which would block, is refused unread).
std::size_t checked_size(const fs::path& file, int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) throw_errno(file, "cannot read", errno);
  if (S_ISDIR(info.st_mode)) image_detail::throw_bad_image(file, "a folder, expected an image");
  if (!S_ISREG(info.st_mode)) {
    image_detail::throw_bad_image(file,
                                  "not a regular file (a FIFO, socket or device), expected "
                                  "an image");
  }
  const auto size = static_cast<std::uintmax_t>(info.st_size);
  if (size > max_image_file_bytes) {
    image_detail::throw_bad_image(
        file, fmt::format("a file of {} bytes: larger than the {} an image may have", size,
                          max_image_file_bytes));
  }
  return static_cast<std::size_t>(size);
}

}  // namespace

std::optional<ImageFormat> sniff_image_format(std::span<const std::uint8_t> bytes) {
  if (starts_with(bytes, "\x89PNG\r\n\x1a\n")) return ImageFormat::png;
  if (starts_with(bytes, "\xff\xd8\xff")) return ImageFormat::jpeg;
  if (starts_with(bytes, "RIFF") && starts_with(bytes, "WEBP", 8)) return ImageFormat::webp;
  if (starts_with(bytes, "BM")) return ImageFormat::bmp;
  return std::nullopt;
}

std::string_view image_format_name(ImageFormat format) {
  switch (format) {
    case ImageFormat::png:
      return "PNG";
    case ImageFormat::jpeg:
      return "JPEG";
    case ImageFormat::webp:
      return "WebP";
    case ImageFormat::bmp:
      return "BMP";
  }
  return "?";
}

Image decode_image(std::span<const std::uint8_t> bytes, int channels, const fs::path& file,
                   std::int64_t max_bytes, DraftSize draft) {
  if (channels != 1 && channels != 3) {
    throw std::invalid_argument(
        fmt::format("decode_image: channels {}, expected 1 or 3", channels));
  }
  const std::optional<ImageFormat> format = sniff_image_format(bytes);
  if (!format) throw_not_an_image(bytes, file);
  const image_detail::DecodeBudget budget{channels, max_bytes, draft};
  try {
    switch (*format) {
      case ImageFormat::png:
        return to_planar(image_detail::decode_png(bytes, file, budget), channels);
      case ImageFormat::jpeg:
        return to_planar(image_detail::decode_jpeg(bytes, file, budget), channels);
      case ImageFormat::webp:
        return to_planar(image_detail::decode_webp(bytes, file, budget), channels);
      case ImageFormat::bmp:
        return to_planar(image_detail::decode_bmp(bytes, file, budget), channels);
    }
  } catch (const std::bad_alloc&) {
    throw_image_out_of_memory(file, bytes.size());
  }
  throw_not_an_image(bytes, file);
}

void read_image_file(const fs::path& file, std::vector<std::uint8_t>& bytes) {
  Descriptor descriptor{::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (descriptor.fd < 0) throw_errno(file, "cannot open", errno);
  const std::size_t size = checked_size(file, descriptor.fd);
  try {
    bytes.resize(size);
  } catch (const std::bad_alloc&) {
    throw_image_out_of_memory(file, size);
  }
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(descriptor.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno(file, "cannot read", errno);
    if (n == 0) break;  // shrank while being read
    done += static_cast<std::size_t>(n);
  }
  bytes.resize(done);
}

Image read_image(const fs::path& file, int channels, std::int64_t max_bytes, DraftSize draft) {
  std::vector<std::uint8_t> bytes;
  read_image_file(file, bytes);
  return decode_image(bytes, channels, file, max_bytes, draft);
}

}  // namespace runner
