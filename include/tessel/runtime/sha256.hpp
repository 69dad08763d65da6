// SHA-256 (FIPS 180-4), used to name cache entries by content and to checksum them. Written here
// rather than taken from a crypto library so that the runtime needs nothing beyond NVRTC.
#pragma once

#include <string>
#include <string_view>

namespace tessel::runtime {

// The digest of `data` as 64 lowercase hex characters.
std::string sha256_hex(std::string_view data);

}  // namespace tessel::runtime
