// JPEG through libjpeg-turbo with its default (Pillow's) settings: gray, RGB, or CMYK converted to
// RGB as Pillow does. libjpeg's errors come back through setjmp; "premature end of data" is a
// truncated file, an error as in Pillow (which raises "image file is truncated").
#include <fmt/format.h>

#include <algorithm>
#include <csetjmp>
#include <cstdio>  // jpeglib.h needs FILE and size_t first
#include <vector>

#include "runner/data/image_decode.h"
#include "runner/data/image_decoders.h"

extern "C" {
#include <jerror.h>
#include <jpeglib.h>
}

namespace runner::image_detail {
namespace {

namespace fs = std::filesystem;

struct ErrorManager {
  jpeg_error_mgr library;  // first, so that cinfo->err points at the whole struct
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = "";
  bool truncated = false;
};

void on_error(j_common_ptr cinfo) {
  auto* errors = reinterpret_cast<ErrorManager*>(cinfo->err);
  cinfo->err->format_message(cinfo, errors->message);
  std::longjmp(errors->jump, 1);
}

// Warnings (level -1) other than the end of the data are ignored, as Pillow ignores them.
void on_message(j_common_ptr cinfo, int level) {
  if (level >= 0) return;  // trace messages
  if (cinfo->err->msg_code == JWRN_JPEG_EOF) {
    reinterpret_cast<ErrorManager*>(cinfo->err)->truncated = true;
    on_error(cinfo);
  }
  ++cinfo->err->num_warnings;
}

// libjpeg's handle, destroyed on every way out. Zeroed, so that destroying a handle whose
// creation failed is harmless.
struct Decompressor {
  jpeg_decompress_struct cinfo{};
  ErrorManager errors;
  Decompressor() {
    cinfo.err = jpeg_std_error(&errors.library);
    errors.library.error_exit = on_error;
    errors.library.emit_message = on_message;
  }
  ~Decompressor() { jpeg_destroy_decompress(&cinfo); }
};

// The functions that call setjmp hold no object with a destructor: longjmp skips none.
bool read_header(Decompressor& d, std::span<const std::uint8_t> bytes) {
  if (setjmp(d.errors.jump)) return false;
  jpeg_create_decompress(&d.cinfo);
  jpeg_mem_src(&d.cinfo, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&d.cinfo, TRUE);
  return true;
}

bool read_pixels(Decompressor& d, std::uint8_t* out) {
  if (setjmp(d.errors.jump)) return false;
  jpeg_start_decompress(&d.cinfo);
  const std::size_t stride = std::size_t{d.cinfo.output_width} * d.cinfo.output_components;
  while (d.cinfo.output_scanline < d.cinfo.output_height) {
    JSAMPROW row = out + d.cinfo.output_scanline * stride;
    jpeg_read_scanlines(&d.cinfo, &row, 1);
  }
  jpeg_finish_decompress(&d.cinfo);
  return true;
}

[[noreturn]] void throw_jpeg_error(const Decompressor& d, const fs::path& file) {
  const char* kind = d.errors.truncated ? "truncated JPEG" : "not a valid JPEG";
  throw_bad_image(file, fmt::format("{}: {}", kind, d.errors.message));
}

// Pillow opens 4-component JPEGs as Adobe's inverted CMYK ("CMYK;I") and converts to RGB with
// its cmyk2rgb: nk = 255 - k, each channel nk - c * nk / 255, rounded as MULDIV255.
void cmyk_to_rgb(const std::vector<std::uint8_t>& cmyk, DecodedPixels& out) {
  auto muldiv255 = [](int a, int b) {
    const int t = a * b + 128;
    return ((t >> 8) + t) >> 8;
  };
  const std::size_t pixels = std::size_t{static_cast<unsigned>(out.width)} * out.height;
  for (std::size_t i = 0; i < pixels; ++i) {
    const std::uint8_t* in = &cmyk[4 * i];
    const int nk = in[3];  // inverted twice: 255 - (255 - k)
    for (int c = 0; c < 3; ++c) out.data[3 * i + c] = nk - muldiv255(255 - in[c], nk);
  }
}

// Pillow's JpegImageFile.draft: scale = min(width // draft width, height // draft height), then
// the largest of 8, 4, 2 that it reaches (else 1), libjpeg's scale 1/scale (each side rounded
// up). Sets output_width and output_height, also at full size. (Calls setjmp: holds no object
// with a destructor.)
bool set_draft_scale(Decompressor& d, DraftSize draft) {
  if (setjmp(d.errors.jump)) return false;
  unsigned scale = 1;
  if (draft.width > 0 && draft.height > 0) {
    const unsigned most = std::min(d.cinfo.image_width / static_cast<unsigned>(draft.width),
                                   d.cinfo.image_height / static_cast<unsigned>(draft.height));
    for (unsigned s : {8u, 4u, 2u}) {
      if (most >= s) {
        scale = s;
        break;
      }
    }
  }
  d.cinfo.scale_num = 1;
  d.cinfo.scale_denom = scale;
  jpeg_calc_output_dimensions(&d.cinfo);
  return true;
}

}  // namespace

DecodedPixels decode_jpeg(std::span<const std::uint8_t> bytes, const fs::path& file,
                          const DecodeBudget& budget) {
  Decompressor d;
  if (!read_header(d, bytes)) throw_jpeg_error(d, file);
  check_image_size(d.cinfo.image_width, d.cinfo.image_height, "JPEG", file);
  const J_COLOR_SPACE space = d.cinfo.jpeg_color_space;
  const bool cmyk = space == JCS_CMYK || space == JCS_YCCK;
  d.cinfo.out_color_space = space == JCS_GRAYSCALE ? JCS_GRAYSCALE : cmyk ? JCS_CMYK : JCS_RGB;
  const int components = space == JCS_GRAYSCALE ? 1 : cmyk ? 4 : 3;
  // The decoded samples; a progressive JPEG also keeps every DCT coefficient (2 bytes a sample)
  // until its last scan.
  const std::uint64_t samples =
      std::uint64_t{d.cinfo.image_width} * d.cinfo.image_height * d.cinfo.num_components;
  check_decoding_bytes({"JPEG", d.cinfo.image_width, d.cinfo.image_height, bytes.size(),
                        samples * (d.cinfo.progressive_mode ? 3 : 1), components == 1 ? 1 : 3},
                       budget, file);
  if (!set_draft_scale(d, budget.draft)) throw_jpeg_error(d, file);
  DecodedPixels out{components == 1 ? 1 : 3,
                    static_cast<int>(d.cinfo.output_height),
                    static_cast<int>(d.cinfo.output_width),
                    {}};
  std::vector<std::uint8_t> decoded(std::size_t{d.cinfo.output_width} * d.cinfo.output_height *
                                    components);
  if (!read_pixels(d, decoded.data())) throw_jpeg_error(d, file);
  if (!cmyk) {
    out.data = std::move(decoded);
    return out;
  }
  out.data.resize(decoded.size() / 4 * 3);
  cmyk_to_rgb(decoded, out);
  return out;
}

}  // namespace runner::image_detail
