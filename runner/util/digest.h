// Digests: hex SHA-256 for config fingerprints, MD5 for the CIFAR-10 archive check, and base64
// SHA-256 as a Content-Security-Policy names a script it allows.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace runner {

std::string sha256_hex(std::string_view bytes);
// The SHA-256 of `bytes` in base64 (44 characters): the digest's bytes, not its hex.
std::string sha256_base64(std::string_view bytes);
std::string md5_hex_of_file(const std::filesystem::path& path);
std::string sha256_hex_of_file(const std::filesystem::path& path);

}  // namespace runner
