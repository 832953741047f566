/* CRC-32 (IEEE 802.3, the polynomial of zlib and PNG), for C and C++: the
 * feature runtime checksums each dataset record it appends and the reader
 * checks it, so a torn or altered record is told from a whole one. Bitwise,
 * without a table: records are small and written once per run. */
#ifndef PERFCAST_SUPPORT_CRC32_H
#define PERFCAST_SUPPORT_CRC32_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t perfcast_crc32(const void* data, size_t size) {
  const unsigned char* p = (const unsigned char*)data;
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) {
    crc ^= p[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return crc ^ 0xFFFFFFFFu;
}

#endif
