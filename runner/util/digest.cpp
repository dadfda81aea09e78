// SHA-256 and MD5 through OpenSSL's EVP interface.
#include "runner/util/digest.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <fstream>
#include <memory>
#include <vector>

#include "runner/util/errors.h"

namespace runner {
namespace {

class Digest {
 public:
  explicit Digest(const EVP_MD* type) : context_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    EVP_DigestInit_ex(context_.get(), type, nullptr);
  }
  void update(const void* data, std::size_t size) { EVP_DigestUpdate(context_.get(), data, size); }
  std::string hex() {
    std::string out;
    for (unsigned char byte : bytes()) out += fmt::format("{:02x}", byte);
    return out;
  }
  std::string base64() {
    const std::vector<unsigned char> value = bytes();
    std::vector<unsigned char> out(4 * ((value.size() + 2) / 3) + 1);  // and the final NUL
    const int size = EVP_EncodeBlock(out.data(), value.data(), static_cast<int>(value.size()));
    return std::string(out.begin(), out.begin() + size);
  }

 private:
  std::vector<unsigned char> bytes() {
    unsigned char value[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    EVP_DigestFinal_ex(context_.get(), value, &size);
    return {value, value + size};
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context_;
};

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  Digest digest(EVP_sha256());
  digest.update(bytes.data(), bytes.size());
  return digest.hex();
}

std::string sha256_base64(std::string_view bytes) {
  Digest digest(EVP_sha256());
  digest.update(bytes.data(), bytes.size());
  return digest.base64();
}

static std::string hex_digest_of_file(const std::filesystem::path& path, const EVP_MD* type) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("{}: cannot open for checksum", path.string()));
  Digest digest(type);
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    digest.update(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  return digest.hex();
}

std::string md5_hex_of_file(const std::filesystem::path& path) {
  return hex_digest_of_file(path, EVP_md5());
}

std::string sha256_hex_of_file(const std::filesystem::path& path) {
  return hex_digest_of_file(path, EVP_sha256());
}

}  // namespace runner
