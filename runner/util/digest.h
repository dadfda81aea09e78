// Hex digests (SHA-256 for config fingerprints, MD5 for the CIFAR-10 archive check).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace runner {

std::string sha256_hex(std::string_view bytes);
std::string md5_hex_of_file(const std::filesystem::path& path);
std::string sha256_hex_of_file(const std::filesystem::path& path);

}  // namespace runner
